package handlers

import (
	"context"
	"fmt"
)

// Two ways an output ends without a decision of the gate's, each a dead
// letter that keeps the raw output where an operator sees it, instead of a
// redelivery forever.

// Panicked dead-letters env as internal_error: deciding it panicked with
// cause, and deciding again would panic again. The run's state is left as
// it was. The error is only the emission's.
func (h *Processor) Panicked(ctx context.Context, env Envelope, cause string) (Decision, error) {
	d := h.cfg.Gate.Internal(env, cause)
	return d, h.emitFinal(ctx, d)
}

// LastDelivery dead-letters env as processing_limit (limit "max_deliver")
// when its processing still failed, with cause, at delivery delivered, the
// last one the bus makes (MaxDeliver); it leaves the run's state alone
// (the store may be what fails). The error is only the emission's.
func (h *Processor) LastDelivery(ctx context.Context, env Envelope, delivered int, cause error) (Decision, error) {
	msg := fmt.Sprintf("still failing at delivery %d of %d: %s", delivered, h.cfg.MaxDeliver, truncate(cause.Error(), 512))
	d := h.cfg.Gate.ProcessingLimit(env, nil, LimitMaxDeliver, msg, delivered)
	return d, h.emitFinal(ctx, d)
}

// emitFinal emits a dead letter decided outside the run's state, and tells
// the Observer.
func (h *Processor) emitFinal(ctx context.Context, d Decision) error {
	if err := h.publish(ctx, d); err != nil {
		return err
	}
	if h.cfg.Observer != nil {
		h.cfg.Observer.Observe(d, 0)
	}
	return nil
}

// truncate cuts s to n bytes, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
