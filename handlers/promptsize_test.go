package handlers_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/schemas"
)

// TestRetryPromptSize measures, on the failures of
// testdata/promptsize/cases.json (against the bundled examples' agents and
// two wider realistic schemas), the retry prompt of a partial re-ask
// against a full one, and prints the table docs/prompts.md quotes. A case
// whose partial re-ask is no shorter than the full one is reported, not
// failed: the partial prompt carries the previous document as context,
// which can outweigh a small schema. Reproduce it with
//
//	go test -v -run TestRetryPromptSize ./handlers/
func TestRetryPromptSize(t *testing.T) {
	t.Parallel()
	examples, err := schemas.Load("../examples")
	if err != nil {
		t.Fatal(err)
	}
	extra, err := schemas.Load(filepath.Join("testdata", "promptsize"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "promptsize", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name   string          `json:"name"`
		Agent  string          `json:"agent"`
		Schema string          `json:"schema"`
		Output json.RawMessage `json:"output"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	table.WriteString("| case | full prompt (bytes) | partial prompt (bytes) | partial/full | answer: whole document (bytes) | answer: patch (bytes) | members asked |\n|---|---:|---:|---:|---:|---:|---|\n")
	var sumFull, sumPartial, sumWhole, sumPatch int
	for _, c := range cases {
		var s *schemas.Schema
		if c.Agent != "" {
			bp, ok := examples.Blueprint(c.Agent)
			if !ok {
				t.Fatalf("%s: no agent %s", c.Name, c.Agent)
			}
			s = bp.OutputSchema
		} else {
			s, _ = extra.Schema("https://agentgate.dev/schemas/" + c.Schema + "/1.0.0")
		}
		v := handlers.Check(c.Output, s, handlers.CheckOptions{Coerce: true})
		if v.Valid {
			t.Fatalf("%s: the output is valid", c.Name)
		}
		full := handlers.BuildRetryPrompt(handlers.RetryRequest{Violations: v.Violations, Schema: s.ForModel()})
		ask := handlers.PartialAskFor(s, v)
		if ask == nil {
			t.Errorf("%s: no partial re-ask", c.Name)
			continue
		}
		partial := handlers.BuildRetryPrompt(handlers.RetryRequest{Violations: v.Violations, Schema: s.ForModel(), Partial: ask})
		var members []string
		for _, m := range ask.Members {
			members = append(members, m.Path)
		}
		// What the model writes back: the whole document again, or a
		// patch of the members asked for (their failed values stand in for
		// the corrected ones, which are about as long).
		whole, _ := json.Marshal(v.Data)
		patch, _ := json.Marshal(patchOf(v.Data, members))
		sumFull += len(full)
		sumPartial += len(partial)
		sumWhole += len(whole)
		sumPatch += len(patch)
		fmt.Fprintf(&table, "| %s | %d | %d | %.2f | %d | %d | %s |\n", c.Name, len(full), len(partial),
			float64(len(partial))/float64(len(full)), len(whole), len(patch), strings.Join(members, ", "))
	}
	fmt.Fprintf(&table, "| **all %d cases** | %d | %d | %.2f | %d | %d (%.2f) | |\n", len(cases), sumFull, sumPartial,
		float64(sumPartial)/float64(sumFull), sumWhole, sumPatch, float64(sumPatch)/float64(sumWhole))
	t.Logf("retry prompt sizes, partial re-ask against full:\n%s", table.String())
	// The point of a partial re-ask: less to read and less to write back
	// (docs/prompts.md has 0.74 and 0.29 of the full sizes).
	if sumPartial >= sumFull || sumPatch >= sumWhole {
		t.Errorf("partial prompts %d bytes against %d full, patches %d against %d whole: want both smaller", sumPartial, sumFull, sumPatch, sumWhole)
	}
}

// patchOf is the merge patch holding doc's members at paths.
func patchOf(doc any, paths []string) map[string]any {
	out := map[string]any{}
	for _, p := range paths {
		src, _ := doc.(map[string]any)
		dst := out
		names := schemas.MemberNames(p)
		for i, name := range names {
			if i == len(names)-1 {
				dst[name] = src[name]
				break
			}
			next, _ := dst[name].(map[string]any)
			if next == nil {
				next = map[string]any{}
				dst[name] = next
			}
			dst = next
			src, _ = src[name].(map[string]any)
		}
	}
	return out
}
