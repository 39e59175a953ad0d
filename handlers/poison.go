package handlers

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"

	"github.com/agentgate/agentgate/subjects"
)

// Poison returns a middleware that ends a poison message as a dead letter
// instead of letting it be redelivered forever: a panic (recovered by
// Watermill's Recoverer, which must sit inside this middleware) is
// dead-lettered at once as internal_error, since deciding again would panic
// again. Any other error is the bus or the store failing (every domain
// failure is an outcome, and an outcome too large for the bus is a
// payload_too_large dead letter): it is returned, so the message is
// redelivered after a delay until the bus recovers, up to its MaxDeliver-th
// delivery, where it is a processing_limit dead letter (limit
// "max_deliver", with the delivery count) that leaves the run's state
// alone. If publishing a dead letter fails too, the error is returned and
// the message is redelivered (after the last delivery, JetStream keeps it
// in the raw stream and delivers it no more).
func (h *Handler) Poison() message.HandlerMiddleware {
	return func(next message.HandlerFunc) message.HandlerFunc {
		return func(msg *message.Message) ([]*message.Message, error) {
			out, err := next(msg)
			var panicked middleware.RecoveredPanicError
			if err == nil {
				return out, nil
			}
			if !errors.As(err, &panicked) {
				return out, h.lastDelivery(msg, err)
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

// lastDelivery dead-letters msg as processing_limit when err ends its last
// delivery, and returns err otherwise (or when the dead letter cannot be
// published either).
func (h *Handler) lastDelivery(msg *message.Message, err error) error {
	delivered, _ := strconv.Atoi(msg.Metadata.Get(MetaDelivered))
	if delivered < h.cfg.MaxDeliver {
		return err
	}
	env := EnvelopeFromMessage(msg)
	if strings.HasPrefix(env.Subject, subjects.PartialPrefix) && env.Seq != 0 {
		env.Seq += partialSeqBase
	}
	cause := fmt.Sprintf("still failing at delivery %d of %d: %s", delivered, h.cfg.MaxDeliver, truncate(err.Error(), 512))
	d := h.cfg.Gate.ProcessingLimit(env, nil, LimitMaxDeliver, cause, delivered)
	if perr := h.publish(context.WithoutCancel(msg.Context()), d); perr != nil {
		return errors.Join(err, perr)
	}
	h.cfg.Logger.ErrorContext(msg.Context(), "raw output dead-lettered as processing_limit",
		"run_id", d.RunID, "agent_id", d.AgentID, "deliveries", delivered, "cause", err)
	if h.cfg.Observer != nil {
		h.cfg.Observer.Observe(d, 0)
	}
	return nil
}
