package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/contract"
)

// triageConfig writes a configuration folder with one agent, "triage",
// that asks partial re-asks, and returns the folder.
func triageConfig(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	bp := `{"name": "triage", "retry": "partial", "max_retries": 2, "extra_fields": "reject",
		"output_schema": {"type": "object", "required": ["category", "priority", "summary"],
			"properties": {
				"category": {"enum": ["billing", "bug", "other"]},
				"priority": {"enum": ["low", "medium", "high", "urgent"]},
				"summary": {"type": "string", "minLength": 1},
				"tags": {"type": "array", "items": {"type": "string"}}},
			"additionalProperties": false}}`
	if err := os.WriteFile(filepath.Join(dir, "agents", "triage.json"), []byte(bp), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The partial re-ask round trip on the bus: a bad output, a retry request
// asking only for the failing members, an answer holding just those, and
// the merged document published as the valid result.
func TestGateway_partialReaskRoundTrip(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	startGatewayDir(t, b, triageConfig(t))

	b.publish(raw{agent: "triage", run: "run-part", attempt: 1,
		payload: `{"category": "billing", "priority": "critical", "summary": "Refund for a double charge", "tags": ["refund", 7]}`})
	retry := b.awaitOutcomes("run-part", 1)[0]
	if retry.Headers.Get(contract.HeaderOutcome) != "retry" {
		t.Fatalf("first outcome: %s", retry.Data)
	}
	paths, _ := field(retry.Body, "partial", "paths").([]any)
	if len(paths) != 2 || paths[0] != "$.priority" || paths[1] != "$.tags" {
		t.Fatalf("partial paths = %v in %s", paths, retry.Data)
	}
	prompt, _ := retry.Body["retry_prompt"].(string)
	for _, want := range []string{`- $.priority: got "critical", expected one of "low", "medium", "high", "urgent"`,
		"## Members to correct", `"summary": "Refund for a double charge"`} {
		if !strings.Contains(prompt, want) {
			t.Errorf("retry_prompt lacks %q:\n%s", want, prompt)
		}
	}
	b.awaitState("run-part", contract.RunRetryRequested, 1)

	// The model answers with just the two members.
	b.publish(raw{agent: "triage", run: "run-part", attempt: 2, payload: `{"priority": "high", "tags": ["refund", "billing"]}`})
	got := b.awaitOutcomes("run-part", 2)
	valid := got[1]
	if valid.Headers.Get(contract.HeaderOutcome) != "valid" {
		valid = got[0]
	}
	if valid.Headers.Get(contract.HeaderOutcome) != "valid" || valid.Headers.Get(contract.HeaderAttempt) != "2" {
		t.Fatalf("second outcome: %v %s", valid.Headers, valid.Data)
	}
	data, _ := valid.Body["result_data"].(map[string]any)
	if data["category"] != "billing" || data["priority"] != "high" || data["summary"] != "Refund for a double charge" ||
		len(data["tags"].([]any)) != 2 {
		t.Errorf("result_data = %v", data)
	}
	norms, _ := valid.Body["normalizations"].([]any)
	if len(norms) == 0 || norms[0].(map[string]any)["op"] != contract.OpMerge {
		t.Errorf("normalizations = %v, want the merge first", norms)
	}
	b.awaitState("run-part", contract.RunCompleted, 2)
}

// A refusal in plain words ends the run as a refusal, counted by agent.
func TestGateway_plainTextRefusal(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	g := startGateway(t, b)
	b.publish(raw{agent: "pr-reviewer", run: "run-says-no", payload: "I'm sorry, but I can't help with that."})
	b.publish(raw{agent: "pr-reviewer", run: "run-answers", payload: "I can't find any issues:\n```json\n" + validReview + "\n```"})
	o := b.awaitOutcomes("run-says-no", 1)[0]
	if o.Subject != "agent.output.refused.pr-reviewer" || o.Body["refusal"] != "I'm sorry, but I can't help with that." || o.Body["detection"] != "text" {
		t.Errorf("outcome on %s: %s", o.Subject, o.Data)
	}
	b.awaitState("run-says-no", contract.RunRefused, 1)
	if a := b.awaitOutcomes("run-answers", 1)[0]; a.Headers.Get(contract.HeaderOutcome) != "valid" {
		t.Errorf("an answer with JSON after refusal-like words: %s", a.Data)
	}
	b.awaitIdle()
	fams := scrape(t, g)
	if got := metricValue(fams, "agentgate_refusals_total", map[string]string{"agent": "pr-reviewer", "detection": "text"}); got != 1 {
		t.Errorf("agentgate_refusals_total{pr-reviewer,text} = %v, want 1", got)
	}
}
