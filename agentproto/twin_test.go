package agentproto_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/internal/agenttest"
	"github.com/agentgate/agentgate/subjects"
)

const (
	validDoc   = `{"summary":"Adds a flag","approval":"approve","comments":[]}`
	driftedDoc = "Here is my review:\n```json\n{\"review_summary\":\"Adds a flag\",\"decision\":\"Approve\",\"review_comments\":[]}\n```"
	// missingDoc lacks comments: only the full check sees it.
	missingDoc = `{"summary":"Adds a flag","approval":"approve"}`
)

func scripted(name string, turns ...agenttest.Turn) agenttest.Config {
	return agenttest.Config{Agent: "scripted", Owner: "test", Name: name, Session: name + "-session", Turns: turns}
}

// TestTwin_paths prompts one twin per scripted upstream agent, as a
// protocol caller, and checks what the caller receives, the outcomes on
// the contract's subjects and the run's state.
func TestTwin_paths(t *testing.T) {
	type want struct {
		code        string // "" for a response
		errorField  string // the error body's "error"
		status      contract.RunStatus
		outcomes    []contract.Outcome
		prompts     int
		approval    string
		normalized  bool
		answers     []string
		streamStage bool // the retry request's error has stage "stream"
	}
	tests := []struct {
		name  string
		turns []agenttest.Turn
		want  want
	}{
		{"valid", []agenttest.Turn{{{Ack: true}, {Response: validDoc[:20]}, {Response: validDoc[20:], Object: true}}},
			want{status: contract.RunCompleted, outcomes: []contract.Outcome{contract.OutcomeValid}, prompts: 1, approval: "approve"}},
		{"drifted", []agenttest.Turn{{{Response: driftedDoc}}},
			want{status: contract.RunCompleted, outcomes: []contract.Outcome{contract.OutcomeValid}, prompts: 1, approval: "approve", normalized: true}},
		{"invalid-then-valid", []agenttest.Turn{{{Response: missingDoc}}, {{Response: validDoc}}},
			want{status: contract.RunCompleted, outcomes: []contract.Outcome{contract.OutcomeRetry, contract.OutcomeValid}, prompts: 2, approval: "approve"}},
		{"invalid-twice", []agenttest.Turn{{{Response: missingDoc}}},
			want{code: "500", errorField: contract.ValidationErrorCode, status: contract.RunFailed,
				outcomes: []contract.Outcome{contract.OutcomeRetry, contract.OutcomeDLQ}, prompts: 2}},
		{"refusal", []agenttest.Turn{{{Response: `{"refusal":"I can't review this."}`}}},
			want{code: "403", errorField: "refused", status: contract.RunRefused, outcomes: []contract.Outcome{contract.OutcomeRefused}, prompts: 1}},
		{"upstream-error", []agenttest.Turn{{{Ack: true}, {ErrorCode: "429", ErrorText: "rate limited", ErrorBody: `{"error":"rate_limited"}`}}},
			want{code: "429", errorField: string(contract.ErrUpstreamError), status: contract.RunFailed, outcomes: []contract.Outcome{contract.OutcomeDLQ}, prompts: 1}},
		{"never-terminates", []agenttest.Turn{{{Response: `{"summary":"Adds`}, {Hang: true}}},
			want{code: "500", errorField: string(contract.ErrStreamIncomplete), status: contract.RunFailed, outcomes: []contract.Outcome{contract.OutcomeDLQ}, prompts: 1}},
		{"early-stop", []agenttest.Turn{{{Response: `{"summary":"x","approval":"maybe",`}, {Hang: true}}, {{Response: validDoc}}},
			want{status: contract.RunCompleted, outcomes: []contract.Outcome{contract.OutcomeRetry, contract.OutcomeValid}, prompts: 2, approval: "approve", streamStage: true}},
		{"query", []agenttest.Turn{{{Query: "Approve it?"}, {Response: `{"summary":"s","approval":"{{answer}}","comments":[]}`}}},
			want{status: contract.RunCompleted, outcomes: []contract.Outcome{contract.OutcomeValid}, prompts: 1, approval: "comment", answers: []string{"comment"}}},
		{"unknown-chunk", []agenttest.Turn{{{Raw: `{"type":"thinking","data":"hm"}`}, {Response: validDoc}}},
			want{status: contract.RunCompleted, outcomes: []contract.Outcome{contract.OutcomeValid}, prompts: 1, approval: "approve"}},
	}
	var ups []upstream
	for _, tt := range tests {
		ups = append(ups, upstream{blueprint: "gated-" + tt.name, agent: scripted(tt.name, tt.turns...)})
	}
	e := withTwins(t, ups)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bp := "gated-" + tt.name
			subject, _ := e.twinSubject(bp)
			if subject != "agents.gate.test."+tt.name {
				t.Errorf("twin subject = %q", subject)
			}
			start := time.Now()
			answer := ""
			if len(tt.want.answers) > 0 {
				answer = tt.want.answers[0]
			}
			r := e.call(subject, []byte("Review this diff: +flag"), nil, answer)
			took := time.Since(start)
			if !r.terminated || r.runID == "" {
				t.Fatalf("reply %+v: want a terminator and a Run-Id", r)
			}
			if tt.want.code == "" {
				data, doc := r.result(t)
				if doc["approval"] != tt.want.approval {
					t.Errorf("result %v, want approval %q", doc, tt.want.approval)
				}
				if data["run_id"] != r.runID || data["normalized"] != tt.want.normalized {
					t.Errorf("response data %v: run_id %q, normalized %v", data, r.runID, tt.want.normalized)
				}
				if r.code != "" {
					t.Errorf("unexpected error %s %s", r.code, r.description)
				}
			} else {
				if r.code != tt.want.code || r.body["error"] != tt.want.errorField || r.description == "" {
					t.Fatalf("error %q %q %v, want code %s error %q", r.code, r.description, r.body, tt.want.code, tt.want.errorField)
				}
				if r.body["run_id"] != r.runID {
					t.Errorf("error body run_id %v, want %q", r.body["run_id"], r.runID)
				}
				for _, c := range r.chunks {
					if c["type"] == "response" {
						t.Errorf("a response chunk came with the error: %v", c)
					}
				}
			}
			if tt.want.errorField == contract.ValidationErrorCode {
				vs, _ := r.body["violations"].([]any)
				if len(vs) == 0 || r.body["retryable"] != false || r.body["schema_id"] == nil {
					t.Errorf("validation error body %v: want the canonical validation error", r.body)
				}
			}
			if tt.want.streamStage && took > 1500*time.Millisecond {
				t.Errorf("early stop took %s: the twin waited for the stream", took)
			}

			// Same records as the bus path: run state and outcome subjects.
			st := e.run(r.runID)
			if st == nil || st["status"] != string(tt.want.status) || st["agent_id"] != bp {
				t.Errorf("run state %v, want status %s of %s", st, tt.want.status, bp)
			}
			var got []contract.Outcome
			waitFor(t, 5*time.Second, "outcomes", func() bool { return len(e.outcomesOf(r.runID)) >= len(tt.want.outcomes) })
			for _, m := range e.outcomesOf(r.runID) {
				o := contract.Outcome(m.Header.Get(contract.HeaderOutcome))
				got = append(got, o)
				if m.Subject != subjects.Outcome(o, bp) {
					t.Errorf("outcome %s on %s", o, m.Subject)
				}
				if o == contract.OutcomeRetry && tt.want.streamStage {
					var ev contract.RetryEvent
					_ = json.Unmarshal(m.Data, &ev)
					if ev.Error.Stage != "stream" {
						t.Errorf("retry request's stage = %q, want stream", ev.Error.Stage)
					}
				}
			}
			if strings.Join(outcomeStrings(got), ",") != strings.Join(outcomeStrings(tt.want.outcomes), ",") {
				t.Errorf("outcomes %v, want %v", got, tt.want.outcomes)
			}

			// What the upstream agent was asked.
			a := e.agents[bp][0]
			prompts := a.Prompts()
			if len(prompts) != tt.want.prompts {
				t.Fatalf("upstream got %d prompts, want %d", len(prompts), tt.want.prompts)
			}
			if !strings.HasPrefix(prompts[0], "Review this diff: +flag") || !strings.Contains(prompts[0], "## Required Output Format") ||
				!strings.Contains(prompts[0], `"summary": {`) {
				t.Errorf("first prompt lacks the caller's text or the output-format section:\n%s", prompts[0])
			}
			// The schema as the model sees it (contract 10.3): no $id, no
			// aliases the gateway renames.
			for _, gone := range []string{`"$id"`, "x-aliases", `"overview"`} {
				if strings.Contains(prompts[0], gone) {
					t.Errorf("first prompt shows %s:\n%s", gone, prompts[0])
				}
			}
			// The protocol keeps no session: a retry is the caller's request
			// again (its text and the output-format section), then the retry
			// prompt.
			if len(prompts) > 1 && !strings.HasPrefix(prompts[1], prompts[0]+"\n\n<output-validation-error>") {
				t.Errorf("second prompt is not the request and the retry prompt:\n%s", prompts[1])
			}
			if got := a.Answers(); strings.Join(got, ",") != strings.Join(tt.want.answers, ",") {
				t.Errorf("upstream got answers %v, want %v", got, tt.want.answers)
			}
		})
	}
}

func outcomeStrings(os []contract.Outcome) []string {
	out := make([]string, len(os))
	for i, o := range os {
		out[i] = string(o)
	}
	return out
}
