package handlers

import (
	"context"
	"time"
)

// Submit is Process with an early verdict: it decides one attempt whose
// end is already known, or that reached agentgate by another door than the
// raw stream (the gated twin of an agent on the Synadia Agent Protocol,
// contract section 10), exactly as Process decides a raw output: it
// records the run's new state with compare-and-set, emits the outcome and
// tells the Observer. early, when
// not nil, stands in for the pipeline's verdict: violations found on a
// streamed prefix (Stage "stream"), or an attempt that never completed
// (Incomplete, with FailType). It returns the decision; a Decision with
// no Outcome means the (run, attempt) already had one. The error is
// only for what a retry can fix (the store or the bus is unreachable).
func (h *Processor) Submit(ctx context.Context, env Envelope, early *Verdict) (Decision, error) {
	start := time.Now()
	d, err := h.decideWith(ctx, env, early)
	if err != nil {
		return d, err
	}
	if d.Outcome == "" {
		h.cfg.Logger.DebugContext(ctx, "attempt already has an outcome", "run_id", d.RunID, "attempt", d.Attempt)
		return d, nil
	}
	if err := h.publish(ctx, d); err != nil {
		return d, err
	}
	if h.cfg.Observer != nil && !d.Republish {
		h.cfg.Observer.Observe(d, time.Since(start))
	}
	h.cfg.Logger.DebugContext(ctx, "outcome", "run_id", d.RunID, "agent_id", d.AgentID, "attempt", d.Attempt,
		"outcome", d.Outcome, "error_type", d.ErrorType, "republished", d.Republish)
	return d, nil
}
