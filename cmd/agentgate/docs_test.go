package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// docs are the documents whose console examples must run as written, from
// the repository's root.
var docs = []string{"README.md", "docs/schemas.md"}

// TestDocs_consoleExamples runs every "$ agentgate ..." line of the docs'
// console blocks from the repository's root and compares its output with
// the lines printed under it ("..." stands for any lines); "$ echo $?"
// checks the exit status. Only | head -N and | tail -N pipes are known.
func TestDocs_consoleExamples(t *testing.T) {
	t.Chdir("../..")
	ran := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range consoleBlocks(string(b)) {
			var last int
			for _, c := range block {
				if c.cmd == "echo $?" {
					if want := strings.Join(c.want, "\n"); want != strconv.Itoa(last) {
						t.Errorf("%s: exit status %d, the doc says %s", doc, last, want)
					}
					continue
				}
				args, pipe, n := parseCommand(t, c.cmd)
				var out string
				out, last = runCombined(t, args)
				lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
				switch pipe {
				case "head":
					lines = lines[:min(n, len(lines))]
				case "tail":
					lines = lines[max(0, len(lines)-n):]
				}
				if !matchLines(c.want, lines) {
					t.Errorf("%s: $ %s\nprinted:\n%s\nthe doc says:\n%s", doc, c.cmd, strings.Join(lines, "\n"), strings.Join(c.want, "\n"))
				}
				ran++
			}
		}
	}
	if ran < 6 {
		t.Errorf("ran %d documented commands; the docs have more", ran)
	}
}

// Every file under examples/ that the docs name exists, and the diff
// example's old version is the bundled schema.
func TestDocs_exampleFilesExist(t *testing.T) {
	t.Chdir("../..")
	re := regexp.MustCompile(`examples/[A-Za-z0-9_./-]+[A-Za-z0-9_]`)
	for _, doc := range append([]string{"docs/executor.md", "docs/contract.md"}, docs...) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range re.FindAllString(string(b), -1) {
			if _, err := os.Stat(filepath.FromSlash(p)); err != nil {
				t.Errorf("%s names %s: %v", doc, p, err)
			}
		}
	}
	old, _ := os.ReadFile("examples/diff/pr-review-1.0.0.schema.json")
	cur, _ := os.ReadFile("examples/schemas/pr-review.schema.json")
	if !bytes.Equal(old, cur) {
		t.Error("examples/diff/pr-review-1.0.0.schema.json differs from examples/schemas/pr-review.schema.json")
	}
}

type consoleCommand struct {
	cmd  string
	want []string
}

// consoleBlocks returns the commands of each ```console block.
func consoleBlocks(doc string) [][]consoleCommand {
	var blocks [][]consoleCommand
	var cur []consoleCommand
	in := false
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case !in && strings.TrimSpace(line) == "```console":
			in, cur = true, nil
		case in && strings.TrimSpace(line) == "```":
			in = false
			blocks = append(blocks, cur)
		case in && strings.HasPrefix(line, "$ "):
			cur = append(cur, consoleCommand{cmd: strings.TrimPrefix(line, "$ ")})
		case in && len(cur) > 0:
			cur[len(cur)-1].want = append(cur[len(cur)-1].want, line)
		}
	}
	return blocks
}

func parseCommand(t *testing.T, cmd string) (args []string, pipe string, n int) {
	t.Helper()
	cmd, tail, piped := strings.Cut(cmd, " | ")
	if piped {
		f := strings.Fields(tail)
		if len(f) != 2 || (f[0] != "head" && f[0] != "tail") || !strings.HasPrefix(f[1], "-") {
			t.Fatalf("unknown pipe in %q", cmd)
		}
		pipe = f[0]
		n, _ = strconv.Atoi(f[1][1:])
	}
	args = strings.Fields(cmd)
	if len(args) == 0 || args[0] != "agentgate" {
		t.Fatalf("not an agentgate command: %q", cmd)
	}
	return args[1:], pipe, n
}

// runCombined runs the CLI as main would, bounded in time, and returns what
// it printed (standard output, then standard error and main's last line).
func runCombined(t *testing.T, args []string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := newRootCmd()
	var out, errOut bytes.Buffer
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	err := cmd.ExecuteContext(ctx)
	code := 0
	var ec exitCode
	switch {
	case err == nil:
	case errors.As(err, &ec):
		code = ec.code
		if ec.err != nil {
			errOut.WriteString("agentgate: " + ec.err.Error() + "\n")
		}
	default:
		code = 2
		errOut.WriteString("agentgate: " + err.Error() + "\n")
	}
	return out.String() + errOut.String(), code
}

// matchLines compares printed lines with the doc's, where a "..." line
// stands for any number of lines.
func matchLines(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for i := 0; i <= len(got); i++ {
			if matchLines(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && got[0] == want[0] && matchLines(want[1:], got[1:])
}
