package test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/gateway"
)

const (
	validReview = `{"summary": "Adds retries to the client", "approval": "approve",
		"comments": [{"file": "client.go", "line": 42, "severity": "suggestion", "message": "Name the constant."}]}`
	// driftedReview is what models really send: prose, a fence, an alias
	// for comments and a member the closed object does not allow.
	driftedReview = "Here is my review:\n```json\n" + `{"summary": "Looks fine", "approval": "approve",
		"review_comments": [{"file": "a.go", "line": 3, "severity": "nitpick", "message": "typo", "trigger_pattern": "x"}]}` + "\n```\nLet me know!"
	badReview = `{"summary": "Risky change", "approval": "lgtm", "comments": []}`
)

func TestGateway_validOutput(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	g := startGateway(t, b)
	b.publish(raw{agent: "pr-reviewer", run: "run-valid", payload: validReview})

	got := b.awaitOutcomes("run-valid", 1)
	o := got[0]
	if o.Subject != "agent.output.valid.pr-reviewer" {
		t.Fatalf("subject = %q", o.Subject)
	}
	for h, want := range map[string]string{
		contract.HeaderRunID: "run-valid", contract.HeaderAgentID: "pr-reviewer", contract.HeaderAttempt: "1",
		contract.HeaderOutcome: "valid", contract.HeaderMsgID: "run-valid.1.valid",
	} {
		if o.Headers.Get(h) != want {
			t.Errorf("header %s = %q, want %q", h, o.Headers.Get(h), want)
		}
	}
	b1 := o.Body
	if b1["event_type"] != "result" || b1["normalized"] != false || b1["result_text"] != nil || b1["attempt"] != 1.0 ||
		b1["schema_id"] != "https://agentgate.dev/schemas/pr-review/1.0.0" || b1["session_id"] != nil {
		t.Errorf("unexpected result event: %s", o.Data)
	}
	if field(b1, "result_data", "approval") != "approve" {
		t.Errorf("result_data = %v", b1["result_data"])
	}
	if n, ok := b1["normalizations"].([]any); !ok || len(n) != 0 {
		t.Errorf("normalizations = %v, want []", b1["normalizations"])
	}
	b.awaitState("run-valid", contract.RunCompleted, 1)
	if st := b.runState("run-valid"); st.AgentID != "pr-reviewer" || st.RunID != "run-valid" {
		t.Fatalf("run state = %+v", st)
	}

	// GET /v1/runs/{run_id} answers with the recorded outcome.
	var run map[string]any
	getJSON(t, g, "/v1/runs/run-valid", http.StatusOK, &run)
	if run["status"] != "completed" || run["attempts"] != 1.0 || field(run, "outcome", "event_type") != "result" {
		t.Errorf("GET /v1/runs = %v", run)
	}
	getJSON(t, g, "/v1/runs/no-such-run", http.StatusNotFound, nil)
}

func TestGateway_driftIsNormalized(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	startGateway(t, b)
	b.publish(raw{agent: "pr-reviewer", run: "run-drift", payload: driftedReview, headers: nats.Header{"Session-Id": {"s-9"}}})

	o := b.awaitOutcomes("run-drift", 1)[0]
	if o.Headers.Get(contract.HeaderOutcome) != "valid" {
		t.Fatalf("outcome %s: %s", o.Headers.Get(contract.HeaderOutcome), o.Data)
	}
	if o.Body["normalized"] != true || o.Body["session_id"] != "s-9" {
		t.Errorf("event: %s", o.Data)
	}
	ops := map[string]bool{}
	for _, n := range o.Body["normalizations"].([]any) {
		ops[n.(map[string]any)["op"].(string)] = true
	}
	for _, op := range []string{"extract", "rename", "strip"} {
		if !ops[op] {
			t.Errorf("no %s normalization in %v", op, o.Body["normalizations"])
		}
	}
	comments, _ := field(o.Body, "result_data", "comments").([]any)
	if len(comments) != 1 || field(comments[0].(map[string]any), "trigger_pattern") != nil {
		t.Errorf("result_data not normalized: %v", o.Body["result_data"])
	}
}

func TestGateway_retryRoundTrip(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	startGateway(t, b)
	b.publish(raw{agent: "pr-reviewer", run: "run-rt", payload: badReview})
	retry := b.awaitOutcomes("run-rt", 1)[0]
	if retry.Subject != "agent.retry.requested.pr-reviewer" || retry.Headers.Get(contract.HeaderOutcome) != "retry" {
		t.Fatalf("first outcome on %s: %s", retry.Subject, retry.Data)
	}
	if retry.Body["event_type"] != "retry_requested" || retry.Body["next_attempt"] != 2.0 ||
		field(retry.Body, "error", "retryable") != true || field(retry.Body, "error", "error") != "output_validation_failed" {
		t.Errorf("retry event: %s", retry.Data)
	}
	vs := field(retry.Body, "error", "violations").([]any)
	v0 := vs[0].(map[string]any)
	if v0["path"] != "$.approval" || v0["keyword"] != "enum" || v0["received"] != "lgtm" {
		t.Errorf("violation = %v", v0)
	}
	prompt, _ := retry.Body["retry_prompt"].(string)
	for _, want := range []string{"<output-validation-error>", "## Validation Errors\n- $.approval: ", "## Required Schema\n```json\n", "</output-validation-error>"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("retry_prompt lacks %q:\n%s", want, prompt)
		}
	}
	b.awaitState("run-rt", contract.RunRetryRequested, 1)

	// The executor answers the retry request; Attempt may be left out.
	b.publish(raw{agent: "pr-reviewer", run: "run-rt", payload: validReview})
	got := b.awaitOutcomes("run-rt", 2)
	valid := got[0]
	if valid.Headers.Get(contract.HeaderOutcome) != "valid" {
		valid = got[1]
	}
	if valid.Headers.Get(contract.HeaderOutcome) != "valid" || valid.Headers.Get(contract.HeaderAttempt) != "2" {
		t.Fatalf("second outcome: %v %s", valid.Headers, valid.Data)
	}
	b.awaitState("run-rt", contract.RunCompleted, 2)
}

func TestGateway_retriesExhausted(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	startGateway(t, b)
	b.publish(raw{agent: "pr-reviewer", run: "run-ex", attempt: 1, payload: badReview})
	b.awaitOutcomes("run-ex", 1)
	b.publish(raw{agent: "pr-reviewer", run: "run-ex", attempt: 2, payload: `{"summary": 7}`})
	got := b.awaitOutcomes("run-ex", 2)
	var dlq *outcome
	for i := range got {
		if got[i].Headers.Get(contract.HeaderOutcome) == "dlq" {
			dlq = &got[i]
		}
	}
	if dlq == nil {
		t.Fatalf("no dead letter among %d outcomes", len(got))
	}
	if dlq.Subject != "agent.output.dlq.pr-reviewer" || dlq.Body["status"] != "failed" ||
		field(dlq.Body, "error", "type") != "output_schema_validation_failed" ||
		field(dlq.Body, "error", "message") != "Output did not match schema after 1 retry" ||
		field(dlq.Body, "validation", "retryable") != false {
		t.Errorf("dead letter: %s", dlq.Data)
	}
	if lines, _ := field(dlq.Body, "error", "validation_errors").([]any); len(lines) == 0 {
		t.Errorf("no validation_errors: %s", dlq.Data)
	}
	if field(dlq.Body, "raw", "payload") != `{"summary": 7}` {
		t.Errorf("raw output not kept: %v", dlq.Body["raw"])
	}
	b.awaitState("run-ex", contract.RunFailed, 2)
}

func TestGateway_refusals(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	startGateway(t, b)
	b.publish(raw{agent: "pr-reviewer", run: "run-ref-h", payload: "I can't help with that.",
		headers: nats.Header{"Output-Kind": {"refusal"}}})
	b.publish(raw{agent: "pr-reviewer", run: "run-ref-j", payload: `{"refusal": "No."}`})
	for run, text := range map[string]string{"run-ref-h": "I can't help with that.", "run-ref-j": "No."} {
		o := b.awaitOutcomes(run, 1)[0]
		if o.Subject != "agent.output.refused.pr-reviewer" || o.Body["event_type"] != "refusal" || o.Body["refusal"] != text {
			t.Errorf("%s: %s %s", run, o.Subject, o.Data)
		}
		b.awaitState(run, contract.RunRefused, 1)
	}
}

func TestGateway_deadLetters(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	startGateway(t, b, func(c *gateway.Config) { c.MaxPayload = 4096 })

	// Runs that already reached an outcome, for the last two rows.
	b.publish(raw{agent: "pr-reviewer", run: "done", payload: validReview})
	b.awaitOutcomes("done", 1)

	tests := []struct {
		name      string
		given     raw
		wantType  string
		wantSubj  string
		wantState contract.RunStatus // "" when the state must be left alone
	}{
		{"no run id", raw{agent: "pr-reviewer", payload: validReview},
			"invalid_envelope", "agent.output.dlq.pr-reviewer", ""},
		{"agent header differs from subject", raw{agent: "pr-reviewer", run: "dl-mismatch", payload: validReview,
			headers: nats.Header{"Agent-Id": {"code-analyzer"}}}, "invalid_envelope", "agent.output.dlq._", ""},
		{"attempt not a positive integer", raw{agent: "pr-reviewer", run: "dl-attempt", payload: validReview,
			headers: nats.Header{"Attempt": {"0"}}}, "invalid_envelope", "agent.output.dlq.pr-reviewer", ""},
		{"bare subject without agent", raw{subject: "agent.output.raw", run: "dl-bare", payload: validReview},
			"invalid_envelope", "agent.output.dlq._", ""},
		{"subject with two tokens", raw{subject: "agent.output.raw.a.b", run: "dl-tokens", payload: validReview},
			"invalid_envelope", "agent.output.dlq._", ""},
		{"unknown agent", raw{agent: "nobody", run: "dl-agent", payload: validReview},
			"unknown_agent", "agent.output.dlq.nobody", contract.RunFailed},
		{"unknown schema", raw{agent: "nobody", run: "dl-schema", payload: validReview,
			headers: nats.Header{"Schema-Id": {"https://agentgate.dev/schemas/none/1.0.0"}}}, "unknown_schema", "agent.output.dlq.nobody", contract.RunFailed},
		{"payload too large", raw{agent: "pr-reviewer", run: "dl-large", payload: strings.Repeat("x", 5000)},
			"payload_too_large", "agent.output.dlq.pr-reviewer", contract.RunFailed},
		{"invalid utf-8", raw{agent: "pr-reviewer", run: "dl-utf8", payload: "{\"summary\": \"\xff\xfe\"}"},
			"invalid_encoding", "agent.output.dlq.pr-reviewer", ""},
		{"run already completed", raw{agent: "pr-reviewer", run: "done", attempt: 2, payload: validReview},
			"run_already_completed", "agent.output.dlq.pr-reviewer", contract.RunCompleted},
		{"attempts exhausted", raw{agent: "pr-reviewer", run: "dl-exhausted", attempt: 3, payload: validReview},
			"attempts_exhausted", "agent.output.dlq.pr-reviewer", ""},
	}
	for i, tt := range tests {
		// Runs without an id are told apart by a header of their own.
		tt.given.headers = withHeader(tt.given.headers, "X-Case", fmt.Sprint(i))
		b.publish(tt.given)
	}
	b.awaitIdle()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *outcome
			waitFor(t, 15*time.Second, "dead letter", func() bool {
				for _, o := range b.streamMessages("AGENT_OUTPUT_DLQ") {
					if field(o.Body, "raw", "headers", "X-Case") != nil && field(o.Body, "raw", "headers", "X-Case").([]any)[0] == fmt.Sprint(i) {
						got = &o
						return true
					}
				}
				return false
			})
			if got.Subject != tt.wantSubj || field(got.Body, "error", "type") != tt.wantType || got.Body["event_type"] != "failed" {
				t.Fatalf("dead letter on %s: %s", got.Subject, got.Data)
			}
			if got.Headers.Get(contract.HeaderOutcome) != "dlq" {
				t.Errorf("Outcome header = %q", got.Headers.Get(contract.HeaderOutcome))
			}
			// The raw output is kept whole, for replay.
			if tt.wantType == "invalid_encoding" {
				if field(got.Body, "raw", "payload_base64") != "eyJzdW1tYXJ5IjogIv/+In0=" {
					t.Errorf("raw = %v", got.Body["raw"])
				}
			} else if field(got.Body, "raw", "payload") != tt.given.payload {
				t.Errorf("raw payload not kept: %v", got.Body["raw"])
			}
			if tt.given.run == "" {
				return
			}
			st := b.runState(tt.given.run)
			switch {
			case tt.wantState == "" && st != nil:
				t.Errorf("run state changed: %s at attempt %d", st.Status, st.Attempts)
			case tt.wantState != "" && (st == nil || st.Status != tt.wantState || st.Attempts != 1):
				t.Errorf("run state = %v, want %s at attempt 1", st, tt.wantState)
			}
		})
	}
}

func withHeader(h nats.Header, k, v string) nats.Header {
	if h == nil {
		h = nats.Header{}
	}
	h.Set(k, v)
	return h
}

func getJSON(t *testing.T, g *runningGateway, path string, wantStatus int, into any) {
	t.Helper()
	resp, err := http.Get("http://" + g.HTTPAddr() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != wantStatus {
		t.Fatalf("GET %s = %d, want %d: %s", path, resp.StatusCode, wantStatus, body)
	}
	if into != nil {
		if err := json.Unmarshal(body, into); err != nil {
			t.Fatalf("GET %s: %v: %s", path, err, body)
		}
	}
}
