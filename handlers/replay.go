package handlers

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/agentgate/agentgate/contract"
)

// Replays (agentgate dlq replay): a raw output that carries Replay-Of names
// a dead letter by its sequence in the dead-letter stream and asks for its
// attempt to be decided again. Anyone who can publish a raw output can set
// the header, so the gateway honours it only when the dead letter exists,
// belongs to this run and attempt, and was never replayed before; anything
// else is an invalid_envelope dead letter that leaves the run alone.

// DeadLetters looks dead letters up by sequence. DeadLetter returns nil and
// no error when the stream holds no dead letter at seq; an error only when
// the stream cannot be read (the message is then redelivered).
type DeadLetters interface {
	DeadLetter(ctx context.Context, seq uint64) (*contract.DeadLetterRef, error)
}

// resolveReplay looks up the dead letter env's Replay-Of header names and
// attaches it to env for the gate. An unreadable header is left for the
// gate to dead-letter; without a DeadLetters every replay is refused.
func (h *Processor) resolveReplay(ctx context.Context, env Envelope) (Envelope, error) {
	m, reason := ParseMeta(env)
	if reason != "" || m.ReplayOf == 0 || h.cfg.DeadLetters == nil {
		return env, nil
	}
	ref, err := h.cfg.DeadLetters.DeadLetter(ctx, m.ReplayOf)
	if err != nil {
		return env, fmt.Errorf("looking up dead letter %d: %w", m.ReplayOf, err)
	}
	env.Replayed = ref
	return env, nil
}

// replayProblem is why a replay may not reopen attempt of the run whose
// state is st ("" when it may).
func replayProblem(env Envelope, m Meta, attempt int, st *contract.RunState) string {
	ref := env.Replayed
	switch {
	case ref == nil || ref.Seq != m.ReplayOf:
		return fmt.Sprintf("Replay-Of names dead letter %d, which the dead-letter stream does not hold", m.ReplayOf)
	case ref.RunID != m.RunID:
		return fmt.Sprintf("Replay-Of names dead letter %d of run %q, not of run %q", ref.Seq, ref.RunID, m.RunID)
	case ref.Attempt != attempt:
		return fmt.Sprintf("Replay-Of names dead letter %d of attempt %d, not of attempt %d", ref.Seq, ref.Attempt, attempt)
	case st == nil:
		return fmt.Sprintf("Replay-Of names dead letter %d, but run %q has no state", ref.Seq, m.RunID)
	case slices.Contains(st.Replays, ref.Seq):
		return fmt.Sprintf("dead letter %d was already replayed into run %q", ref.Seq, m.RunID)
	case st.Status == contract.RunCompleted || st.Status == contract.RunRefused:
		return fmt.Sprintf("run %q already ended %s; only a failed run can be replayed into", m.RunID, st.Status)
	}
	return ""
}

// replayID is the Nats-Msg-Id suffix of a replay's outcome.
func replayID(seq uint64) string { return ".replay-" + strconv.FormatUint(seq, 10) }
