// Package streamread reads what a JetStream stream holds, oldest first, up
// to its last message at the time of the call: never waiting for new ones.
// The CLI's inspection commands and the dead-letter listing share it. It
// knows nothing of outcomes or subjects, and must never import the
// gateway's packages.
package streamread

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// fetchWait bounds each wait for the next message; a filter that matches
// nothing more ends the read after it.
const fetchWait = 2 * time.Second

// Read calls fn for every message of stream on a subject matching filter
// ("" for all), from stream sequence from on (0 or 1: the first), oldest
// first, up to the last message the stream held when Read was called. fn
// returns false to stop early, or an error, which Read returns.
func Read(ctx context.Context, js jetstream.JetStream, stream, filter string, from uint64, fn func(jetstream.Msg) (bool, error)) error {
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return fmt.Errorf("stream %s: %w", stream, err)
	}
	state := s.CachedInfo().State
	last := state.LastSeq
	if state.Msgs == 0 || from > last {
		return nil
	}
	cfg := jetstream.OrderedConsumerConfig{}
	if from > 1 {
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, from
	}
	if filter != "" {
		cfg.FilterSubjects = []string{filter}
	}
	c, err := s.OrderedConsumer(ctx, cfg)
	if err != nil {
		return fmt.Errorf("reading %s: %w", stream, err)
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		msg, err := c.Next(jetstream.FetchMaxWait(fetchWait))
		if errors.Is(err, jetstream.ErrNoMessages) || errors.Is(err, nats.ErrTimeout) {
			return nil // nothing more matches the filter
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", stream, err)
		}
		meta, err := msg.Metadata()
		if err != nil {
			return err
		}
		if meta.Sequence.Stream > last {
			return nil
		}
		more, err := fn(msg)
		if err != nil || !more {
			return err
		}
		if meta.Sequence.Stream >= last || meta.NumPending == 0 {
			return nil
		}
	}
}
