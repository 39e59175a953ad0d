package router

import (
	"context"
	"log/slog"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/internal/workers"
)

// stage is the pipeline's Watermill face: it turns each message into an
// envelope, once, and hands it to the Processor on a fixed pool of
// goroutines. Handling one goes deep into the validator and the NATS
// client; on the fresh goroutine Watermill starts for every message the
// stack would grow, and be copied, each time (7 % of the gateway's CPU in
// a profile of the bench). A panic comes back on Watermill's goroutine,
// where the Recoverer and poison turn it into a dead letter.
type stage struct {
	proc   *handlers.Processor
	pool   *workers.Pool
	logger *slog.Logger
}

func newStage(proc *handlers.Processor, size int, logger *slog.Logger) *stage {
	return &stage{proc: proc, pool: workers.New(size), logger: logger}
}

// raw handles a raw output; its signature is
// message.NoPublishHandlerFunc. The router cancels the message's context
// when it shuts down; a message already in hand is finished all the same,
// each call on the bus bounded in time from its own start.
func (s *stage) raw(msg *message.Message) error {
	return s.pool.Do(func() error {
		_, err := s.proc.Process(context.WithoutCancel(msg.Context()), Envelope(msg))
		return err
	})
}

// chunk handles a streamed chunk, like raw.
func (s *stage) chunk(msg *message.Message) error {
	return s.pool.Do(func() error {
		return s.proc.ProcessChunk(context.WithoutCancel(msg.Context()), Envelope(msg))
	})
}

// close stops the pool's goroutines, waiting at most limit.
func (s *stage) close(limit time.Duration) bool { return s.pool.Close(limit) }
