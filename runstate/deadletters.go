package runstate

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/subjects"
	"github.com/agentgate/agentgate/topology"
)

// DeadLetters is a handlers.DeadLetters on the dead-letter stream: it tells
// the gateway which run and attempt a replayed dead letter belongs to.
type DeadLetters struct {
	js jetstream.JetStream
}

// NewDeadLetters returns a DeadLetters on js's dead-letter stream.
func NewDeadLetters(js jetstream.JetStream) *DeadLetters { return &DeadLetters{js: js} }

// DeadLetter returns the run and attempt of the dead letter at seq, read
// from the headers the gateway published it with; nil when the stream holds
// no message there, or one on a subject that is not a dead letter's.
func (d *DeadLetters) DeadLetter(ctx context.Context, seq uint64) (*contract.DeadLetterRef, error) {
	s, err := d.js.Stream(ctx, topology.StreamDLQ)
	if err != nil {
		return nil, fmt.Errorf("runstate: dead-letter stream: %w", err)
	}
	m, err := s.GetMsg(ctx, seq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("runstate: dead letter %d: %w", seq, err)
	}
	if !strings.HasPrefix(m.Subject, subjects.DLQPrefix+".") || m.Header.Get(contract.HeaderOutcome) != string(contract.OutcomeDLQ) {
		return nil, nil
	}
	attempt, _ := strconv.Atoi(m.Header.Get(contract.HeaderAttempt))
	return &contract.DeadLetterRef{Seq: seq, RunID: m.Header.Get(contract.HeaderRunID), Attempt: attempt}, nil
}
