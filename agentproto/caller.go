package agentproto

import (
	"sync"
	"time"

	"github.com/nats-io/nats.go/micro"
)

// caller is the stream back to a protocol caller. Every chunk goes through
// it one at a time (the relay of upstream chunks and the twin's own answer
// run on different goroutines), nothing after the terminator; and while
// the exchange runs it sends a status ack after keepAlive without a chunk,
// so that the caller's inactivity timeout (protocol section 6.6, 60 s) does
// not fire while the upstream streams text the twin holds back or the
// gateway judges and retries.
type caller struct {
	micro.Request
	mu    sync.Mutex
	last  time.Time
	ended bool
	stop  chan struct{}
	done  chan struct{}
}

func newCaller(req micro.Request, keepAlive time.Duration) *caller {
	c := &caller{Request: req, last: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	go c.keepAlive(keepAlive)
	return c
}

// Respond sends one chunk, or the terminator when data is empty and no
// headers are given; it sends nothing once the stream has ended.
func (c *caller) Respond(data []byte, opts ...micro.RespondOpt) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return nil
	}
	c.last = time.Now()
	if len(data) == 0 && len(opts) == 0 {
		c.ended = true
	}
	return c.Request.Respond(data, opts...)
}

// Error sends an error message (the terminator follows it).
func (c *caller) Error(code, description string, data []byte, opts ...micro.RespondOpt) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return nil
	}
	c.last = time.Now()
	return c.Request.Error(code, description, data, opts...)
}

func (c *caller) keepAlive(every time.Duration) {
	defer close(c.done)
	tick := time.NewTicker(max(every/4, 10*time.Millisecond))
	defer tick.Stop()
	ack := encode(map[string]any{"type": ChunkStatus, "data": StatusAck})
	for {
		select {
		case <-c.stop:
			return
		case now := <-tick.C:
			c.mu.Lock()
			if !c.ended && now.Sub(c.last) >= every {
				c.last = now
				_ = c.Request.Respond(ack)
			}
			c.mu.Unlock()
		}
	}
}

// close stops the keep-alive and waits for it.
func (c *caller) close() {
	close(c.stop)
	<-c.done
}
