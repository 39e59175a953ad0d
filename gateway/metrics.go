package gateway

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/agentgate/agentgate/handlers"
)

// unknownAgentLabel stands for every agent without a blueprint, so that
// outputs naming arbitrary agents cannot grow the metrics without bound.
const unknownAgentLabel = "_unknown"

// Metrics counts outcomes for Prometheus. It is a handlers.Observer.
type Metrics struct {
	known func(agent string) bool

	reg            *prometheus.Registry
	outcomes       *prometheus.CounterVec
	deadLetters    *prometheus.CounterVec
	violations     *prometheus.CounterVec
	normalizations *prometheus.CounterVec
	latency        *prometheus.HistogramVec
}

var _ handlers.Observer = (*Metrics)(nil)

// NewMetrics registers agentgate's metrics, and the Go and process
// collectors, on a registry of its own. known tells which agent names may
// be labels.
func NewMetrics(known func(agent string) bool) *Metrics {
	m := &Metrics{
		known: known,
		reg:   prometheus.NewRegistry(),
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agentgate_outcomes_total",
			Help: "Outcomes published, by agent and outcome (valid, retry, refused, dlq).",
		}, []string{"agent", "outcome"}),
		deadLetters: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agentgate_dead_letters_total",
			Help: "Dead letters published, by agent and error type.",
		}, []string{"agent", "type"}),
		violations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agentgate_violations_total",
			Help: "Schema violations found in outputs, by agent and JSON Schema keyword.",
		}, []string{"agent", "keyword"}),
		normalizations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agentgate_normalizations_total",
			Help: "Normalizations applied to outputs, by agent and op.",
		}, []string{"agent", "op"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "agentgate_pipeline_seconds",
			Help:    "Time from taking a raw output to recording its outcome, by outcome.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14),
		}, []string{"outcome"}),
	}
	m.reg.MustRegister(m.outcomes, m.deadLetters, m.violations, m.normalizations, m.latency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registry is what /metrics serves.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Observe implements handlers.Observer.
func (m *Metrics) Observe(d handlers.Decision, took time.Duration) {
	agent := d.AgentID
	if !m.known(agent) {
		agent = unknownAgentLabel
	}
	m.outcomes.WithLabelValues(agent, string(d.Outcome)).Inc()
	if d.ErrorType != "" {
		m.deadLetters.WithLabelValues(agent, string(d.ErrorType)).Inc()
	}
	for _, v := range d.Violations {
		m.violations.WithLabelValues(agent, v.Keyword).Inc()
	}
	for _, n := range d.Normalizations {
		m.normalizations.WithLabelValues(agent, n.Op).Inc()
	}
	if took > 0 {
		m.latency.WithLabelValues(string(d.Outcome)).Observe(took.Seconds())
	}
}
