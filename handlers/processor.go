package handlers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/internal/workers"
)

// DefaultStoreTimeout bounds each run-state call, from the moment it
// starts, and DefaultPublishTimeout each outcome's emission.
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

// Emitter sends outcomes on their way: the one door from the pipeline to
// the bus. Emit publishes d's outcome message (d.Payload, with d.Headers()
// and d.MsgID as its de-duplication id) where outcomes of its kind go, and
// returns the sequence it was stored at, or 0 when the bus does not say.
//
// A Republish is an outcome that may be stored already (the input that
// produced it is delivered again): Emit must store it at most once in all,
// however long after d.RecordedAt it comes, looking it up where the bus's
// own de-duplication no longer covers it, and return the sequence of the
// copy stored.
type Emitter interface {
	Emit(ctx context.Context, d Decision) (seq uint64, err error)
}

// Observer is told of every decision, for telemetry.
type Observer interface {
	Observe(d Decision, took time.Duration)
}

// ProcessorConfig configures a Processor.
type ProcessorConfig struct {
	Gate    *Gate
	Store   RunStore
	Emitter Emitter
	// Chunks keeps the chunks of streamed outputs; optional (without it
	// ProcessChunk fails).
	Chunks ChunkStore
	// DeadLetters looks up the dead letters replays name (contract
	// section 3.4); without it every Replay-Of is an invalid_envelope.
	DeadLetters DeadLetters
	// Observer is optional.
	Observer Observer
	// Concurrency is how many outputs may be processed at once (default
	// 4 × GOMAXPROCS): the processor keeps as many goroutines to decide
	// them on.
	Concurrency int
	// StoreTimeout bounds each run-state call from its start (default
	// DefaultStoreTimeout); PublishTimeout each emission (default
	// DefaultPublishTimeout).
	StoreTimeout   time.Duration
	PublishTimeout time.Duration
	// DecisionTimeout bounds the decision on one output (default
	// DefaultDecisionTimeout); past it the output is a processing_limit
	// dead letter.
	DecisionTimeout time.Duration
	// MaxInFlightBytes bounds the bytes of payload decided at once
	// (default DefaultMaxInFlightBytes).
	MaxInFlightBytes int
	// MaxDeliver is how often the bus delivers an output: at the last
	// delivery, an output that still fails is a processing_limit dead
	// letter (default DefaultMaxDeliver).
	MaxDeliver int
	// CloseTimeout bounds Close (default DefaultCloseTimeout).
	CloseTimeout time.Duration
	Logger       *slog.Logger
}

func (c *ProcessorConfig) setDefaults() {
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
func (c ProcessorConfig) Validate() error {
	var errs []error
	if c.Gate == nil {
		errs = append(errs, fmt.Errorf("%w: no gate", ErrBadConfig))
	}
	if c.Store == nil {
		errs = append(errs, fmt.Errorf("%w: no run store", ErrBadConfig))
	}
	if c.Emitter == nil {
		errs = append(errs, fmt.Errorf("%w: no emitter", ErrBadConfig))
	}
	return errors.Join(errs...)
}

// Processor is the pipeline's core, free of the bus: given an envelope it
// reads the run's state, asks the Gate for a decision, records the run's
// new state, emits the outcome and tells the Observer. It returns an
// error only for what a retry can fix (the store or the bus is
// unreachable); every domain failure is an outcome. The bus adapter turns
// each message into an envelope and acks when it returns nil.
type Processor struct {
	cfg ProcessorConfig
	// deciders run the decisions, each within DecisionTimeout.
	deciders *workers.Pool
	// inflight holds the bytes of payload being decided.
	inflight *semaphore.Weighted
}

// NewProcessor returns a Processor, or ErrBadConfig. The limits of the
// configuration default as documented on ProcessorConfig.
func NewProcessor(cfg ProcessorConfig) (*Processor, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Chunks != nil {
		cfg.Chunks = timedChunks{ChunkStore: cfg.Chunks, timeout: cfg.StoreTimeout}
	}
	return &Processor{cfg: cfg, deciders: workers.New(cfg.Concurrency),
		inflight: semaphore.NewWeighted(int64(cfg.MaxInFlightBytes))}, nil
}

// MaxDeliver is the MaxDeliver the bus's consumers must have: at that
// delivery an output that still fails is dead-lettered.
func (h *Processor) MaxDeliver() int { return h.cfg.MaxDeliver }

// MaxInHand bounds how long one output can take in Process: its decision,
// and its run-state calls (reads and writes, retried on conflicts) and
// publish, each within its own limit.
func (h *Processor) MaxInHand() time.Duration {
	return h.cfg.DecisionTimeout + 2*maxConflicts*h.cfg.StoreTimeout + 2*h.cfg.PublishTimeout
}

// Close stops the processor's goroutines. Call it once no output is
// processed any more (after the router closed); safe to call twice. It
// waits at most CloseTimeout for a decision still running past its limit,
// then returns ErrCloseTimeout and leaves it to end with the process.
func (h *Processor) Close() error {
	if !h.deciders.Close(h.cfg.CloseTimeout) {
		return fmt.Errorf("%w after %s", ErrCloseTimeout, h.cfg.CloseTimeout)
	}
	return nil
}

// maxConflicts bounds how often one message re-reads the run's state after
// losing a compare-and-set to another replica before it is redelivered.
const maxConflicts = 5

// Process decides one output and sees its outcome out: it reads the run's
// state, asks the Gate for a decision, records the run's new state with
// compare-and-set, then emits the outcome and returns the decision (with
// no Outcome when the (run, attempt) already had one).
//
// Recording before emitting means an executor that sees a retry request
// finds the run already waiting for its next attempt, whichever replica
// takes the answer. A redelivered input (a stop between recording and
// emitting, a lost ack, a long outage) is known by its Origin, which the
// state names: the recorded outcome is emitted again as a Republish, which
// the Emitter stores only if it is not stored yet. The error is only for
// what a retry can fix (the bus or the store is unreachable).
func (h *Processor) Process(ctx context.Context, env Envelope) (Decision, error) {
	return h.Submit(ctx, env, nil)
}

// decideFunc reads the run's state, decides with decide, and records the
// new state. When another replica changed the state in between, it decides
// again on the fresh state (which may then say the attempt is already
// answered).
//
// A first attempt is decided optimistically as the start of a new run,
// saving the read: creating the run's entry fails if the run exists after
// all, and then the state is read and the output decided again.
func (h *Processor) decideFunc(ctx context.Context, env Envelope, decide func(Envelope, *contract.RunState) Decision) (Decision, error) {
	env, err := h.resolveReplay(ctx, env)
	if err != nil {
		return Decision{}, err
	}
	runID := env.Header(contract.HeaderRunID)
	keyed := strings.TrimSpace(runID) != "" && len(runID) <= MaxRunIDLen
	if keyed && firstAttempt(env) {
		d := decide(env, nil)
		if d.State != nil {
			_, err := h.put(ctx, d.State, 0)
			if err == nil {
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
			return d, nil
		}
		_, err := h.put(ctx, d.State, rev)
		if err == nil {
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
func (h *Processor) get(ctx context.Context, runID string) (*contract.RunState, uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, h.cfg.StoreTimeout)
	defer cancel()
	return h.cfg.Store.Get(ctx, runID)
}

// put records a run's state within the store timeout.
func (h *Processor) put(ctx context.Context, st *contract.RunState, rev uint64) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, h.cfg.StoreTimeout)
	defer cancel()
	return h.cfg.Store.Put(ctx, st, rev)
}

// publish emits d's outcome within the publish timeout.
func (h *Processor) publish(ctx context.Context, d Decision) error {
	ctx, cancel := context.WithTimeout(ctx, h.cfg.PublishTimeout)
	defer cancel()
	if _, err := h.cfg.Emitter.Emit(ctx, d); err != nil {
		return fmt.Errorf("publishing %s outcome of run %q: %w", d.Outcome, d.RunID, err)
	}
	return nil
}
