package handlers

import (
	"errors"
	"strconv"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
)

// DefaultMaxDeliveries is how often a raw output may fail before it is
// dead-lettered as internal_error.
const DefaultMaxDeliveries = 5

// Poison returns a middleware that ends a poison message as a dead letter
// instead of letting it be redelivered forever: a panic (recovered by
// Watermill's Recoverer, which must sit inside this middleware) is
// dead-lettered at once, since deciding again would panic again; any other
// error is returned for redelivery until the message has been delivered
// maxDeliveries times (default DefaultMaxDeliveries), then dead-lettered.
// If publishing the dead letter fails too, the error is returned and the
// message is redelivered.
func (h *Handler) Poison(maxDeliveries int) message.HandlerMiddleware {
	if maxDeliveries <= 0 {
		maxDeliveries = DefaultMaxDeliveries
	}
	return func(next message.HandlerFunc) message.HandlerFunc {
		return func(msg *message.Message) ([]*message.Message, error) {
			out, err := next(msg)
			if err == nil {
				return out, nil
			}
			var panicked middleware.RecoveredPanicError
			delivered, _ := strconv.Atoi(msg.Metadata.Get(MetaDelivered))
			if !errors.As(err, &panicked) && delivered < maxDeliveries {
				return nil, err
			}
			cause := "processing failed after " + strconv.Itoa(delivered) + " deliveries: " + err.Error()
			if errors.As(err, &panicked) {
				cause = "processing panicked: " + truncate(errorText(panicked.V), 512)
			}
			d := h.cfg.Gate.Internal(EnvelopeFromMessage(msg), cause)
			if perr := h.publish(d); perr != nil {
				return nil, errors.Join(err, perr)
			}
			h.cfg.Logger.ErrorContext(msg.Context(), "raw output dead-lettered as internal_error",
				"run_id", d.RunID, "agent_id", d.AgentID, "cause", cause)
			if h.cfg.Observer != nil {
				h.cfg.Observer.Observe(d, 0)
			}
			return nil, nil
		}
	}
}

func errorText(v any) string {
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
