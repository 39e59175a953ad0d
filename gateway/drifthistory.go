package gateway

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/agentgate/agentgate/contract"
)

// Defaults of the drift history (Config.DriftInterval, Config.DriftPoints):
// a point every 10 s for an hour.
const (
	DefaultDriftInterval = 10 * time.Second
	DefaultDriftPoints   = 360
	// MinDriftInterval and MaxDriftPoints bound what Config may ask for:
	// a sample every 50 ms at the most, and a day of points at the
	// default interval (each ~100 bytes, so ~220 MB for maxDriftAgents
	// full rings, and ~1.3 MB of JSON in one agent's GET /v1/drift).
	MinDriftInterval = 50 * time.Millisecond
	MaxDriftPoints   = 8640
	// maxDriftAgents bounds the agents with a history. Agent labels are
	// already bounded (blueprint names, and unknownAgentLabel for the
	// rest), but blueprints come and go through the registry API; past
	// this many, new agents get no history (their totals still show).
	maxDriftAgents = 256
)

// driftTotals are an agent's cumulative counts at one moment, indexed as
// contract.Outcomes.
type driftTotals struct {
	outcomes       [4]float64
	retries        [4]float64
	normalizations float64
	violations     float64
}

// driftSample is one point of an agent's history.
type driftSample struct {
	t time.Time
	driftTotals
}

// driftPoint is a driftSample as GET /v1/drift shows it.
type driftPoint struct {
	T              time.Time          `json:"t"`
	Outcomes       map[string]float64 `json:"outcomes"`
	Retries        map[string]float64 `json:"retries"`
	Normalizations float64            `json:"normalizations"`
	Violations     float64            `json:"violations"`
}

// driftRing is the last points of one agent, oldest at start.
type driftRing struct {
	buf   []driftSample
	start int
}

// driftHistory samples the drift counters of Metrics every interval and
// keeps the last points of each agent: bounded memory, at most
// maxDriftAgents rings of at most points samples.
type driftHistory struct {
	metrics  *Metrics
	logger   *slog.Logger
	interval time.Duration
	points   int

	mu     sync.Mutex
	agents map[string]*driftRing

	stop context.CancelFunc
	done chan struct{}
}

func newDriftHistory(m *Metrics, logger *slog.Logger, interval time.Duration, points int) *driftHistory {
	if interval <= 0 {
		interval = DefaultDriftInterval
	}
	if points <= 0 {
		points = DefaultDriftPoints
	}
	return &driftHistory{metrics: m, logger: logger, interval: interval, points: points, agents: map[string]*driftRing{}}
}

// start samples every interval until close.
func (h *driftHistory) start() {
	ctx, stop := context.WithCancel(context.Background())
	h.stop, h.done = stop, make(chan struct{})
	go func() {
		defer close(h.done)
		tick := time.NewTicker(h.interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-tick.C:
				h.sample(now)
			}
		}
	}()
}

// close stops the sampling and waits for it; safe on a history never
// started.
func (h *driftHistory) close() {
	if h.stop != nil {
		h.stop()
		<-h.done
	}
}

// sample records a point for every agent the counters know.
func (h *driftHistory) sample(now time.Time) {
	totals, err := h.metrics.driftTotals()
	if err != nil {
		h.logger.Warn("drift history: gathering the metrics failed", "error", err)
		return
	}
	now = now.UTC().Truncate(time.Millisecond)
	h.mu.Lock()
	defer h.mu.Unlock()
	for agent, t := range totals {
		r := h.agents[agent]
		if r == nil {
			if len(h.agents) >= maxDriftAgents {
				continue
			}
			r = &driftRing{buf: make([]driftSample, 0, min(h.points, 16))}
			h.agents[agent] = r
		}
		s := driftSample{t: now, driftTotals: t}
		if len(r.buf) < h.points {
			r.buf = append(r.buf, s)
			continue
		}
		r.buf[r.start] = s
		r.start = (r.start + 1) % len(r.buf)
	}
}

// history is the agent's points, oldest first; empty, not nil, when none.
func (h *driftHistory) history(agent string) []driftPoint {
	h.mu.Lock()
	var samples []driftSample
	if r := h.agents[agent]; r != nil {
		samples = slices.Concat(r.buf[r.start:], r.buf[:r.start])
	}
	h.mu.Unlock()
	out := make([]driftPoint, 0, len(samples))
	for _, s := range samples {
		p := driftPoint{T: s.t, Outcomes: make(map[string]float64, len(contract.Outcomes)), Retries: make(map[string]float64, len(contract.Outcomes)),
			Normalizations: s.normalizations, Violations: s.violations}
		for i, o := range contract.Outcomes[:len(s.outcomes)] {
			p.Outcomes[string(o)] = s.outcomes[i]
			p.Retries[string(o)] = s.retries[i]
		}
		out = append(out, p)
	}
	return out
}

// driftTotals sums the drift counters by agent, over schemas, paths and
// keywords.
func (m *Metrics) driftTotals() (map[string]driftTotals, error) {
	families, err := m.drift.Gather()
	if err != nil {
		return nil, err
	}
	out := map[string]driftTotals{}
	for _, f := range families {
		for _, dm := range f.GetMetric() {
			l := labels(dm)
			agent := l["agent"]
			t := out[agent]
			v := dm.GetCounter().GetValue()
			switch f.GetName() {
			case "agentgate_outcomes_total":
				if i := outcomeIndex(l["outcome"]); i >= 0 {
					t.outcomes[i] += v
				}
			case "agentgate_retry_results_total":
				if i := outcomeIndex(l["outcome"]); i >= 0 {
					t.retries[i] += v
				}
			case "agentgate_normalizations_total":
				t.normalizations += v
			case "agentgate_violations_total":
				t.violations += v
			default:
				continue
			}
			out[agent] = t
		}
	}
	return out, nil
}

// outcomeIndex is the index of an outcome in contract.Outcomes, or -1.
func outcomeIndex(outcome string) int {
	i := slices.Index(contract.Outcomes, contract.Outcome(outcome))
	if i >= len(driftTotals{}.outcomes) {
		return -1
	}
	return i
}
