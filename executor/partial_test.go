package executor_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/executor"
)

// Run drives a partial re-ask: the model's second answer holds just the
// members asked for, and the Result is the merged document.
func TestRun_partialReask(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	bp := `{"name": "triage", "retry": "partial", "system_prompt": "Triage the ticket.",
		"output_schema": {"type": "object", "required": ["category", "priority", "summary"], "additionalProperties": false,
			"properties": {"category": {"enum": ["billing", "bug"]}, "priority": {"enum": ["low", "high"]}, "summary": {"type": "string"}}}}`
	if err := os.WriteFile(filepath.Join(dir, "agents", "triage.json"), []byte(bp), 0o644); err != nil {
		t.Fatal(err)
	}
	ag := withGatewayConfig(t, dir)
	model := script(`{"category": "billing", "priority": "critical", "summary": "Double charge"}`, `{"priority": "high"}`)
	var retry *contract.RetryEvent
	r, err := ag.client.Run(testCtx(t), "triage", "run-partial", model, executor.WithInput("I was charged twice"),
		executor.WithOutcomeHook(func(o *executor.Outcome) {
			if o.Retry != nil {
				retry = o.Retry
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	if retry == nil || retry.Partial == nil || len(retry.Partial.Paths) != 1 || retry.Partial.Paths[0] != "$.priority" {
		t.Fatalf("retry request = %+v", retry)
	}
	calls := model.conversations()
	if last := calls[1][len(calls[1])-1]; last.Role != executor.RoleUser || !strings.Contains(last.Content, "## Members to correct") {
		t.Errorf("the model was not asked for the members: %+v", last)
	}
	var data map[string]any
	if err := json.Unmarshal(r.Data, &data); err != nil {
		t.Fatal(err)
	}
	if r.Attempt != 2 || data["category"] != "billing" || data["priority"] != "high" || data["summary"] != "Double charge" {
		t.Errorf("result attempt %d data %s", r.Attempt, r.Data)
	}
	if len(r.Normalizations) == 0 || r.Normalizations[0].Op != contract.OpMerge {
		t.Errorf("normalizations = %+v", r.Normalizations)
	}
}
