package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/natstest"
)

const examples = "../../examples"

// run executes the CLI with args and stdin, returning stdout and the exit
// status main would use.
func run(t *testing.T, stdin string, args ...string) (string, int) {
	t.Helper()
	cmd := newRootCmd()
	var out, errOut bytes.Buffer
	cmd.SetArgs(args)
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	err := cmd.ExecuteContext(context.Background())
	var ec exitCode
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &ec):
		return out.String(), ec.code
	default:
		t.Logf("stderr: %s; error: %v", errOut.String(), err)
		return out.String(), 2
	}
}

func TestValidate_exitStatus(t *testing.T) {
	tests := []struct {
		name     string
		stdin    string
		args     []string
		wantCode int
		wantOut  string
	}{
		{"valid", `{"summary":"ok","approval":"approve","comments":[]}`,
			[]string{"validate", "--config", examples, "--agent", "pr-reviewer"}, 0, `"event_type":"result"`},
		{"drift normalized", "```json\n{\"summary\":\"ok\",\"approval\":\"Approve\",\"review_comments\":[]}\n```",
			[]string{"validate", "--config", examples, "--agent", "pr-reviewer", "-"}, 0, `"normalized":true`},
		{"invalid", `{"summary":"ok","approval":"lgtm","comments":[]}`,
			[]string{"validate", "--config", examples, "--agent", "pr-reviewer"}, 1, `"keyword":"enum"`},
		{"invalid on the last attempt", `{"summary":"ok"}`,
			[]string{"validate", "--config", examples, "--agent", "pr-reviewer", "--attempt", "2"}, 1, `"output_schema_validation_failed"`},
		{"truncated: a retry at the cut, as serve gives", `{"summary":"ok","approval":"approve","comments":[`,
			[]string{"validate", "--config", examples, "--agent", "pr-reviewer"}, 1, `"keyword":"truncated"`},
		{"refusal", `{"refusal":"no"}`,
			[]string{"validate", "--config", examples, "--agent", "pr-reviewer"}, 1, `"event_type":"refusal"`},
		{"bundled examples when no --config", `{"summary":"ok","approval":"approve","comments":[]}`,
			[]string{"validate", "--agent", "pr-reviewer"}, 0, `"event_type":"result"`},
		{"unknown agent", `{}`, []string{"validate", "--config", examples, "--agent", "nobody"}, 2, `"unknown_agent"`},
		{"missing --agent", `{}`, []string{"validate", "--config", examples}, 2, ""},
		{"bad config dir", `{}`, []string{"validate", "--config", "no-such-dir", "--agent", "pr-reviewer"}, 2, ""},
		{"missing file", ``, []string{"validate", "--config", examples, "--agent", "pr-reviewer", "no-such-file.json"}, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := run(t, tt.stdin, tt.args...)
			if code != tt.wantCode || !strings.Contains(out, tt.wantOut) {
				t.Errorf("exit %d, want %d; output:\n%s\nwant it to contain %s", code, tt.wantCode, out, tt.wantOut)
			}
		})
	}
}

func TestFlagsFromEnvironment(t *testing.T) {
	t.Setenv("AGENTGATE_AGENT", "pr-reviewer")
	t.Setenv("AGENTGATE_CONFIG", examples)
	out, code := run(t, `{"summary":"ok","approval":"approve","comments":[]}`, "validate")
	if code != 0 || !strings.Contains(out, `"agent_id":"pr-reviewer"`) {
		t.Fatalf("exit %d: %s", code, out)
	}
	// The command line wins over the environment.
	t.Setenv("AGENTGATE_AGENT", "nobody")
	if _, code := run(t, `{"summary":"ok","approval":"approve","comments":[]}`, "validate", "--agent", "pr-reviewer"); code != 0 {
		t.Errorf("flag did not override the environment: exit %d", code)
	}
	t.Setenv("AGENTGATE_ATTEMPT", "many")
	if _, code := run(t, `{}`, "validate"); code != 2 {
		t.Errorf("bad environment value: exit %d, want 2", code)
	}
}

func TestPublish_printsTheOutcome(t *testing.T) {
	srv := natstest.Server(t)
	natstest.Gateway(t, srv, examples)

	url := srv.ClientURL()
	out, code := run(t, `{"summary":"ok","approval":"approve","comments":[]}`,
		"publish", "--nats-url", url, "--agent", "pr-reviewer", "--run", "cli-1", "--wait", "10s")
	if code != 0 || !strings.Contains(out, `"event_type":"result"`) {
		t.Fatalf("exit %d: %s", code, out)
	}
	out, code = run(t, "I won't.", "publish", "--nats-url", url, "--agent", "pr-reviewer", "--run", "cli-2", "--refusal")
	if code != 1 || !strings.Contains(out, `"refusal":"I won't."`) {
		t.Fatalf("exit %d: %s", code, out)
	}
	// The run is finished: no new outcome, the recorded one is printed.
	start := time.Now()
	out, code = run(t, `{}`, "publish", "--nats-url", url, "--agent", "pr-reviewer", "--run", "cli-1", "--wait", "500ms")
	if code != 0 || !strings.Contains(out, `"run_id":"cli-1"`) || time.Since(start) > 10*time.Second {
		t.Fatalf("exit %d: %s", code, out)
	}
	if _, code := run(t, `{}`, "publish", "--nats-url", url, "--agent", "bad agent", "--run", "x"); code != 2 {
		t.Errorf("bad agent name: exit %d, want 2", code)
	}
}

// The answer to a partial re-ask is merged into the document its retry
// request kept, as serve merges it, when that request is given with
// --previous.
func TestValidate_partialReask(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	bp := `{"name": "triage", "max_retries": 2, "retry": "partial", "output_schema": {"type": "object",
		"required": ["category", "priority"], "additionalProperties": false,
		"properties": {"category": {"enum": ["billing", "bug"]}, "priority": {"enum": ["low", "high"]}}}}`
	if err := os.WriteFile(filepath.Join(dir, "agents", "triage.json"), []byte(bp), 0o644); err != nil {
		t.Fatal(err)
	}
	first, code := run(t, `{"category": "billing", "priority": "critical"}`, "validate", "--config", dir, "--agent", "triage")
	if code != 1 || !strings.Contains(first, `"partial"`) {
		t.Fatalf("attempt 1: exit %d: %s", code, first)
	}
	previous := filepath.Join(dir, "retry.json")
	if err := os.WriteFile(previous, []byte(first), 0o644); err != nil {
		t.Fatal(err)
	}
	patch := `{"priority": "high"}`
	out, code := run(t, patch, "validate", "--config", dir, "--agent", "triage", "--attempt", "2", "--previous", previous)
	if code != 0 || !strings.Contains(out, `"result_data":{"category":"billing","priority":"high"}`) {
		t.Errorf("attempt 2 with --previous: exit %d: %s", code, out)
	}
	// Without it the patch is judged alone, and misses "category".
	if out, code := run(t, patch, "validate", "--config", dir, "--agent", "triage", "--attempt", "2"); code != 1 {
		t.Errorf("attempt 2 alone: exit %d: %s", code, out)
	}
	// A --previous that is no retry request, or of another attempt.
	if _, code := run(t, patch, "validate", "--config", dir, "--agent", "triage", "--attempt", "3", "--previous", previous); code != 2 {
		t.Errorf("--previous of attempt 1 with --attempt 3: exit %d, want 2", code)
	}
	if _, code := run(t, patch, "validate", "--config", dir, "--agent", "triage", "--attempt", "2", "--previous", filepath.Join(dir, "agents", "triage.json")); code != 2 {
		t.Errorf("--previous naming a blueprint: exit %d, want 2", code)
	}
}
