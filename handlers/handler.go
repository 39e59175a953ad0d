package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"golang.org/x/sync/semaphore"

	"github.com/agentgate/agentgate/contract"
)

// Metadata keys the bus adapter sets on every raw message, besides one key
// per NATS header (its first value). They start with an underscore, like
// Watermill's own, so that no contract header can collide with them.
const (
	// MetaSubject is the subject the raw output was published to.
	MetaSubject = "_agentgate_subject"
	// MetaSeq is the raw stream's sequence of the message.
	MetaSeq = "_agentgate_seq"
	// MetaDelivered is how often the message has been delivered.
	MetaDelivered = "_agentgate_delivered"
	// MetaRepeated holds, as a JSON object of arrays, every header that
	// carried more than one value.
	MetaRepeated = "_agentgate_repeated"
)

// DefaultStoreTimeout bounds each run-state call, from the moment it
// starts, and DefaultPublishTimeout each outcome's publish.
const (
	DefaultStoreTimeout   = 10 * time.Second
	DefaultPublishTimeout = 10 * time.Second
)

// RunStore keeps each run's state. Get returns nil and revision 0 for a run
// never seen; Put with revision 0 creates the entry, otherwise it updates
// it only if it is still at revision, and returns the entry's new revision,
// or ErrStateConflict when it is not at revision.
type RunStore interface {
	Get(ctx context.Context, runID string) (*contract.RunState, uint64, error)
	Put(ctx context.Context, st *contract.RunState, revision uint64) (uint64, error)
}

// SeqPublisher is a message.Publisher that also reports the stream
// sequence an outcome was stored at. With one, the handler records the
// sequence in the run's state, and a redelivered input whose outcome is
// stored publishes nothing, however long after JetStream's de-duplication
// window it comes; with a plain Publisher the window alone keeps a
// republished outcome from being stored twice.
type SeqPublisher interface {
	PublishSeq(ctx context.Context, topic string, msg *message.Message) (uint64, error)
}

// Observer is told of every decision, for telemetry.
type Observer interface {
	Observe(d Decision, took time.Duration)
}

// HandlerConfig configures a Handler.
type HandlerConfig struct {
	Gate      *Gate
	Store     RunStore
	Publisher message.Publisher
	// Chunks keeps the chunks of streamed outputs; optional (without it
	// HandleChunk fails).
	Chunks ChunkStore
	// DeadLetters looks up the dead letters replays name (contract
	// section 3.4); without it every Replay-Of is an invalid_envelope.
	DeadLetters DeadLetters
	// Observer is optional.
	Observer Observer
	// Concurrency is how many messages may be handled at once: the
	// router's workers for raw outputs and for chunks (default
	// 4 × GOMAXPROCS). The handler keeps as many goroutines to handle them
	// on; a message beyond that waits for one.
	Concurrency int
	// StoreTimeout bounds each run-state call from its start (default
	// DefaultStoreTimeout); PublishTimeout each publish through a
	// SeqPublisher (default DefaultPublishTimeout).
	StoreTimeout   time.Duration
	PublishTimeout time.Duration
	// DecisionTimeout bounds the decision on one output (default
	// DefaultDecisionTimeout); past it the output is a processing_limit
	// dead letter.
	DecisionTimeout time.Duration
	// MaxInFlightBytes bounds the bytes of payload decided at once
	// (default DefaultMaxInFlightBytes).
	MaxInFlightBytes int
	// MaxDeliver is the consumer's MaxDeliver: at the last delivery, an
	// output that still fails is a processing_limit dead letter (default
	// DefaultMaxDeliver).
	MaxDeliver int
	// CloseTimeout bounds Close (default DefaultCloseTimeout).
	CloseTimeout time.Duration
	Logger       *slog.Logger
}

func (c *HandlerConfig) setDefaults() {
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 4 * runtime.GOMAXPROCS(0)
	}
	if c.StoreTimeout <= 0 {
		c.StoreTimeout = DefaultStoreTimeout
	}
	if c.PublishTimeout <= 0 {
		c.PublishTimeout = DefaultPublishTimeout
	}
	if c.DecisionTimeout <= 0 {
		c.DecisionTimeout = DefaultDecisionTimeout
	}
	if c.MaxInFlightBytes <= 0 {
		c.MaxInFlightBytes = DefaultMaxInFlightBytes
	}
	if c.MaxDeliver <= 0 {
		c.MaxDeliver = DefaultMaxDeliver
	}
	if c.CloseTimeout <= 0 {
		c.CloseTimeout = DefaultCloseTimeout
	}
}

// Validate reports every missing dependency.
func (c HandlerConfig) Validate() error {
	var errs []error
	if c.Gate == nil {
		errs = append(errs, fmt.Errorf("%w: no gate", ErrBadConfig))
	}
	if c.Store == nil {
		errs = append(errs, fmt.Errorf("%w: no run store", ErrBadConfig))
	}
	if c.Publisher == nil {
		errs = append(errs, fmt.Errorf("%w: no publisher", ErrBadConfig))
	}
	return errors.Join(errs...)
}

// Handler is the Watermill handler of raw outputs: it reads the run's
// state, asks the Gate for a decision, publishes the outcome, records it,
// and lets the router ack. It returns an error only for what a retry can
// fix (the bus or the store is unreachable); every domain failure is an
// outcome.
type Handler struct {
	cfg    HandlerConfig
	runner *runner
	// deciders run the decisions, each within DecisionTimeout.
	deciders *runner
	// inflight holds the bytes of payload being decided.
	inflight *semaphore.Weighted
}

// NewHandler returns a Handler, or ErrBadConfig. The limits of the
// configuration default as documented on HandlerConfig.
func NewHandler(cfg HandlerConfig) (*Handler, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Chunks != nil {
		cfg.Chunks = timedChunks{ChunkStore: cfg.Chunks, timeout: cfg.StoreTimeout}
	}
	return &Handler{cfg: cfg, runner: newRunner(cfg.Concurrency), deciders: newRunner(cfg.Concurrency),
		inflight: semaphore.NewWeighted(int64(cfg.MaxInFlightBytes))}, nil
}

// MaxDeliver is the MaxDeliver the handler's consumers must have: at that
// delivery an output that still fails is dead-lettered.
func (h *Handler) MaxDeliver() int { return h.cfg.MaxDeliver }

// Close stops the handler's goroutines. Call it once no message is handled
// any more (after the router closed); safe to call twice. It waits at most
// CloseTimeout for a decision still running past its limit, then returns
// ErrCloseTimeout and leaves it to end with the process.
func (h *Handler) Close() error {
	deadline := time.Now().Add(h.cfg.CloseTimeout)
	ok := h.runner.close(h.cfg.CloseTimeout)
	ok = h.deciders.close(max(time.Until(deadline), time.Millisecond)) && ok
	if !ok {
		return fmt.Errorf("%w after %s", ErrCloseTimeout, h.cfg.CloseTimeout)
	}
	return nil
}

// maxConflicts bounds how often one message re-reads the run's state after
// losing a compare-and-set to another replica before it is redelivered.
const maxConflicts = 5

// Handle processes one raw output: it reads the run's state, asks the Gate
// for a decision, records the run's new state with compare-and-set, then
// publishes the outcome; the router acks when it returns nil. Its
// signature is message.NoPublishHandlerFunc.
//
// Recording before publishing means an executor that sees a retry request
// finds the run already waiting for its next attempt, whichever replica
// takes the answer. Once published, the outcome's stream sequence is
// recorded too, so a redelivered input (a lost ack, a long outage) finds
// its outcome stored and publishes nothing. A stop between recording and
// publishing is repaired on redelivery: the state names the input that
// produced it, and the recorded outcome is published again under the same
// Nats-Msg-Id (at least once: a stop between publishing and recording the
// sequence may store it twice if the redelivery comes after JetStream's
// de-duplication window). Handle returns an error only for what a retry can fix (the
// bus or the store is unreachable); every domain failure is an outcome.
func (h *Handler) Handle(msg *message.Message) error {
	return h.runner.do(func() error { return h.handle(msg) })
}

func (h *Handler) handle(msg *message.Message) error {
	start := time.Now()
	// The router cancels the message's context when it shuts down; a
	// message already in hand is finished all the same, each call on the
	// bus bounded in time from its own start.
	ctx := context.WithoutCancel(msg.Context())
	env := EnvelopeFromMessage(msg)
	res, err := h.reserve(ctx, len(env.Payload))
	if err != nil {
		return err
	}
	defer res.release()

	d, err := h.decideFunc(ctx, env, h.bounded(res, h.cfg.Gate.Decide))
	if err != nil {
		return err
	}
	if d.Outcome == "" {
		h.cfg.Logger.DebugContext(ctx, "attempt already has an outcome", "run_id", d.RunID, "attempt", d.Attempt)
		return nil
	}
	if err := h.publish(ctx, d); err != nil {
		return err
	}
	if h.cfg.Observer != nil && !d.Republish {
		h.cfg.Observer.Observe(d, time.Since(start))
	}
	h.cfg.Logger.DebugContext(ctx, "outcome", "run_id", d.RunID, "agent_id", d.AgentID, "attempt", d.Attempt,
		"outcome", d.Outcome, "error_type", d.ErrorType, "republished", d.Republish)
	return nil
}

// decideFunc reads the run's state, decides with decide, and records the
// new state. When another replica changed the state in between, it decides
// again on the fresh state (which may then say the attempt is already
// answered).
//
// A first attempt is decided optimistically as the start of a new run,
// saving the read: creating the run's entry fails if the run exists after
// all, and then the state is read and the output decided again.
func (h *Handler) decideFunc(ctx context.Context, env Envelope, decide func(Envelope, *contract.RunState) Decision) (Decision, error) {
	env, err := h.resolveReplay(ctx, env)
	if err != nil {
		return Decision{}, err
	}
	runID := env.Header(contract.HeaderRunID)
	keyed := strings.TrimSpace(runID) != "" && len(runID) <= MaxRunIDLen
	if keyed && firstAttempt(env) {
		d := decide(env, nil)
		if d.State != nil {
			rev, err := h.put(ctx, d.State, 0)
			if err == nil {
				d.recorded, d.revision = d.State, rev
				return d, nil
			}
			if !errors.Is(err, ErrStateConflict) {
				return Decision{}, fmt.Errorf("recording run %q: %w", d.RunID, err)
			}
		}
	}
	for range maxConflicts {
		var st *contract.RunState
		var rev uint64
		if keyed {
			var err error
			if st, rev, err = h.get(ctx, runID); err != nil {
				return Decision{}, fmt.Errorf("reading run %q: %w", runID, err)
			}
		}
		d := decide(env, st)
		if d.State == nil {
			if d.Republish {
				d.recorded, d.revision = st, rev
			}
			return d, nil
		}
		nrev, err := h.put(ctx, d.State, rev)
		if err == nil {
			d.recorded, d.revision = d.State, nrev
			return d, nil
		}
		if !errors.Is(err, ErrStateConflict) {
			return Decision{}, fmt.Errorf("recording run %q: %w", d.RunID, err)
		}
	}
	return Decision{}, fmt.Errorf("recording run %q: %w %d times", runID, ErrStateConflict, maxConflicts)
}

// firstAttempt reports whether env claims, or may be, a run's first
// attempt, and is no replay.
func firstAttempt(env Envelope) bool {
	if _, replay := env.Headers[contract.HeaderReplayOf]; replay {
		return false
	}
	a, ok := env.Headers[contract.HeaderAttempt]
	return !ok || len(a) == 1 && strings.TrimSpace(a[0]) == "1"
}

// get reads a run's state within the store timeout.
func (h *Handler) get(ctx context.Context, runID string) (*contract.RunState, uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, h.cfg.StoreTimeout)
	defer cancel()
	return h.cfg.Store.Get(ctx, runID)
}

// put records a run's state within the store timeout.
func (h *Handler) put(ctx context.Context, st *contract.RunState, rev uint64) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, h.cfg.StoreTimeout)
	defer cancel()
	return h.cfg.Store.Put(ctx, st, rev)
}

// publish publishes d's outcome and, when the publisher reports where it
// was stored and d is the run's recorded outcome, records that in the
// run's state.
func (h *Handler) publish(ctx context.Context, d Decision) error {
	out := message.NewMessage(d.MsgID, d.Payload)
	for k, v := range d.Headers() {
		out.Metadata.Set(k, v)
	}
	sp, ok := h.cfg.Publisher.(SeqPublisher)
	if !ok {
		if err := h.cfg.Publisher.Publish(d.Subject, out); err != nil {
			return fmt.Errorf("publishing %s outcome of run %q: %w", d.Outcome, d.RunID, err)
		}
		return nil
	}
	pctx, cancel := context.WithTimeout(ctx, h.cfg.PublishTimeout)
	seq, err := sp.PublishSeq(pctx, d.Subject, out)
	cancel()
	if err != nil {
		return fmt.Errorf("publishing %s outcome of run %q: %w", d.Outcome, d.RunID, err)
	}
	if d.recorded != nil && seq != 0 && d.recorded.OutcomeMsgID == d.MsgID {
		h.recordStored(ctx, d, seq)
	}
	return nil
}

// recordStored records in the run's state that its outcome is stored at
// seq. A failure costs nothing but the guarantee beyond the window for this
// one outcome, so it is logged, not returned (returning it would redeliver
// the input and publish again); a conflict means the run has moved on.
func (h *Handler) recordStored(ctx context.Context, d Decision, seq uint64) {
	next := *d.recorded
	next.OutcomeSeq = seq
	if _, err := h.put(ctx, &next, d.revision); err != nil && !errors.Is(err, ErrStateConflict) {
		h.cfg.Logger.WarnContext(ctx, "recording where the outcome is stored", "run_id", d.RunID,
			"attempt", d.Attempt, "seq", seq, "error", err)
	}
}

// EnvelopeFromMessage rebuilds the raw output from a message set up by the
// bus adapter (see the Meta* keys).
func EnvelopeFromMessage(msg *message.Message) Envelope {
	env := Envelope{
		Subject: msg.Metadata.Get(MetaSubject),
		Headers: make(map[string][]string, len(msg.Metadata)),
		Payload: msg.Payload,
	}
	env.Seq, _ = strconv.ParseUint(msg.Metadata.Get(MetaSeq), 10, 64)
	for k, v := range msg.Metadata {
		if !strings.HasPrefix(k, "_agentgate_") {
			env.Headers[k] = []string{v}
		}
	}
	if rep := msg.Metadata.Get(MetaRepeated); rep != "" {
		var all map[string][]string
		if json.Unmarshal([]byte(rep), &all) == nil {
			for k, vs := range all {
				env.Headers[k] = vs
			}
		}
	}
	return env
}
