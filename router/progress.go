package router

import (
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go/jetstream"
)

// progress tells JetStream that a message is still being worked on while
// the handler holds it, so that a slow but bounded decision (its store and
// publish calls each have their own deadline) is not redelivered to a
// second worker halfway through. The Unmarshaler records the JetStream
// message behind each Watermill message; the middleware sends InProgress
// every interval until the handler returns.
type progress struct {
	mu   sync.Mutex
	msgs map[*message.Message]jetstream.Msg
}

func newProgress() *progress {
	return &progress{msgs: map[*message.Message]jetstream.Msg{}}
}

func (p *progress) track(m *message.Message, jm jetstream.Msg) {
	p.mu.Lock()
	p.msgs[m] = jm
	p.mu.Unlock()
}

func (p *progress) take(m *message.Message) jetstream.Msg {
	p.mu.Lock()
	defer p.mu.Unlock()
	jm := p.msgs[m]
	delete(p.msgs, m)
	return jm
}

// middleware sends InProgress for each message every interval while the
// handler runs. The timer spends no goroutine until it fires.
func (p *progress) middleware(every time.Duration) message.HandlerMiddleware {
	return func(next message.HandlerFunc) message.HandlerFunc {
		return func(msg *message.Message) ([]*message.Message, error) {
			jm := p.take(msg)
			if jm == nil {
				return next(msg)
			}
			var mu sync.Mutex
			stopped := false
			var timer *time.Timer
			timer = time.AfterFunc(every, func() {
				mu.Lock()
				defer mu.Unlock()
				if stopped {
					return
				}
				_ = jm.InProgress()
				timer.Reset(every)
			})
			defer func() {
				mu.Lock()
				stopped = true
				timer.Stop()
				mu.Unlock()
			}()
			return next(msg)
		}
	}
}
