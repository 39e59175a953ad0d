package handlers

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/agentgate/agentgate/contract"
)

// Limits on the work one raw output may cause (contract section 13). Each
// ends in an outcome, never in an endless redelivery.
const (
	// DefaultDecisionTimeout bounds the decision on one output (extract,
	// repair, normalize, validate, build the outcome); past it the output
	// is a processing_limit dead letter (limit "decision_time").
	DefaultDecisionTimeout = 5 * time.Second
	// DefaultMaxInFlightBytes bounds the bytes of payload being decided at
	// once. Deciding costs memory in proportion to the payload (up to a
	// few hundred bytes per byte for a hostile one), so a count of workers
	// alone does not bound memory.
	DefaultMaxInFlightBytes = 8 << 20
	// DefaultMaxDeliver is how often a raw output is delivered before one
	// that still fails (the store or the bus failing it every time) is a
	// processing_limit dead letter (limit "max_deliver").
	DefaultMaxDeliver = 5
	// DefaultCloseTimeout bounds Handler.Close.
	DefaultCloseTimeout = 10 * time.Second
	// DefaultMaxValues bounds the values (members, elements and scalars)
	// of one candidate document before it is validated: validation costs
	// memory per value and per violation (100,000 extra members under
	// extra_fields "reject" took about 500 MB and minutes each), and an
	// agent's output has a few hundred. Over it, the document is a
	// violation at $ (keyword json), a retry request.
	DefaultMaxValues = 50_000
)

// overValues reports whether doc holds more than limit values, counting no
// further than that.
func overValues(doc any, limit int) bool {
	n := 0
	var count func(v any) bool
	count = func(v any) bool {
		n++
		if n > limit {
			return true
		}
		switch t := v.(type) {
		case map[string]any:
			for _, x := range t {
				if count(x) {
					return true
				}
			}
		case []any:
			for _, x := range t {
				if count(x) {
					return true
				}
			}
		}
		return false
	}
	return count(doc)
}

// Processing limits named in a processing_limit dead letter's error.limit.
const (
	LimitDecisionTime = "decision_time"
	LimitMaxDeliver   = "max_deliver"
)

// inFlight holds one message's share of the bytes in flight: the handler
// holds it while it handles the message, each decision while it runs, and
// the bytes go back once all have let go (a decision abandoned past its
// limit runs on, and keeps them until it ends).
type inFlight struct {
	sem   *semaphore.Weighted
	n     int64
	holds atomic.Int32
}

// reserve waits for n bytes of the budget (at most the whole budget, so
// that one large payload waits for an empty gateway rather than forever).
func (h *Processor) reserve(ctx context.Context, n int) (*inFlight, error) {
	w := min(int64(max(n, 1)), int64(h.cfg.MaxInFlightBytes))
	ctx, cancel := context.WithTimeout(ctx, h.cfg.StoreTimeout)
	defer cancel()
	if err := h.inflight.Acquire(ctx, w); err != nil {
		return nil, fmt.Errorf("waiting for %d bytes of the in-flight budget: %w", w, err)
	}
	r := &inFlight{sem: h.inflight, n: w}
	r.holds.Store(1)
	return r, nil
}

func (r *inFlight) hold() { r.holds.Add(1) }

func (r *inFlight) release() {
	if r.holds.Add(-1) == 0 {
		r.sem.Release(r.n)
	}
}

// bounded wraps a deciding function so that it runs on the handler's
// deciders within DecisionTimeout; a decision that overruns it is replaced
// by a processing_limit dead letter, and runs on, unobserved, holding its
// bytes in flight until it ends.
func (h *Processor) bounded(res *inFlight, decide func(Envelope, *contract.RunState) Decision) func(Envelope, *contract.RunState) Decision {
	return func(env Envelope, st *contract.RunState) Decision {
		var d Decision
		res.hold()
		start := time.Now()
		_, late := h.deciders.DoWithin(func() error { d = decide(env, st); return nil }, h.cfg.DecisionTimeout, res.release)
		if !late {
			return d
		}
		h.cfg.Logger.Warn("decision over its time limit: dead-lettered as processing_limit",
			"run_id", env.Header(contract.HeaderRunID), "limit", h.cfg.DecisionTimeout, "bytes", len(env.Payload))
		return h.cfg.Gate.ProcessingLimit(env, st, LimitDecisionTime,
			fmt.Sprintf("deciding the output took over the limit of %s (%s waited)", h.cfg.DecisionTimeout, time.Since(start).Round(time.Millisecond)), 0)
	}
}
