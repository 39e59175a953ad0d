package handlers

import (
	"context"
	"errors"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
)

// Poison returns a middleware that ends a poison message as a dead letter
// instead of letting it be redelivered forever: a panic (recovered by
// Watermill's Recoverer, which must sit inside this middleware) is
// dead-lettered at once as internal_error, since deciding again would panic
// again. Any other error is the bus or the store failing (every domain
// failure is an outcome, and an outcome too large for the bus is a
// payload_too_large dead letter): it is returned, so the message is
// redelivered after a delay until the bus recovers; dead-lettering it
// instead could replace an outcome already recorded for it. If publishing
// the dead letter fails too, the error is returned and the message is
// redelivered.
func (h *Handler) Poison() message.HandlerMiddleware {
	return func(next message.HandlerFunc) message.HandlerFunc {
		return func(msg *message.Message) ([]*message.Message, error) {
			out, err := next(msg)
			var panicked middleware.RecoveredPanicError
			if err == nil || !errors.As(err, &panicked) {
				return out, err
			}
			cause := "processing panicked: " + truncate(errorText(panicked.V), 512)
			d := h.cfg.Gate.Internal(EnvelopeFromMessage(msg), cause)
			if perr := h.publish(context.WithoutCancel(msg.Context()), d); perr != nil {
				return nil, errors.Join(err, perr)
			}
			attrs := []any{"run_id", d.RunID, "agent_id", d.AgentID, "cause", cause}
			if pe, ok := panicked.V.(*PanicError); ok {
				attrs = append(attrs, "stack", string(pe.Stack))
			}
			h.cfg.Logger.ErrorContext(msg.Context(), "raw output dead-lettered as internal_error", attrs...)
			if h.cfg.Observer != nil {
				h.cfg.Observer.Observe(d, 0)
			}
			return nil, nil
		}
	}
}

func errorText(v any) string {
	if pe, ok := v.(*PanicError); ok {
		v = pe.Value // raised again by the runner
	}
	if e, ok := v.(error); ok {
		return e.Error()
	}
	if s, ok := v.(string); ok {
		return s
	}
	return "non-error panic value"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
