package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/schemas"
)

// truncatedReview is a review cut off by max_tokens inside a comment.
const truncatedReview = `{"summary": "Adds retries to the client", "approval": "approve",
	"comments": [{"file": "client.go", "line": 42, "severity": "suggestion", "message": "Name the const`

// violationWith returns the first violation of a retry or dead letter
// with keyword kw.
func violationWith(t *testing.T, o outcome, kw string) map[string]any {
	t.Helper()
	vs, _ := field(o.Body, "error", "violations").([]any)
	for _, v := range vs {
		if m := v.(map[string]any); m["keyword"] == kw {
			return m
		}
	}
	t.Fatalf("no %s violation in %s", kw, o.Data)
	return nil
}

// A document cut off is never published as valid: by default it is a
// retry request with a truncated violation where the text ends, and the
// complete answer to it is valid.
func TestGateway_lossyRepairIsARetry(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	startGateway(t, b)
	b.publish(raw{agent: "pr-reviewer", run: "lossy-1", payload: truncatedReview})
	retry := b.awaitOutcomes("lossy-1", 1)[0]
	if retry.Subject != "agent.retry.requested.pr-reviewer" || field(retry.Body, "error", "retryable") != true {
		t.Fatalf("first outcome on %s: %s", retry.Subject, retry.Data)
	}
	v := violationWith(t, retry, contract.KeywordTruncated)
	if v["path"] != "$.comments[0].message" || !strings.Contains(v["received"].(string), `"message": "Name the const`) {
		t.Errorf("violation = %v", v)
	}
	if prompt, _ := retry.Body["retry_prompt"].(string); !strings.Contains(prompt, "$.comments[0].message: the output was cut off") {
		t.Errorf("retry_prompt does not say where the output was cut off:\n%s", prompt)
	}
	b.awaitState("lossy-1", contract.RunRetryRequested, 1)

	// Members written after the closing bracket: moved, so a retry too.
	b.publish(raw{agent: "pr-reviewer", run: "lossy-2", payload: `{"summary": "ok"}, "approval": "approve", "comments": []}`})
	moved := b.awaitOutcomes("lossy-2", 1)[0]
	if v := violationWith(t, moved, contract.KeywordRepair); v["path"] != "$.approval" {
		t.Errorf("moved member: violation %v", v)
	}
	if prompt, _ := moved.Body["retry_prompt"].(string); !strings.Contains(prompt, "$.approval: the output is malformed here") {
		t.Errorf("retry_prompt does not say where the output is malformed:\n%s", prompt)
	}

	b.publish(raw{agent: "pr-reviewer", run: "lossy-1", payload: validReview})
	got := b.awaitOutcomes("lossy-1", 2)
	valid := got[0]
	if valid.Headers.Get(contract.HeaderOutcome) != "valid" {
		valid = got[1]
	}
	if valid.Headers.Get(contract.HeaderOutcome) != "valid" || valid.Headers.Get(contract.HeaderAttempt) != "2" {
		t.Fatalf("answer to the retry: %s", valid.Data)
	}
	b.awaitState("lossy-1", contract.RunCompleted, 2)
}

// With "lossy_repair": "accept" the repaired document is valid and each
// loss is an op lossy at its path.
func TestGateway_lossyRepairAccepted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, sub := range []string{"schemas", "agents"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	schema, err := os.ReadFile(filepath.Join(examplesDir, "schemas", "pr-review.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"schemas/pr-review.schema.json": string(schema),
		"agents/lenient.json": `{"name": "lenient", "description": "accepts lossy repairs", "system_prompt": "",
			"output_schema": "https://agentgate.dev/schemas/pr-review/1.0.0", "lossy_repair": "accept"}`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reg, err := schemas.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	b := startBus(t)
	startGateway(t, b, func(c *gateway.Config) { c.Registry = reg })
	b.publish(raw{agent: "lenient", run: "lossy-3", payload: truncatedReview})
	o := b.awaitOutcomes("lossy-3", 1)[0]
	if o.Headers.Get(contract.HeaderOutcome) != "valid" || o.Body["normalized"] != true ||
		field(o.Body, "result_data", "comments").([]any)[0].(map[string]any)["message"] != "Name the const" {
		t.Fatalf("outcome: %s", o.Data)
	}
	ops, _ := o.Body["normalizations"].([]any)
	found := false
	for _, op := range ops {
		m := op.(map[string]any)
		found = found || (m["op"] == "lossy" && m["path"] == "$.comments[0].message" && m["detail"] == "closed truncated document")
	}
	if !found {
		t.Errorf("no op lossy at $.comments[0].message in %v", ops)
	}
}

// A streamed attempt whose final chunk comes but whose document never
// closed follows the same rule: a retry request at the cut, not a valid
// result and not a stream_incomplete dead letter.
func TestStream_truncatedAttemptIsARetry(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	startGateway(t, b)
	b.chunk("s-trunc", 0, false, `{"summary": "Adds retries", "approval": "approve", `)
	b.chunk("s-trunc", 1, true, `"comments": [{"file": "a.go", "line": 3, "severity": "nitpick", "message": "Ty`)
	o := b.awaitOutcomes("s-trunc", 1)[0]
	if o.Subject != "agent.retry.requested.pr-reviewer" || field(o.Body, "error", "stage") != nil {
		t.Fatalf("outcome on %s: %s", o.Subject, o.Data)
	}
	if v := violationWith(t, o, contract.KeywordTruncated); v["path"] != "$.comments[0].message" {
		t.Errorf("violation = %v", v)
	}
	b.awaitIdle()
	assertOneOutcomeEach(t, b, map[string]int{"s-trunc": 1})
	b.awaitState("s-trunc", contract.RunRetryRequested, 1)
}
