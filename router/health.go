package router

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// DefaultHealthInterval is how often the router checks that its durable
// consumers exist and that it is still consuming from them.
const DefaultHealthInterval = 5 * time.Second

// watched is what the health check needs of one durable consumer: how to
// create it again, and how to consume from it again with the handler and
// options the subscription used (watermill-nats' output channel stays
// open, so a new Consume feeds the same subscription).
type watched struct {
	stream string
	cfg    jetstream.ConsumerConfig
	dc     *drainableConsumer
}

// health is the router's view of its consumers: nil when all is well,
// else why not.
type health struct {
	mu     sync.Mutex
	reason error
}

func (h *health) set(err error) {
	h.mu.Lock()
	h.reason = err
	h.mu.Unlock()
}

func (h *health) get() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reason
}

// Health returns nil while every durable consumer exists and is being
// consumed from, and otherwise the reason (wrapping ErrNotConsuming). A
// consumer found deleted, or a consumption found stopped, is repaired at
// once, and the router reports healthy again only after the next check
// finds it whole, so that the outage is visible to whoever polls.
func (r *Router) Health() error {
	if err := r.health.get(); err != nil {
		return err
	}
	select {
	case <-r.wm.Running():
		return nil
	default:
		return fmt.Errorf("%w: not subscribed yet", ErrNotConsuming)
	}
}

// watch checks the consumers every interval until ctx is done.
func (r *Router) watch(ctx context.Context, js jetstream.JetStream) {
	tick := time.NewTicker(r.cfg.HealthInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			r.health.set(r.check(ctx, js))
		}
	}
}

// check checks every watched consumer, repairing what it finds broken;
// it returns the first problem found (nil when all were whole).
func (r *Router) check(ctx context.Context, js jetstream.JetStream) error {
	r.watchMu.Lock()
	list := r.watched
	r.watchMu.Unlock()
	var problem error
	for _, w := range list {
		cctx, cancel := context.WithTimeout(ctx, r.cfg.HealthInterval)
		err := r.checkOne(cctx, js, w)
		cancel()
		if err != nil && problem == nil {
			problem = err
		}
	}
	return problem
}

func (r *Router) checkOne(ctx context.Context, js jetstream.JetStream, w *watched) error {
	_, err := js.Consumer(ctx, w.stream, w.cfg.Durable)
	switch {
	case errors.Is(err, jetstream.ErrConsumerNotFound):
		problem := fmt.Errorf("%w: durable consumer %s on %s was deleted", ErrNotConsuming, w.cfg.Durable, w.stream)
		r.cfg.Logger.Error("durable consumer deleted; recreating it", "consumer", w.cfg.Durable, "stream", w.stream)
		if rerr := r.restart(ctx, js, w); rerr != nil {
			return errors.Join(problem, rerr)
		}
		return problem
	case err != nil:
		return fmt.Errorf("%w: checking durable consumer %s on %s: %w", ErrNotConsuming, w.cfg.Durable, w.stream, err)
	}
	if !w.dc.consuming() && !r.closing() {
		problem := fmt.Errorf("%w: consumption from %s on %s stopped", ErrNotConsuming, w.cfg.Durable, w.stream)
		r.cfg.Logger.Error("consumption stopped; restarting it", "consumer", w.cfg.Durable, "stream", w.stream)
		if rerr := r.restart(ctx, js, w); rerr != nil {
			return errors.Join(problem, rerr)
		}
		return problem
	}
	return nil
}

// restart creates the consumer again if it is missing and consumes from it
// again with the subscription's handler.
func (r *Router) restart(ctx context.Context, js jetstream.JetStream, w *watched) error {
	c, err := js.CreateOrUpdateConsumer(ctx, w.stream, w.cfg)
	if err != nil {
		return fmt.Errorf("recreating durable consumer %s: %w", w.cfg.Durable, err)
	}
	if err := w.dc.reconsume(c); err != nil {
		return fmt.Errorf("consuming from %s again: %w", w.cfg.Durable, err)
	}
	return nil
}
