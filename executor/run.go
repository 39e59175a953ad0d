package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/contract"
)

// Result is the valid result a run ended with (contract section 3.1).
type Result struct {
	RunID   string
	AgentID string
	// Attempt is the attempt whose output was valid: 1 when the model got it
	// right the first time.
	Attempt int
	// SchemaID is the $id of the schema the result validates against; ""
	// for an agent with free-text output.
	SchemaID string
	// Data is result_data: the normalized document, guaranteed to validate
	// against the schema. Nil for free-text output.
	Data json.RawMessage
	// Text is result_text: the raw output of an agent without an output
	// schema. Empty when Data is set.
	Text string
	// Normalizations lists every change the gateway made to reach Data.
	Normalizations []contract.Normalization
	// Event is the result as published.
	Event *contract.ResultEvent
	// Messages is the conversation as it ended, the valid answer last. Nil
	// when Run found the run already finished and called no model.
	Messages []Message
}

// Decode unmarshals Data into v.
func (r *Result) Decode(v any) error {
	if len(r.Data) == 0 {
		return fmt.Errorf("executor: run %q has no result_data (free-text result)", r.RunID)
	}
	return json.Unmarshal(r.Data, v)
}

// Run drives one run of agent to its end: it fetches the agent's blueprint
// (for the attempts it allows) and its enriched system prompt, starts the
// conversation with that prompt and the WithInput message, and then, for
// each attempt, calls the model, submits its answer and waits for the
// outcome. On a retry request it appends the model's answer and the
// retry_prompt (as a user message) to the same conversation and calls the
// model again for the next attempt. For an agent with partial re-asks the
// retry_prompt asks for just the failing members; the model's answer is
// submitted as it is, and the gateway merges it into the previous
// document, so the Result holds the whole merged document (its
// Normalizations start with the op merge).
//
// It returns the Result when an output is valid, and otherwise:
// *Refused when the model refused (it returned a *ModelRefusal, or the
// gateway recognised a refusal); *ValidationFailed when the output was still
// invalid after the last retry; *DeadLettered for any other dead letter;
// ErrUnknownAgent when the gateway has no such agent; ErrInvalidArgument
// before anything is done for a bad argument; the model's error, wrapped;
// and an error wrapping ctx's when ctx ends first. Every model call is
// bounded by Config.ModelTimeout and every wait by Config.AwaitTimeout, and
// the loop by the agent's attempts (ErrAttemptsExceeded past them).
//
// Run is safe to call again for the same run: a run that already ended
// returns its recorded outcome without calling the model, and a run left
// waiting for an answer to a retry request resumes at that attempt, with the
// recorded raw output (cut at 4 KiB) and retry prompt as the conversation's
// last turns.
func (c *Client) Run(ctx context.Context, agent, runID string, model Model, opts ...RunOption) (*Result, error) {
	var o runOptions
	for _, opt := range opts {
		opt.applyRun(&o)
	}
	if model == nil {
		return nil, fmt.Errorf("%w: nil model", ErrInvalidArgument)
	}
	if err := checkSubmit(agent, runID, 0, o.submit); err != nil {
		return nil, err
	}
	maxAttempts, err := c.maxAttempts(ctx, agent)
	if err != nil {
		return nil, err
	}
	prompt, err := c.SystemPrompt(ctx, agent)
	if err != nil {
		return nil, err
	}
	msgs := []Message{{Role: RoleSystem, Content: prompt}}
	if o.hasInput {
		msgs = append(msgs, Message{Role: RoleUser, Content: o.input})
	}

	attempt := 1
	st, err := c.runState(ctx, runID)
	if err != nil {
		return nil, err
	}
	if st != nil && len(st.Outcome) > 0 {
		out, err := decodeOutcome(st.Outcome)
		if err != nil {
			return nil, fmt.Errorf("executor: run %q: recorded %w", runID, err)
		}
		switch {
		case st.Status.Finished():
			c.logger.InfoContext(ctx, "run already ended", "run_id", runID, "status", st.Status, "attempt", st.Attempts)
			o.hook(out)
			return finish(out, nil)
		case out.Retry != nil:
			c.logger.InfoContext(ctx, "resuming run", "run_id", runID, "attempt", out.Retry.NextAttempt)
			msgs = append(msgs,
				Message{Role: RoleAssistant, Content: out.Retry.Error.RawOutput},
				Message{Role: RoleUser, Content: out.Retry.RetryPrompt})
			attempt = max(out.Retry.NextAttempt, st.Attempts+1)
		}
	}

	for {
		if attempt > maxAttempts {
			return nil, fmt.Errorf("%w: run %q attempt %d, agent %q allows %d", ErrAttemptsExceeded, runID, attempt, agent, maxAttempts)
		}
		answer, refused, err := c.complete(ctx, model, msgs, runID, attempt)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, Message{Role: RoleAssistant, Content: answer})
		out, err := c.attempt(ctx, agent, runID, attempt, answer, refused, o.submit)
		if err != nil {
			return nil, err
		}
		o.hook(out)
		if out.Kind != contract.OutcomeRetry {
			return finish(out, msgs)
		}
		msgs = append(msgs, Message{Role: RoleUser, Content: out.Retry.RetryPrompt})
		attempt = max(out.Retry.NextAttempt, attempt+1)
	}
}

// complete calls the model on a copy of the conversation. refused is true
// when the model returned a *ModelRefusal; answer is then its text.
func (c *Client) complete(ctx context.Context, model Model, msgs []Message, runID string, attempt int) (answer string, refused bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.ModelTimeout)
	defer cancel()
	answer, err = model.Complete(ctx, slices.Clone(msgs))
	var refusal *ModelRefusal
	if errors.As(err, &refusal) {
		return refusal.Text, true, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("executor: model, run %q attempt %d: %w", runID, attempt, err)
	}
	return answer, false, nil
}

// attempt submits one answer and waits for its outcome, listening before
// publishing so that no outcome can slip by.
func (c *Client) attempt(ctx context.Context, agent, runID string, attempt int, answer string, refused bool, so submitOptions) (*Outcome, error) {
	w, err := c.Watch(ctx, agent, runID, attempt)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	so.refusal = refused
	if _, err := c.submit(ctx, agent, runID, attempt, answer, so); err != nil {
		return nil, err
	}
	return w.Wait(ctx)
}

// runState reads the run's state from the bucket; nil for a run never seen.
func (c *Client) runState(ctx context.Context, runID string) (*contract.RunState, error) {
	kv, err := c.runsBucket(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	e, err := kv.Get(ctx, contract.RunKey(runID))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("executor: reading the state of run %q: %w", runID, err)
	}
	var st contract.RunState
	if err := json.Unmarshal(e.Value(), &st); err != nil {
		return nil, fmt.Errorf("executor: decoding the state of run %q: %w", runID, err)
	}
	return &st, nil
}

// finish turns the outcome that ended a run into Run's answer.
func finish(out *Outcome, msgs []Message) (*Result, error) {
	if out.Result == nil {
		if err := out.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("executor: run %q ended on a %s outcome", out.RunID, out.Kind)
	}
	ev := out.Result
	var data struct {
		ResultData json.RawMessage `json:"result_data"`
	}
	if err := json.Unmarshal(out.Raw, &data); err != nil {
		return nil, fmt.Errorf("executor: run %q: decoding result_data: %w", out.RunID, err)
	}
	r := &Result{
		RunID: ev.RunID, AgentID: ev.AgentID, Attempt: ev.Attempt,
		Normalizations: ev.Normalizations, Event: ev, Messages: msgs,
	}
	if string(data.ResultData) != "null" {
		r.Data = data.ResultData
	}
	if ev.SchemaID != nil {
		r.SchemaID = *ev.SchemaID
	}
	if ev.ResultText != nil {
		r.Text = *ev.ResultText
	}
	return r, nil
}

func (o runOptions) hook(out *Outcome) {
	if o.onOutcome != nil {
		o.onOutcome(out)
	}
}
