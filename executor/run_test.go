package executor_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/executor"
)

var errModelDown = errors.New("model down")

func TestRun(t *testing.T) {
	t.Parallel()
	ag := withGateway(t)
	tests := []struct {
		name     string
		agent    string
		runID    string // default: the test's name
		model    executor.Model
		opts     []executor.RunOption
		wantCall int // model calls
		// want checks a result; wantErr an error.
		want    func(t *testing.T, r *executor.Result)
		wantErr func(t *testing.T, err error)
	}{
		{
			name: "valid first time", model: script(validReview), wantCall: 1,
			want: func(t *testing.T, r *executor.Result) {
				wantApproval(t, r, 1, "approve")
				if len(r.Normalizations) != 0 || r.Event.Normalized {
					t.Errorf("normalizations = %+v, want none", r.Normalizations)
				}
			},
		},
		{
			name: "retry then valid", model: script(driftedReview, validReview), wantCall: 2,
			want: func(t *testing.T, r *executor.Result) { wantApproval(t, r, 2, "approve") },
		},
		{
			name: "normalized", wantCall: 1,
			model: script("Here is my review:\n```json\n" +
				`{"overview": "Adds a retry loop.", "decision": "Approve", "review_comments": []}` + "\n```"),
			want: func(t *testing.T, r *executor.Result) {
				wantApproval(t, r, 1, "approve")
				ops := map[string]bool{}
				for _, n := range r.Normalizations {
					ops[n.Op] = true
				}
				for _, op := range []string{contract.OpExtract, contract.OpRename, contract.OpCoerce} {
					if !ops[op] {
						t.Errorf("no %s among the normalizations %+v", op, r.Normalizations)
					}
				}
			},
		},
		{
			name: "refused by the model", model: script(&executor.ModelRefusal{Text: "I can't review this."}), wantCall: 1,
			wantErr: func(t *testing.T, err error) {
				var r *executor.Refused
				if !errors.As(err, &r) || r.Text != "I can't review this." || !errors.Is(err, executor.ErrRefused) {
					t.Errorf("err = %v, want *Refused with the text", err)
				}
			},
		},
		{
			name: "refusal object", model: script(`{"refusal": "Not allowed."}`), wantCall: 1,
			wantErr: func(t *testing.T, err error) {
				var r *executor.Refused
				if !errors.As(err, &r) || r.Text != "Not allowed." || r.Event.Attempt != 1 {
					t.Errorf("err = %v, want *Refused at attempt 1", err)
				}
			},
		},
		{
			name: "retries exhausted", model: script(driftedReview, driftedReview), wantCall: 2,
			wantErr: func(t *testing.T, err error) {
				var vf *executor.ValidationFailed
				if !errors.As(err, &vf) {
					t.Fatalf("err = %v, want *ValidationFailed", err)
				}
				if !errors.Is(err, executor.ErrDeadLettered) || !errors.Is(err, executor.ErrValidationFailed) {
					t.Errorf("errors.Is fails on %v", err)
				}
				if len(vf.Violations) == 0 || vf.Violations[0].Path != "$.approval" || vf.Violations[0].Keyword != "enum" {
					t.Errorf("violations = %+v, want an enum violation at $.approval", vf.Violations)
				}
				if vf.DeadLetter.Error.Type != contract.ErrOutputSchemaValidationFailed || vf.DeadLetter.Attempt != 2 {
					t.Errorf("dead letter = %+v", vf.DeadLetter.Error)
				}
			},
		},
		{
			name: "model error", model: script(errModelDown), wantCall: 1,
			wantErr: func(t *testing.T, err error) {
				if !errors.Is(err, errModelDown) {
					t.Errorf("err = %v, want the model's error", err)
				}
			},
		},
		{
			name: "unknown agent", agent: "no-such-agent", model: script(), wantCall: 0,
			wantErr: func(t *testing.T, err error) {
				if !errors.Is(err, executor.ErrUnknownAgent) {
					t.Errorf("err = %v, want ErrUnknownAgent", err)
				}
			},
		},
		{
			name: "agent not a token", agent: "pr.reviewer", model: script(), wantCall: 0,
			wantErr: wantInvalidArgument,
		},
		{
			name: "blank run id", runID: " ", model: script(), wantCall: 0,
			wantErr: wantInvalidArgument,
		},
		{
			name: "run id over the limit", runID: strings.Repeat("r", 257), model: script(), wantCall: 0,
			wantErr: wantInvalidArgument,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			agent := tt.agent
			if agent == "" {
				agent = "pr-reviewer"
			}
			runID := tt.runID
			if runID == "" {
				runID = "run-" + strings.ReplaceAll(tt.name, " ", "-")
			}
			var outcomes []*executor.Outcome
			opts := append([]executor.RunOption{
				executor.WithInput("diff --git a/retry.go b/retry.go"),
				executor.WithOutcomeHook(func(o *executor.Outcome) { outcomes = append(outcomes, o) }),
			}, tt.opts...)
			r, err := ag.client.Run(testCtx(t), agent, runID, tt.model, opts...)
			if m, ok := tt.model.(*scripted); ok && len(m.conversations()) != tt.wantCall {
				t.Errorf("model called %d times, want %d", len(m.conversations()), tt.wantCall)
			}
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("Run = %+v, want an error", r)
				}
				tt.wantErr(t, err)
				return
			}
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			tt.want(t, r)
			if len(outcomes) != r.Attempt {
				t.Errorf("hook saw %d outcomes, want %d", len(outcomes), r.Attempt)
			}
		})
	}
}

// A retry request goes back to the model in the same conversation: the
// first answer and the retry prompt are its last two turns.
func TestRun_retryPromptInSameConversation(t *testing.T) {
	t.Parallel()
	ag := withGateway(t)
	model := script(driftedReview, validReview)
	r, err := ag.client.Run(testCtx(t), "pr-reviewer", "run-conversation", model, executor.WithInput("the diff"))
	if err != nil {
		t.Fatal(err)
	}
	calls := model.conversations()
	if len(calls) != 2 {
		t.Fatalf("model called %d times", len(calls))
	}
	first, second := calls[0], calls[1]
	if len(first) != 2 || first[0].Role != executor.RoleSystem || first[1] != (executor.Message{Role: executor.RoleUser, Content: "the diff"}) {
		t.Errorf("first conversation = %+v, want system prompt then input", first)
	}
	if !strings.Contains(first[0].Content, "## Required Output Format") || !strings.Contains(first[0].Content, `"title": "Pull request review"`) {
		t.Errorf("system prompt lacks the output schema: %q", first[0].Content)
	}
	if len(second) != 4 || !slices.Equal(second[:2], first) {
		t.Fatalf("second conversation does not continue the first: %+v", second)
	}
	if second[2] != (executor.Message{Role: executor.RoleAssistant, Content: driftedReview}) {
		t.Errorf("turn 3 = %+v, want the first answer", second[2])
	}
	if second[3].Role != executor.RoleUser || !strings.Contains(second[3].Content, "<output-validation-error>") ||
		!strings.Contains(second[3].Content, "$.approval") {
		t.Errorf("turn 4 = %+v, want the retry prompt", second[3])
	}
	if len(r.Messages) != 5 || r.Messages[4].Content != validReview {
		t.Errorf("Result.Messages = %+v, want the conversation ending with the valid answer", r.Messages)
	}
}

// Run again on a finished run returns its recorded outcome without calling
// the model.
func TestRun_finishedRunReturnsRecordedOutcome(t *testing.T) {
	t.Parallel()
	ag := withGateway(t)
	ctx := testCtx(t)
	if _, err := ag.client.Run(ctx, "pr-reviewer", "run-twice", script(driftedReview, validReview)); err != nil {
		t.Fatal(err)
	}
	again := script()
	r, err := ag.client.Run(ctx, "pr-reviewer", "run-twice", again)
	if err != nil {
		t.Fatal(err)
	}
	wantApproval(t, r, 2, "approve")
	if len(again.conversations()) != 0 || r.Messages != nil {
		t.Errorf("the model was called %d times for a finished run", len(again.conversations()))
	}

	if _, err := ag.client.Run(ctx, "pr-reviewer", "run-refused", script(`{"refusal": "no"}`)); !errors.Is(err, executor.ErrRefused) {
		t.Fatalf("err = %v", err)
	}
	if _, err := ag.client.Run(ctx, "pr-reviewer", "run-refused", script()); !errors.Is(err, executor.ErrRefused) {
		t.Errorf("again: err = %v, want the recorded refusal", err)
	}
}

// A run left waiting for the answer to a retry request resumes at the next
// attempt, with the recorded output and retry prompt as the last turns.
func TestRun_resumesAfterRetryRequest(t *testing.T) {
	t.Parallel()
	ag := withGateway(t)
	ctx := testCtx(t)
	w, err := ag.client.Watch(ctx, "pr-reviewer", "run-resume", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := ag.client.Submit(ctx, "pr-reviewer", "run-resume", 1, driftedReview); err != nil {
		t.Fatal(err)
	}
	if o, err := w.Wait(ctx); err != nil || o.Kind != contract.OutcomeRetry {
		t.Fatalf("attempt 1: %+v, %v; want a retry request", o, err)
	}
	model := script(validReview)
	r, err := ag.client.Run(ctx, "pr-reviewer", "run-resume", model)
	if err != nil {
		t.Fatal(err)
	}
	wantApproval(t, r, 2, "approve")
	conv := model.conversations()[0]
	if len(conv) != 3 || conv[1].Content != driftedReview || !strings.Contains(conv[2].Content, "$.approval") {
		t.Errorf("resumed conversation = %+v", conv)
	}
}

func wantApproval(t *testing.T, r *executor.Result, attempt int, approval string) {
	t.Helper()
	var review struct {
		Summary  string `json:"summary"`
		Approval string `json:"approval"`
		Comments []any  `json:"comments"`
	}
	if err := r.Decode(&review); err != nil {
		t.Fatalf("decoding %s: %v", r.Data, err)
	}
	if r.Attempt != attempt || review.Approval != approval || review.Comments == nil {
		t.Errorf("result at attempt %d = %s, want attempt %d with approval %q", r.Attempt, r.Data, attempt, approval)
	}
	if r.SchemaID != "https://agentgate.dev/schemas/pr-review/1.0.0" || r.Text != "" {
		t.Errorf("schema %q, text %q", r.SchemaID, r.Text)
	}
}

func wantInvalidArgument(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, executor.ErrInvalidArgument) {
		t.Errorf("err = %v, want ErrInvalidArgument", err)
	}
}
