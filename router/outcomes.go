package router

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/topology"
)

// Outcomes is the handlers.Emitter on the bus: each outcome goes to its
// subject (OutcomeSubject) as a message whose metadata are the outcome's
// headers, through Publisher (a SeqPublisher reports where it was stored).
//
// A republished outcome (handlers.Decision.Republish) is stored at most
// once in all. Within the outcome stream's de-duplication window JetStream
// drops the second copy by its Nats-Msg-Id; beyond it, Outcomes first looks
// for the Nats-Msg-Id among the messages stored on the outcome's subject
// since the run's state recorded the outcome, and publishes only when it is
// not there. So the common path costs one publish and nothing more, and a
// redelivery after a long outage publishes nothing twice.
type Outcomes struct {
	Publisher message.Publisher
	// JS reads the outcome streams for that look-up. Without it a
	// republish beyond the window may be stored twice.
	JS jetstream.JetStream
	// MaxScan bounds the messages one look-up reads (default
	// DefaultMaxScan); past it the outcome is published again, at least
	// once rather than never, and a warning says so.
	MaxScan int
	Logger  *slog.Logger
}

// DefaultMaxScan is Outcomes.MaxScan's default.
const DefaultMaxScan = 100_000

// DefaultLookupTimeout bounds a look-up when the emission has no deadline;
// with one, a look-up takes at most half of the time left, so that the
// publish after it keeps the other half.
const DefaultLookupTimeout = 5 * time.Second

// lookupInactive is how long the server keeps a look-up's consumer once it
// is no longer read, should deleting it fail.
const lookupInactive = 10 * time.Second

// clockSkew widens the look-up's time range, and narrows the part of the
// de-duplication window trusted, by the clock differences of replicas and
// servers.
const clockSkew = 30 * time.Second

var _ handlers.Emitter = Outcomes{}

// Emit implements handlers.Emitter.
func (o Outcomes) Emit(ctx context.Context, d handlers.Decision) (uint64, error) {
	subject := OutcomeSubject(d)
	if d.Republish && o.JS != nil {
		seq, found, err := o.stored(ctx, d, subject)
		if err != nil {
			return 0, fmt.Errorf("looking for the outcome %s already stored: %w", d.MsgID, err)
		}
		if found {
			return seq, nil
		}
	}
	msg := message.NewMessage(d.MsgID, d.Payload)
	for k, v := range d.Headers() {
		msg.Metadata.Set(k, v)
	}
	if sp, ok := o.Publisher.(SeqPublisher); ok {
		return sp.PublishSeq(ctx, subject, msg)
	}
	return 0, o.Publisher.Publish(subject, msg)
}

// stored looks for d's outcome in its stream when JetStream's window no
// longer covers it: among the messages on subject since d.RecordedAt (less
// the skew), headers only, up to MaxScan of them.
func (o Outcomes) stored(ctx context.Context, d handlers.Decision, subject string) (uint64, bool, error) {
	var cancel context.CancelFunc
	if deadline, ok := ctx.Deadline(); ok {
		ctx, cancel = context.WithDeadline(ctx, time.Now().Add(time.Until(deadline)/2))
	} else {
		ctx, cancel = context.WithTimeout(ctx, DefaultLookupTimeout)
	}
	defer cancel()
	s, err := o.JS.Stream(ctx, topology.OutcomeStream(d.Outcome))
	if err != nil {
		return 0, false, err
	}
	if window := s.CachedInfo().Config.Duplicates; time.Since(d.RecordedAt) < window-clockSkew {
		return 0, false, nil // JetStream drops a second copy itself
	}
	start := d.RecordedAt.Add(-clockSkew)
	// An ephemeral consumer of its own, not an ordered one: nats.go
	// recreates an ordered consumer on every fetch, with a context of its
	// own and no bound on its tries, which the look-up's deadline would not
	// stop.
	c, err := s.CreateConsumer(ctx, jetstream.ConsumerConfig{
		FilterSubject: subject, DeliverPolicy: jetstream.DeliverByStartTimePolicy, OptStartTime: &start,
		AckPolicy: jetstream.AckNonePolicy, HeadersOnly: true, InactiveThreshold: lookupInactive, MemoryStorage: true,
	})
	if err != nil {
		return 0, false, err
	}
	info := c.CachedInfo()
	defer func() {
		// Best effort: the inactive threshold removes it otherwise.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = s.DeleteConsumer(dctx, info.Name)
	}()
	pending := int(info.NumPending)
	maxScan := o.MaxScan
	if maxScan <= 0 {
		maxScan = DefaultMaxScan
	}
	if pending > maxScan {
		o.logger().WarnContext(ctx, "too many outcomes to look a republished one up: publishing it again",
			"run_id", d.RunID, "msg_id", d.MsgID, "subject", subject, "messages", pending, "max_scan", maxScan)
		return 0, false, nil
	}
	for seen := 0; seen < pending; {
		if err := ctx.Err(); err != nil {
			return 0, false, fmt.Errorf("%w: %d of %d messages read: %w", ErrLookupIncomplete, seen, pending, err)
		}
		batch, err := c.Fetch(min(pending-seen, 256), jetstream.FetchContext(ctx))
		if err != nil {
			return 0, false, fmt.Errorf("%w: %d of %d messages read: %w", ErrLookupIncomplete, seen, pending, err)
		}
		got := 0
		for m := range batch.Messages() {
			got++
			if m.Headers().Get(nats.MsgIdHdr) == d.MsgID {
				meta, err := m.Metadata()
				if err != nil {
					return 0, false, err
				}
				return meta.Sequence.Stream, true, nil
			}
		}
		if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) {
			return 0, false, fmt.Errorf("%w: %d of %d messages read: %w", ErrLookupIncomplete, seen, pending, err)
		}
		if got == 0 {
			// The server sent nothing in time, or the messages counted are
			// gone (limits, an operator): not knowing, publish nothing now;
			// the redelivery counts again.
			return 0, false, fmt.Errorf("%w: %d of %d messages read, then none", ErrLookupIncomplete, seen, pending)
		}
		seen += got
	}
	return 0, false, nil
}

func (o Outcomes) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}
