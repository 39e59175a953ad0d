package dlq

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/contract"
)

// RunStates reads a run's state (a *runstate.Store).
type RunStates interface {
	Get(ctx context.Context, runID string) (*contract.RunState, uint64, error)
}

// publishTimeout bounds a replay's publish when ctx has no deadline.
const publishTimeout = 10 * time.Second

// Replayable reports, with ErrNotReplayable and the reason, a dead letter
// that cannot go back into its run: it has no Run-Id, its run has completed
// or been refused since, or it was replayed into the run already. The
// gateway would publish nothing for such a replay.
func Replayable(ctx context.Context, runs RunStates, l Letter) error {
	if l.Event.RunID == "" {
		return fmt.Errorf("%w: dead letter %d has no Run-Id (%s)", ErrNotReplayable, l.Seq, l.Event.Error.Type)
	}
	st, _, err := runs.Get(ctx, l.Event.RunID)
	if err != nil {
		return fmt.Errorf("dlq: reading run %q: %w", l.Event.RunID, err)
	}
	switch {
	case st == nil:
		return nil
	case st.Status == contract.RunCompleted || st.Status == contract.RunRefused:
		return fmt.Errorf("%w: run %s is %s", ErrNotReplayable, l.Event.RunID, st.Status)
	case slices.Contains(st.Replays, l.Seq):
		return fmt.Errorf("%w: dead letter %d was replayed into run %s already", ErrNotReplayable, l.Seq, l.Event.RunID)
	}
	return nil
}

// Replay publishes the raw output and headers kept in l again, to the
// subject they came on, with Replay-Of naming l and a Nats-Msg-Id of its own
// (replay-<seq>) so that a replay sent twice in a row is stored once. A
// payload too large to have been copied into l is read from the raw stream.
// It checks nothing: call Replayable first. It returns the publish's ack.
func Replay(ctx context.Context, js jetstream.JetStream, l Letter) (*jetstream.PubAck, error) {
	raw := l.Event.Raw
	payload, err := raw.Bytes()
	if err != nil {
		return nil, fmt.Errorf("%w: dead letter %d: decoding the kept payload: %w", ErrBadLetter, l.Seq, err)
	}
	if raw.Omitted {
		s, err := js.Stream(ctx, raw.Stream)
		if err != nil {
			return nil, fmt.Errorf("dlq: stream %s: %w", raw.Stream, err)
		}
		orig, err := s.GetMsg(ctx, raw.Seq)
		if err != nil {
			return nil, fmt.Errorf("dlq: dead letter %d: the raw output is no longer in %s at %d: %w", l.Seq, raw.Stream, raw.Seq, err)
		}
		payload = orig.Data
	}
	msg := nats.NewMsg(raw.Subject)
	msg.Data = payload
	for k, vs := range raw.Headers {
		if k == contract.HeaderMsgID || k == contract.HeaderReplayOf {
			continue
		}
		for _, v := range vs {
			msg.Header.Add(k, v)
		}
	}
	msg.Header.Set(contract.HeaderReplayOf, strconv.FormatUint(l.Seq, 10))
	msg.Header.Set(contract.HeaderMsgID, "replay-"+strconv.FormatUint(l.Seq, 10))
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, publishTimeout)
		defer cancel()
	}
	ack, err := js.PublishMsg(ctx, msg)
	if err != nil {
		return nil, fmt.Errorf("dlq: replaying dead letter %d: %w", l.Seq, err)
	}
	return ack, nil
}
