package router

import (
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// drainableConsumer remembers the ConsumeContext of every Consume call, so
// that the router can drain consumption before Watermill shuts the handler
// down.
//
// watermill-nats v2.1.3 pkg/jetstream (consumer.go, monitor) closes the
// subscription's output channel as soon as the context is cancelled and
// only then drains the consumer, while a message callback may still be
// sending on that channel: a data race, and a possible "send on closed
// channel" panic. It also drops the ack of any message in flight. Draining
// first lets every callback finish, messages in flight included, and ack
// before the channel is closed.
//
// It also remembers the handler and options of each Consume call, so that
// the health check can consume again after the consumer was deleted and
// created anew, or consumption stopped (see health.go).
type drainableConsumer struct {
	jetstream.Consumer

	mu       sync.Mutex
	ccs      []jetstream.ConsumeContext
	handlers []consumeCall
	draining bool
}

type consumeCall struct {
	h    jetstream.MessageHandler
	opts []jetstream.PullConsumeOpt
	cc   jetstream.ConsumeContext
}

// Consume implements jetstream.Consumer.
func (c *drainableConsumer) Consume(h jetstream.MessageHandler, opts ...jetstream.PullConsumeOpt) (jetstream.ConsumeContext, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cc, err := c.Consumer.Consume(h, opts...)
	if err == nil {
		c.ccs = append(c.ccs, cc)
		c.handlers = append(c.handlers, consumeCall{h: h, opts: opts, cc: cc})
	}
	return cc, err
}

// consuming reports whether every Consume call is still consuming.
func (c *drainableConsumer) consuming() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, call := range c.handlers {
		select {
		case <-call.cc.Closed():
			return false
		default:
		}
	}
	return true
}

// reconsume stops every consumption still running and starts each again on
// consumer (the same durable, created anew), unless the router is
// draining.
func (c *drainableConsumer) reconsume(consumer jetstream.Consumer) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.draining {
		return nil
	}
	c.Consumer = consumer
	for i, call := range c.handlers {
		call.cc.Stop()
		cc, err := consumer.Consume(call.h, call.opts...)
		if err != nil {
			return err
		}
		c.handlers[i].cc = cc
	}
	// Only the live consumptions are drained at close: a stopped one may
	// never report itself closed.
	c.ccs = c.ccs[:0]
	for _, call := range c.handlers {
		c.ccs = append(c.ccs, call.cc)
	}
	return nil
}

// consumerSet holds the consumers of every subscription of the router.
type consumerSet struct {
	mu   sync.Mutex
	list []*drainableConsumer
}

func (s *consumerSet) add(c jetstream.Consumer) *drainableConsumer {
	dc := &drainableConsumer{Consumer: c}
	s.mu.Lock()
	s.list = append(s.list, dc)
	s.mu.Unlock()
	return dc
}

// drain drains every consumer, within one deadline.
func (s *consumerSet) drain(timeout time.Duration) bool {
	s.mu.Lock()
	list := s.list
	s.mu.Unlock()
	deadline := time.Now().Add(timeout)
	ok := true
	for _, c := range list {
		ok = c.drain(time.Until(deadline)) && ok
	}
	return ok
}

// drain stops pulling and waits, at most timeout, until every message
// already delivered has been processed. It reports whether that happened
// in time.
func (c *drainableConsumer) drain(timeout time.Duration) bool {
	c.mu.Lock()
	c.draining = true
	ccs := c.ccs
	c.mu.Unlock()
	deadline := time.NewTimer(max(timeout, 0))
	defer deadline.Stop()
	for _, cc := range ccs {
		cc.Drain()
	}
	for _, cc := range ccs {
		select {
		case <-cc.Closed():
		case <-deadline.C:
			return false
		}
	}
	return true
}
