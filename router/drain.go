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
type drainableConsumer struct {
	jetstream.Consumer

	mu  sync.Mutex
	ccs []jetstream.ConsumeContext
}

// Consume implements jetstream.Consumer.
func (c *drainableConsumer) Consume(h jetstream.MessageHandler, opts ...jetstream.PullConsumeOpt) (jetstream.ConsumeContext, error) {
	cc, err := c.Consumer.Consume(h, opts...)
	if err == nil {
		c.mu.Lock()
		c.ccs = append(c.ccs, cc)
		c.mu.Unlock()
	}
	return cc, err
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
