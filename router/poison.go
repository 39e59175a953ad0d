package router

import (
	"context"
	"errors"
	"strconv"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"

	"github.com/agentgate/agentgate/internal/workers"
)

// poison returns a middleware that ends a poison message as a dead letter
// instead of letting it be redelivered forever: a panic (recovered by
// Watermill's Recoverer, which must sit inside this middleware) is
// dead-lettered at once as internal_error, since deciding again would panic
// again. Any other error is the bus or the store failing (every domain
// failure is an outcome, and an outcome too large for the bus is a
// payload_too_large dead letter): it is returned, so the message is
// redelivered after a delay until the bus recovers, up to its MaxDeliver-th
// delivery, where it is a processing_limit dead letter (limit
// "max_deliver", with the delivery count) that leaves the run's state
// alone. If emitting a dead letter fails too, the error is returned and
// the message is redelivered (after the last delivery, JetStream keeps it
// in the raw stream and delivers it no more).
func (s *stage) poison() message.HandlerMiddleware {
	return func(next message.HandlerFunc) message.HandlerFunc {
		return func(msg *message.Message) ([]*message.Message, error) {
			out, err := next(msg)
			var panicked middleware.RecoveredPanicError
			if err == nil {
				return out, nil
			}
			if !errors.As(err, &panicked) {
				return out, s.lastDelivery(msg, err)
			}
			cause := "processing panicked: " + truncate(errorText(panicked.V), 512)
			d, perr := s.proc.Panicked(context.WithoutCancel(msg.Context()), Envelope(msg), cause)
			if perr != nil {
				return nil, errors.Join(err, perr)
			}
			attrs := []any{"run_id", d.RunID, "agent_id", d.AgentID, "cause", cause}
			if pe, ok := panicked.V.(*workers.PanicError); ok {
				attrs = append(attrs, "stack", string(pe.Stack))
			}
			s.logger.ErrorContext(msg.Context(), "raw output dead-lettered as internal_error", attrs...)
			return nil, nil
		}
	}
}

func errorText(v any) string {
	if pe, ok := v.(*workers.PanicError); ok {
		v = pe.Value // raised again by the pool
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
// emitted either).
func (s *stage) lastDelivery(msg *message.Message, err error) error {
	delivered, _ := strconv.Atoi(msg.Metadata.Get(MetaDelivered))
	if delivered < s.proc.MaxDeliver() {
		return err
	}
	d, perr := s.proc.LastDelivery(context.WithoutCancel(msg.Context()), Envelope(msg), delivered, err)
	if perr != nil {
		return errors.Join(err, perr)
	}
	s.logger.ErrorContext(msg.Context(), "raw output dead-lettered as processing_limit",
		"run_id", d.RunID, "agent_id", d.AgentID, "deliveries", delivered, "cause", err)
	return nil
}
