package dlq

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/internal/streamread"
	"github.com/agentgate/agentgate/subjects"
	"github.com/agentgate/agentgate/topology"
)

// Letter is one message of the dead-letter stream.
type Letter struct {
	// Seq is its sequence in the dead-letter stream; Replay-Of names it.
	Seq uint64
	// Event is the message decoded.
	Event contract.FailedEvent
	// Data is the message as published.
	Data []byte
}

// Query selects dead letters. The zero value selects all of them.
type Query struct {
	// Agent keeps the dead letters of this agent only.
	Agent string
	// Run keeps those of this run only.
	Run string
	// After starts after this sequence (0: from the first).
	After uint64
	// Limit stops after this many (0: no limit).
	Limit int
}

// List returns the dead letters q selects, oldest first, as the stream held
// them when List was called. more is true when Limit cut the list short:
// the next page starts after the last letter's Seq.
func List(ctx context.Context, js jetstream.JetStream, q Query) (letters []Letter, more bool, err error) {
	filter := ""
	if q.Agent != "" {
		filter = subjects.DLQ(q.Agent)
	}
	err = streamread.Read(ctx, js, topology.StreamDLQ, filter, q.After+1, func(m jetstream.Msg) (bool, error) {
		if q.Run != "" && m.Headers().Get(contract.HeaderRunID) != q.Run {
			return true, nil
		}
		if q.Limit > 0 && len(letters) == q.Limit {
			more = true
			return false, nil
		}
		meta, err := m.Metadata()
		if err != nil {
			return false, err
		}
		l, err := decode(meta.Sequence.Stream, m.Data())
		if err != nil {
			return false, err
		}
		letters = append(letters, l)
		return true, nil
	})
	return letters, more, err
}

// Get returns the dead letter at seq; ErrNotFound when there is none.
func Get(ctx context.Context, js jetstream.JetStream, seq uint64) (Letter, error) {
	s, err := js.Stream(ctx, topology.StreamDLQ)
	if err != nil {
		return Letter{}, fmt.Errorf("dlq: stream %s: %w", topology.StreamDLQ, err)
	}
	m, err := s.GetMsg(ctx, seq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return Letter{}, fmt.Errorf("%w: %d", ErrNotFound, seq)
	}
	if err != nil {
		return Letter{}, fmt.Errorf("dlq: reading dead letter %d: %w", seq, err)
	}
	return decode(seq, m.Data)
}

func decode(seq uint64, data []byte) (Letter, error) {
	l := Letter{Seq: seq, Data: data}
	if err := json.Unmarshal(data, &l.Event); err != nil {
		return Letter{}, fmt.Errorf("%w: %d is not a failed event: %w", ErrBadLetter, seq, err)
	}
	return l, nil
}
