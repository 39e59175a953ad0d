package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"

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

// storeTimeout bounds the run-state round trips of one message.
const storeTimeout = 10 * time.Second

// RunStore keeps each run's state. Get returns nil and revision 0 for a run
// never seen; Put with revision 0 creates the entry, otherwise it updates
// it only if it is still at revision, and returns ErrStateConflict when it
// is not.
type RunStore interface {
	Get(ctx context.Context, runID string) (*contract.RunState, uint64, error)
	Put(ctx context.Context, st *contract.RunState, revision uint64) error
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
	// Observer is optional.
	Observer Observer
	Logger   *slog.Logger
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
	cfg HandlerConfig
}

// NewHandler returns a Handler, or ErrBadConfig.
func NewHandler(cfg HandlerConfig) (*Handler, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Handler{cfg: cfg}, nil
}

// Handle processes one raw output. Its signature is
// message.NoPublishHandlerFunc.
func (h *Handler) Handle(msg *message.Message) error {
	start := time.Now()
	// The router cancels the message's context when it shuts down; a
	// message already in hand is finished all the same, bounded in time.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(msg.Context()), storeTimeout)
	defer cancel()
	env := EnvelopeFromMessage(msg)

	var st *contract.RunState
	var rev uint64
	runID := env.Header(contract.HeaderRunID)
	if strings.TrimSpace(runID) != "" && len(runID) <= MaxRunIDLen {
		var err error
		if st, rev, err = h.cfg.Store.Get(ctx, runID); err != nil {
			return fmt.Errorf("reading run %q: %w", runID, err)
		}
	}

	d := h.cfg.Gate.Decide(env, st)
	if d.Outcome == "" {
		h.cfg.Logger.DebugContext(ctx, "attempt already has an outcome", "run_id", d.RunID, "attempt", d.Attempt)
		return nil
	}
	if err := h.publish(d); err != nil {
		return err
	}
	if d.State != nil {
		if err := h.record(ctx, d, rev); err != nil {
			return err
		}
	}
	if h.cfg.Observer != nil {
		h.cfg.Observer.Observe(d, time.Since(start))
	}
	h.cfg.Logger.DebugContext(ctx, "outcome", "run_id", d.RunID, "agent_id", d.AgentID,
		"attempt", d.Attempt, "outcome", d.Outcome, "error_type", d.ErrorType)
	return nil
}

func (h *Handler) publish(d Decision) error {
	out := message.NewMessage(d.MsgID, d.Payload)
	for k, v := range d.Headers() {
		out.Metadata.Set(k, v)
	}
	if err := h.cfg.Publisher.Publish(d.Subject, out); err != nil {
		return fmt.Errorf("publishing %s outcome of run %q: %w", d.Outcome, d.RunID, err)
	}
	return nil
}

// record stores the run's new state. When another replica got there first,
// its record stands as long as it covers this attempt; otherwise the input
// is redelivered and decided again on the fresh state.
func (h *Handler) record(ctx context.Context, d Decision, rev uint64) error {
	err := h.cfg.Store.Put(ctx, d.State, rev)
	if !errors.Is(err, ErrStateConflict) {
		if err != nil {
			return fmt.Errorf("recording run %q: %w", d.RunID, err)
		}
		return nil
	}
	now, _, gerr := h.cfg.Store.Get(ctx, d.RunID)
	if gerr != nil {
		return fmt.Errorf("re-reading run %q: %w", d.RunID, gerr)
	}
	if now != nil && now.Attempts >= d.Attempt {
		return nil
	}
	return fmt.Errorf("recording run %q: %w", d.RunID, err)
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
