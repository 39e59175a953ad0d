package handlers

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers/normalize"
	"github.com/agentgate/agentgate/schemas"
)

// Streamed outputs (contract section 8): chunks arrive on
// agent.output.partial.<agent> with Chunk-Seq (0, 1, ...) and Chunk-Final
// on the last. Each chunk is added to the attempt's entry in a ChunkStore
// (compare-and-set, so order and redelivery do not matter and a restart
// loses nothing); while the attempt is open its contiguous prefix is
// judged loosely, and an attempt that can no longer become valid ends early
// with a retry request of stage "stream"; once every chunk up to the final
// one is there, the assembled output goes through the same pipeline as a
// raw output. An attempt whose final chunk does not come within the idle
// limit is dead-lettered as stream_incomplete (ExpireStreams).

// DefaultStreamIdle is how long a streamed attempt may go without a chunk
// before it is dead-lettered as stream_incomplete.
const DefaultStreamIdle = 60 * time.Second

// streamSize is the bytes of every chunk kept.
func streamSize(s *contract.StreamState) int {
	n := 0
	for _, c := range s.Chunks {
		n += len(c)
	}
	return n
}

// streamEnvelope is the attempt as one output, for the pipeline: its
// origin is the chunk that names it (the one whose prefix was judged, else
// the final one, else the latest).
func streamEnvelope(s *contract.StreamState, payload []byte) Envelope {
	h := make(map[string][]string, len(s.Headers))
	for k, v := range s.Headers {
		h[k] = v
	}
	seq := s.LastSeq
	switch {
	case s.StopSeq != 0:
		seq = s.StopSeq
	case s.FinalSeq != 0:
		seq = s.FinalSeq
	}
	if s.Attempt > 0 {
		h[contract.HeaderAttempt] = []string{strconv.Itoa(s.Attempt)}
	}
	return Envelope{Agent: s.AgentID, Headers: h, Payload: payload,
		Origin: Origin{Subject: s.Subject, Stream: s.Stream, Seq: seq, Chunked: true}}
}

// ChunkStore keeps the chunks of streamed attempts, like RunStore: Get
// returns nil and revision 0 for an attempt never seen; Put with revision 0
// creates the entry and otherwise updates it only at revision, returning
// ErrStateConflict when it is not; Keys lists the attempts kept.
type ChunkStore interface {
	Get(ctx context.Context, key string) (*contract.StreamState, uint64, error)
	Put(ctx context.Context, key string, st *contract.StreamState, revision uint64) error
	Keys(ctx context.Context) ([]string, error)
	Delete(ctx context.Context, key string) error
}

// StreamKey is the ChunkStore key of a run's attempt.
func StreamKey(runID string, attempt int) string {
	return contract.RunKey(runID) + "." + strconv.Itoa(attempt)
}

// chunk is what a partial message says about itself.
type chunk struct {
	meta  Meta
	seq   int
	final bool
}

// parseChunk checks a chunk's address and headers: a raw output's, plus
// the chunk headers. Its address must name the agent.
func parseChunk(env Envelope) (chunk, string) {
	if env.Misaddressed != "" {
		return chunk{}, env.Misaddressed
	}
	if env.Agent == "" {
		return chunk{}, fmt.Sprintf("subject %q names no agent", env.Origin.Subject)
	}
	m, reason := ParseMeta(env)
	if reason != "" {
		return chunk{meta: m}, reason
	}
	c := chunk{meta: m, final: strings.EqualFold(strings.TrimSpace(env.Header(contract.HeaderChunkFinal)), "true")}
	n, err := strconv.Atoi(strings.TrimSpace(env.Header(contract.HeaderChunkSeq)))
	if err != nil || n < 0 || n > maxChunks {
		return c, fmt.Sprintf("Chunk-Seq header %q is not an integer from 0 to %d", env.Header(contract.HeaderChunkSeq), maxChunks)
	}
	c.seq = n
	return c, ""
}

// maxChunks bounds the chunks of one attempt.
const maxChunks = 100_000

// ProcessChunk processes one streamed chunk: it keeps it, and emits the
// attempt's outcome once the attempt is complete or can no longer become
// valid. Like Process, it returns an error only for what a retry can fix.
// Each call on the store is bounded from its own start (see timedChunks).
func (h *Processor) ProcessChunk(ctx context.Context, env Envelope) error {
	if h.cfg.Chunks == nil {
		return fmt.Errorf("%w: no chunk store", ErrBadConfig)
	}
	c, reason := parseChunk(env)
	if reason != "" {
		d := h.cfg.Gate.deadLetter(env, c.meta, c.meta.Attempt, contract.ErrInvalidEnvelope, reason, nil, nil, h.cfg.Gate.cfg.Now().UTC())
		return h.publish(ctx, d)
	}
	if c.meta.Attempt == 0 {
		// No Attempt header: the chunks belong to the run's next expected
		// attempt as they arrive (after a retry request, the next one).
		run, _, err := h.get(ctx, c.meta.RunID)
		if err != nil {
			return fmt.Errorf("reading run %q: %w", c.meta.RunID, err)
		}
		c.meta.Attempt = contract.NextAttempt(run)
	}
	key := StreamKey(c.meta.RunID, c.meta.Attempt)
	for range maxConflicts {
		st, rev, err := h.cfg.Chunks.Get(ctx, key)
		if err != nil {
			return fmt.Errorf("reading stream %q: %w", key, err)
		}
		if st == nil {
			st = &contract.StreamState{RunID: c.meta.RunID, AgentID: c.meta.AgentID, Attempt: c.meta.Attempt,
				Subject: env.WholeSubject, Stream: env.Origin.Stream,
				Headers: chunkless(env.Headers), Chunks: map[int][]byte{}, Final: -1}
		}
		if st.Done {
			return nil
		}
		_, seen := st.Chunks[c.seq]
		if !seen {
			if len(st.Chunks) >= maxChunks {
				return nil // bounded: the idle limit ends it
			}
			if streamSize(st)+len(env.Payload) > h.chunkLimit() {
				// Over the limit: the output is decided as it stands, which
				// the gate finds too large.
				over := append(st.Prefix(), env.Payload...)
				d, err := h.decideWith(ctx, streamEnvelope(st, over), nil)
				if err != nil {
					return err
				}
				if err := h.publishStream(ctx, d); err != nil {
					return err
				}
				return h.closeStream(ctx, key)
			}
			st.Chunks[c.seq] = env.Payload
			st.LastSeq = env.Origin.Seq
			if c.final {
				st.Final, st.FinalSeq = c.seq, env.Origin.Seq
			}
			st.UpdatedAt = h.cfg.Gate.cfg.Now().UTC()
			if err := h.cfg.Chunks.Put(ctx, key, st, rev); errors.Is(err, ErrStateConflict) {
				continue
			} else if err != nil {
				return fmt.Errorf("recording chunk %d of %q: %w", c.seq, key, err)
			}
		}
		return h.advanceStream(ctx, key, st)
	}
	return fmt.Errorf("recording chunk of %q: %w %d times", key, ErrStateConflict, maxConflicts)
}

// advanceStream decides a streamed attempt once it is complete, or ends it
// early when its prefix can no longer become valid.
func (h *Processor) advanceStream(ctx context.Context, key string, st *contract.StreamState) error {
	var d Decision
	var err error
	switch {
	case st.StopSeq == 0 && st.Complete():
		d, err = h.decideWith(ctx, streamEnvelope(st, st.Prefix()), nil)
	default:
		env := streamEnvelope(st, st.Prefix())
		if m, _ := ParseMeta(env); m.Refusal {
			return nil
		}
		var vs []contract.Violation
		if vs, err = h.prefixViolations(ctx, env); err != nil || len(vs) == 0 {
			return err
		}
		if st.StopSeq == 0 {
			// Name the stop before deciding it (see StopSeq).
			if st, err = h.markStop(ctx, key); err != nil || st == nil || st.Done {
				return err
			}
			env = streamEnvelope(st, st.Prefix())
			if vs, err = h.prefixViolations(ctx, env); err != nil || len(vs) == 0 {
				return err
			}
		}
		d, err = h.decideWith(ctx, env, &Verdict{Violations: vs, Normalizations: []contract.Normalization{}, Stage: "stream"})
	}
	if err != nil {
		return err
	}
	if err := h.publishStream(ctx, d); err != nil {
		return err
	}
	return h.closeStream(ctx, key)
}

// publishStream publishes a streamed attempt's outcome, if it has one.
func (h *Processor) publishStream(ctx context.Context, d Decision) error {
	if d.Outcome == "" {
		return nil
	}
	if err := h.publish(ctx, d); err != nil {
		return err
	}
	if h.cfg.Observer != nil && !d.Republish {
		h.cfg.Observer.Observe(d, 0)
	}
	return nil
}

// chunkLimit bounds the bytes kept for one streamed attempt: the payload
// limit, and what the chunk bucket can hold in one entry (base64 inflates
// by a third).
func (h *Processor) chunkLimit() int {
	limit := h.cfg.Gate.cfg.MaxPayload
	if m := h.cfg.Gate.cfg.MaxMessage; m > 0 {
		limit = min(limit, m*3/4-16<<10)
	}
	return max(limit, 1)
}

// markStop records that the attempt is stopped early, named by its latest
// chunk, and returns the state as recorded (nil when it is gone).
func (h *Processor) markStop(ctx context.Context, key string) (*contract.StreamState, error) {
	for range maxConflicts {
		st, rev, err := h.cfg.Chunks.Get(ctx, key)
		if err != nil {
			return nil, fmt.Errorf("reading stream %q: %w", key, err)
		}
		if st == nil || st.Done || st.StopSeq != 0 {
			return st, nil
		}
		st.StopSeq = max(st.LastSeq, 1)
		if err := h.cfg.Chunks.Put(ctx, key, st, rev); err == nil {
			return st, nil
		} else if !errors.Is(err, ErrStateConflict) {
			return nil, fmt.Errorf("stopping stream %q: %w", key, err)
		}
	}
	return nil, fmt.Errorf("stopping stream %q: %w %d times", key, ErrStateConflict, maxConflicts)
}

// prefixViolations judges a streamed prefix against its agent's schema:
// the blueprint the attempt will be decided by, which for a retry is its
// run's (contract section 12), so it reads the run's state.
func (h *Processor) prefixViolations(ctx context.Context, env Envelope) ([]contract.Violation, error) {
	m, _ := ParseMeta(env)
	var run *contract.RunState
	if m.Attempt > 1 {
		var err error
		if run, _, err = h.get(ctx, m.RunID); err != nil {
			return nil, fmt.Errorf("reading run %q: %w", m.RunID, err)
		}
	}
	bp, _, ok := h.cfg.Gate.blueprint(m.AgentID, run)
	if !ok || bp.OutputSchema == nil || bp.Reply != "" {
		return nil, nil
	}
	if bp.Retry == schemas.RetryPartial && m.Attempt != 1 {
		// The answer to a partial re-ask may be a patch, which a prefix
		// judged against the whole schema would wrongly stop: it is judged
		// once complete, after the merge.
		return nil, nil
	}
	return normalize.PrefixViolations(env.Payload, bp.OutputSchema.Doc, bp.OutputSchema, normalize.Options{ExtraFields: bp.ExtraFields, Coerce: bp.Coerce}), nil
}

// closeStream marks a streamed attempt done, so that later chunks are
// ignored.
func (h *Processor) closeStream(ctx context.Context, key string) error {
	for range maxConflicts {
		st, rev, err := h.cfg.Chunks.Get(ctx, key)
		if err != nil {
			return fmt.Errorf("reading stream %q: %w", key, err)
		}
		if st == nil || st.Done {
			return nil
		}
		st.Done = true
		if err := h.cfg.Chunks.Put(ctx, key, st, rev); err == nil {
			return nil
		} else if !errors.Is(err, ErrStateConflict) {
			return fmt.Errorf("closing stream %q: %w", key, err)
		}
	}
	return fmt.Errorf("closing stream %q: %w %d times", key, ErrStateConflict, maxConflicts)
}

// ExpireStreams dead-letters, as stream_incomplete, every streamed attempt
// that has had no chunk for idle (default DefaultStreamIdle) and is not
// done, keeping what came so far, and removes the entries of attempts done
// for longer than that; it returns how many it expired. Replicas
// may all call it: closing an attempt is compare-and-set, and the dead
// letter's Nats-Msg-Id is the attempt's.
func (h *Processor) ExpireStreams(ctx context.Context, idle time.Duration) (int, error) {
	if h.cfg.Chunks == nil {
		return 0, nil
	}
	if idle <= 0 {
		idle = DefaultStreamIdle
	}
	keys, err := h.cfg.Chunks.Keys(ctx)
	if err != nil {
		return 0, err
	}
	now := h.cfg.Gate.cfg.Now().UTC()
	expired := 0
	for _, key := range keys {
		st, _, err := h.cfg.Chunks.Get(ctx, key)
		if err != nil {
			return expired, err
		}
		if st == nil || now.Sub(st.UpdatedAt) < idle {
			continue
		}
		if st.Done {
			// Finished a while ago: a late chunk finds the run's state
			// answered anyway, so the entry can go.
			if err := h.cfg.Chunks.Delete(ctx, key); err != nil {
				return expired, err
			}
			continue
		}
		env := streamEnvelope(st, st.Prefix())
		d, err := h.decideStream(ctx, env, len(st.Chunks), idle)
		if err != nil {
			return expired, err
		}
		if err := h.publishStream(ctx, d); err != nil {
			return expired, err
		}
		if err := h.closeStream(ctx, key); err != nil {
			return expired, err
		}
		expired++
	}
	return expired, nil
}

// decideStream records and returns the stream_incomplete dead letter of an
// expired attempt, through the gate: the contract's precedence applies, and
// a recorded outcome of this very input is published again.
func (h *Processor) decideStream(ctx context.Context, env Envelope, chunks int, idle time.Duration) (Decision, error) {
	return h.decideWith(ctx, env, &Verdict{
		Incomplete:     fmt.Sprintf("no final chunk within %s (%d chunk(s) received)", idle, chunks),
		Normalizations: []contract.Normalization{},
	})
}

// decideWith decides an assembled stream, with an early verdict when one
// is given, within the decision limit and the bytes-in-flight budget.
func (h *Processor) decideWith(ctx context.Context, env Envelope, v *Verdict) (Decision, error) {
	res, err := h.reserve(ctx, len(env.Payload))
	if err != nil {
		return Decision{}, err
	}
	defer res.release()
	return h.decideFunc(ctx, env, h.bounded(res, func(env Envelope, st *contract.RunState) Decision {
		return h.cfg.Gate.decide(env, st, v)
	}))
}

// chunkless copies headers without the chunk headers.
func chunkless(h map[string][]string) map[string][]string {
	out := make(map[string][]string, len(h))
	for k, v := range h {
		if k != contract.HeaderChunkSeq && k != contract.HeaderChunkFinal {
			out[k] = v
		}
	}
	return out
}

// timedChunks bounds each call on a ChunkStore from its own start.
type timedChunks struct {
	ChunkStore
	timeout time.Duration
}

func (c timedChunks) Get(ctx context.Context, key string) (*contract.StreamState, uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	return c.ChunkStore.Get(ctx, key)
}

func (c timedChunks) Put(ctx context.Context, key string, st *contract.StreamState, revision uint64) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	return c.ChunkStore.Put(ctx, key, st, revision)
}

func (c timedChunks) Keys(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	return c.ChunkStore.Keys(ctx)
}

func (c timedChunks) Delete(ctx context.Context, key string) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	return c.ChunkStore.Delete(ctx, key)
}
