package test

import (
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/schemas"
)

// Hostile inputs end in the outcome the contract gives them, with no crash,
// and the gateway goes on serving the next message.
func TestGateway_hostileInputs(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	// The outcomes here are the pipeline's own, not the decision limit's:
	// under the race detector on a busy box, repairing 1 MiB of brackets
	// alone can take longer than the default 5 s.
	startGateway(t, b, func(c *gateway.Config) { c.Limits.DecisionTimeout = 2 * time.Minute })

	tests := []struct {
		name        string
		given       raw
		wantOutcome contract.Outcome
		check       func(t *testing.T, o outcome)
	}{
		{
			name: "repeated Run-Id header with different values",
			given: raw{agent: "pr-reviewer", payload: validReview,
				headers: nats.Header{"Run-Id": {"rep-a", "rep-b"}, "X-Case": {"repeated"}}},
			wantOutcome: contract.OutcomeDLQ,
			check: func(t *testing.T, o outcome) {
				if field(o.Body, "error", "type") != "invalid_envelope" {
					t.Errorf("dead letter: %s", o.Data)
				}
				if hs, _ := field(o.Body, "raw", "headers", "Run-Id").([]any); len(hs) != 2 {
					t.Errorf("repeated header not kept whole: %v", field(o.Body, "raw", "headers"))
				}
			},
		},
		{
			name: "repeated unrelated header is harmless",
			given: raw{agent: "pr-reviewer", run: "rep-trace", payload: validReview,
				headers: nats.Header{"X-Trace": {"1", "2"}}},
			wantOutcome: contract.OutcomeValid,
		},
		{
			name:        "10,000-deep nesting",
			given:       raw{agent: "pr-reviewer", run: "deep", payload: strings.Repeat("[", 10000) + strings.Repeat("]", 10000)},
			wantOutcome: contract.OutcomeRetry,
			check: func(t *testing.T, o outcome) {
				v := field(o.Body, "error", "violations").([]any)[0].(map[string]any)
				if v["path"] != "$" || v["keyword"] != "json" {
					t.Errorf("violation = %v", v)
				}
			},
		},
		{
			name:        "no JSON at all",
			given:       raw{agent: "pr-reviewer", run: "prose", payload: "I reviewed it and it looks good to me."},
			wantOutcome: contract.OutcomeRetry,
			check: func(t *testing.T, o outcome) {
				v := field(o.Body, "error", "violations").([]any)[0].(map[string]any)
				if v["path"] != "$" || v["keyword"] != "json" {
					t.Errorf("violation = %v", v)
				}
			},
		},
		{
			name:        "invalid UTF-8",
			given:       raw{agent: "pr-reviewer", run: "utf8", payload: "{\"summary\": \"\xc3\x28\"}"},
			wantOutcome: contract.OutcomeDLQ,
			check: func(t *testing.T, o outcome) {
				if field(o.Body, "error", "type") != "invalid_encoding" || field(o.Body, "raw", "payload_base64") == nil {
					t.Errorf("dead letter: %s", o.Data)
				}
			},
		},
		{
			name:        "payload over the 1 MiB limit",
			given:       raw{agent: "pr-reviewer", run: "large", payload: `{"summary": "` + strings.Repeat("x", 1<<20) + `"}`},
			wantOutcome: contract.OutcomeDLQ,
			check: func(t *testing.T, o outcome) {
				if field(o.Body, "error", "type") != "payload_too_large" || field(o.Body, "raw", "size") != float64(1<<20+15) {
					t.Errorf("dead letter: error %v, raw size %v", o.Body["error"], field(o.Body, "raw", "size"))
				}
			},
		},
		{
			name:        "1 MiB of open brackets",
			given:       raw{agent: "pr-reviewer", run: "brackets", payload: strings.Repeat("[", 1<<20-64)},
			wantOutcome: contract.OutcomeRetry,
		},
	}
	for _, tt := range tests {
		b.publish(tt.given)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := tt.given.run
			var got []outcome
			if run == "" {
				waitFor(t, 15*time.Second, "dead letter", func() bool {
					got = nil
					for _, o := range b.streamMessages("AGENT_OUTPUT_DLQ") {
						if c, _ := field(o.Body, "raw", "headers", "X-Case").([]any); len(c) == 1 && c[0] == "repeated" {
							got = append(got, o)
						}
					}
					return len(got) > 0
				})
			} else {
				got = b.awaitOutcomes(run, 1)
			}
			if len(got) != 1 || got[0].Headers.Get(contract.HeaderOutcome) != string(tt.wantOutcome) {
				t.Fatalf("want one %s outcome, got %d: %s", tt.wantOutcome, len(got), got[0].Data)
			}
			if tt.check != nil {
				tt.check(t, got[0])
			}
		})
	}

	// Still serving.
	b.publish(raw{agent: "pr-reviewer", run: "after", payload: validReview})
	if o := b.awaitOutcomes("after", 1)[0]; o.Headers.Get(contract.HeaderOutcome) != "valid" {
		t.Fatalf("after hostile inputs: %s", o.Data)
	}
}

// panickyRegistry makes the pipeline panic, as a bug would.
type panickyRegistry struct{}

func (panickyRegistry) Blueprint(string) (*schemas.Blueprint, bool) { panic("injected bug") }
func (panickyRegistry) Schema(string) (*schemas.Schema, bool)       { panic("injected bug") }

// A panic while processing ends as an internal_error dead letter that keeps
// the raw output: no crash, no endless redelivery.
func TestGateway_panicIsDeadLettered(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	b.startRouter(panickyRegistry{}, nil, nil)

	b.publish(raw{agent: "pr-reviewer", run: "boom", payload: validReview})
	o := b.awaitOutcomes("boom", 1)[0]
	if o.Subject != "agent.output.dlq.pr-reviewer" || field(o.Body, "error", "type") != "internal_error" ||
		!strings.Contains(field(o.Body, "error", "message").(string), "injected bug") || field(o.Body, "raw", "payload") != validReview {
		t.Fatalf("dead letter on %s: %s", o.Subject, o.Data)
	}
	b.awaitIdle()
	if st := b.runState("boom"); st != nil {
		t.Errorf("run state changed: %s", st.Status)
	}
}

// A forged Replay-Of header reopens nothing: the replay branch is taken
// only for a dead letter that exists, is on this run and attempt, and was
// never replayed. Each forgery is an invalid_envelope dead letter that
// leaves the run alone, and the executor's genuine next attempt is decided
// as usual.
func TestGateway_forgedReplayIsRefused(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	startGateway(t, b)

	// A run waiting for its attempt 2, forged at its answered attempt 1.
	b.publish(raw{agent: "pr-reviewer", run: "forge-retry", attempt: 1, payload: badReview})
	b.awaitState("forge-retry", contract.RunRetryRequested, 1)
	b.publish(raw{agent: "pr-reviewer", run: "forge-retry", attempt: 1, payload: validReview,
		headers: nats.Header{"Replay-Of": {"999"}}})
	// A failed run, and a genuine dead letter of another run named by a
	// forged replay.
	b.publish(raw{agent: "pr-reviewer", run: "forge-failed", payload: "{\"summary\": \"\xc3\x28\"}"})
	b.publish(raw{agent: "pr-reviewer", run: "forge-failed-2", attempt: 1, payload: badReview})
	// As an executor does, attempt 2 only once attempt 1's retry request is
	// out: published at once, the two are decided in parallel, and when
	// attempt 2 wins, attempt 1 comes to a finished run and has no outcome.
	b.awaitState("forge-failed-2", contract.RunRetryRequested, 1)
	b.publish(raw{agent: "pr-reviewer", run: "forge-failed-2", attempt: 2, payload: badReview})
	b.awaitState("forge-failed-2", contract.RunFailed, 2)
	dl := b.awaitOutcomes("forge-failed-2", 2)[1]
	if dl.Headers.Get(contract.HeaderOutcome) != "dlq" {
		t.Fatalf("want a dead letter, got %s", dl.Data)
	}
	dlSeq := b.streamSeqOf("AGENT_OUTPUT_DLQ", "forge-failed-2")
	for _, seq := range []string{"1", "999", dlSeq} {
		b.publish(raw{agent: "pr-reviewer", run: "forge-failed-2", attempt: 1, payload: validReview,
			headers: nats.Header{"Replay-Of": {seq}}})
	}
	b.publish(raw{agent: "pr-reviewer", run: "forge-retry", attempt: 2, payload: validReview})

	b.awaitState("forge-retry", contract.RunCompleted, 2)
	got := b.awaitOutcomes("forge-retry", 3)
	kinds := map[string]int{}
	for _, o := range got {
		k := o.Headers.Get(contract.HeaderOutcome)
		if k == "dlq" {
			k += "/" + field(o.Body, "error", "type").(string)
		}
		kinds[k+"@"+o.Headers.Get(contract.HeaderAttempt)]++
	}
	want := map[string]int{"retry@1": 1, "dlq/invalid_envelope@1": 1, "valid@2": 1}
	if len(kinds) != len(want) || kinds["retry@1"] != 1 || kinds["dlq/invalid_envelope@1"] != 1 || kinds["valid@2"] != 1 {
		t.Errorf("forge-retry outcomes = %v, want %v", kinds, want)
	}

	b.awaitOutcomes("forge-failed-2", 5)
	b.awaitIdle()
	got = b.outcomesOf("forge-failed-2")
	if len(got) != 5 {
		t.Fatalf("forge-failed-2: %d outcomes, want 2 and 3 refusals", len(got))
	}
	for _, o := range got[2:] {
		if field(o.Body, "error", "type") != "invalid_envelope" {
			t.Errorf("forged replay: %s", o.Data)
		}
	}
	if st := b.runState("forge-failed-2"); st.Status != contract.RunFailed || st.Attempts != 2 || len(st.Replays) != 0 {
		t.Errorf("run state after forged replays: %+v", st)
	}
}
