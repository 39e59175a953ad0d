package executor_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/executor"
)

func TestAwait(t *testing.T) {
	t.Parallel()
	ag := withGateway(t)
	c := ag.client
	type submit struct {
		attempt int
		output  string
		opts    []executor.SubmitOption
	}
	tests := []struct {
		name string
		// before is submitted, each waited for, before the Watch.
		before []submit
		// given is submitted after the Watch.
		given   *submit
		attempt int // the attempt awaited
		timeout time.Duration
		want    contract.Outcome
		wantErr func(t *testing.T, err error)
	}{
		{
			name:    "valid",
			given:   &submit{1, validReview, nil},
			attempt: 1, want: contract.OutcomeValid,
		},
		{
			name:    "retry request",
			given:   &submit{1, driftedReview, nil},
			attempt: 1, want: contract.OutcomeRetry,
		},
		{
			name:    "refusal header",
			given:   &submit{1, "I won't.", []executor.SubmitOption{executor.AsRefusal()}},
			attempt: 1, want: contract.OutcomeRefused,
		},
		{
			name:    "attempt 0 is the run's next",
			before:  []submit{{1, driftedReview, nil}},
			given:   &submit{0, validReview, nil},
			attempt: 0, want: contract.OutcomeValid,
		},
		{
			name:    "published before Await: read from the run state",
			before:  []submit{{1, validReview, nil}},
			attempt: 1, want: contract.OutcomeValid,
		},
		{
			// The gateway publishes nothing new for an answered attempt:
			// the recorded outcome stays the answer.
			name:    "answered attempt submitted again",
			before:  []submit{{1, validReview, nil}},
			given:   &submit{1, driftedReview, nil},
			attempt: 1, want: contract.OutcomeValid,
		},
		{
			// Dead letters that leave the run state come only on the subject.
			name:    "invalid encoding",
			given:   &submit{1, "{\"summary\": \"\xff\"}", nil},
			attempt: 1, want: contract.OutcomeDLQ,
			wantErr: wantDeadLetter(contract.ErrInvalidEncoding),
		},
		{
			name:    "run already completed",
			before:  []submit{{1, validReview, nil}},
			given:   &submit{2, validReview, nil},
			attempt: 2, want: contract.OutcomeDLQ,
			wantErr: wantDeadLetter(contract.ErrRunAlreadyCompleted),
		},
		{
			name:    "attempts exhausted",
			before:  []submit{{1, driftedReview, nil}},
			given:   &submit{3, validReview, nil},
			attempt: 3, want: contract.OutcomeDLQ,
			wantErr: wantDeadLetter(contract.ErrAttemptsExhausted),
		},
		{
			name:    "superseded attempt",
			before:  []submit{{1, driftedReview, nil}, {2, validReview, nil}},
			attempt: 1,
			wantErr: func(t *testing.T, err error) {
				if !errors.Is(err, executor.ErrSuperseded) {
					t.Errorf("err = %v, want ErrSuperseded", err)
				}
			},
		},
		{
			name:    "nothing submitted: times out with ctx",
			attempt: 1, timeout: 300 * time.Millisecond,
			wantErr: func(t *testing.T, err error) {
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("err = %v, want context.DeadlineExceeded", err)
				}
			},
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := testCtx(t)
			run := "run-await-" + string(rune('a'+i))
			for _, s := range tt.before {
				if _, err := c.Submit(ctx, "pr-reviewer", run, s.attempt, s.output, s.opts...); err != nil {
					t.Fatal(err)
				}
				if _, err := c.Await(ctx, "pr-reviewer", run, s.attempt); err != nil {
					t.Fatal(err)
				}
			}
			wctx := ctx
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				wctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			w, err := c.Watch(wctx, "pr-reviewer", run, tt.attempt)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if tt.given != nil {
				if _, err := c.Submit(ctx, "pr-reviewer", run, tt.given.attempt, tt.given.output, tt.given.opts...); err != nil {
					t.Fatal(err)
				}
			}
			start := time.Now()
			o, err := w.Wait(wctx)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("Wait = %+v, want an error", o)
				}
				tt.wantErr(t, err)
				if tt.timeout > 0 && time.Since(start) > tt.timeout+2*time.Second {
					t.Errorf("Wait took %s with a %s timeout", time.Since(start), tt.timeout)
				}
				return
			}
			if err != nil {
				t.Fatalf("Wait: %v", err)
			}
			if o.Kind != tt.want || o.RunID != run || o.Attempt != w.Attempt() || (tt.attempt > 0 && o.Attempt != tt.attempt) {
				t.Fatalf("outcome = %s %s attempt %d (awaited %d), want %s", o.Kind, o.RunID, o.Attempt, w.Attempt(), tt.want)
			}
			if tt.wantErr != nil {
				tt.wantErr(t, o.Err())
			} else if o.Kind != contract.OutcomeRefused && o.Err() != nil {
				t.Errorf("Err() = %v", o.Err())
			}
			again, err := w.Wait(wctx)
			if again != o || err != nil {
				t.Errorf("second Wait = %v, %v; want the same outcome", again, err)
			}
		})
	}
}

func wantDeadLetter(typ contract.ErrorType) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var dl *executor.DeadLettered
		if !errors.As(err, &dl) || dl.Type != typ || !errors.Is(err, executor.ErrDeadLettered) {
			t.Errorf("err = %v, want *DeadLettered of type %s", err, typ)
		}
	}
}

func TestAwait_invalidArgument(t *testing.T) {
	t.Parallel()
	ag := withGateway(t)
	ctx := testCtx(t)
	for _, tc := range []struct {
		agent, run string
		attempt    int
	}{
		{"a.b", "r", 1}, {"", "r", 1}, {"a", "", 1}, {"a", "r\n2", 1}, {"a", "r", -1},
	} {
		if _, err := ag.client.Await(ctx, tc.agent, tc.run, tc.attempt); !errors.Is(err, executor.ErrInvalidArgument) {
			t.Errorf("Await(%q, %q, %d) = %v, want ErrInvalidArgument", tc.agent, tc.run, tc.attempt, err)
		}
	}
}

// The client finds a run's state under the key the gateway writes it to.
