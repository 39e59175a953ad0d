package gateway

import (
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/rules"
)

// Label values that stand for many.
const (
	// unknownAgentLabel stands for every agent without a blueprint, so that
	// outputs naming arbitrary agents cannot grow the metrics without bound.
	unknownAgentLabel = "_unknown"
	// noSchemaLabel is the schema label of outcomes checked against none.
	noSchemaLabel = "none"
	// otherPathLabel replaces new paths once an agent has maxPathsPerAgent.
	otherPathLabel = "_other"
	// maxPathsPerAgent bounds the distinct path labels of one agent.
	maxPathsPerAgent = 256
)

// Metrics is the gateway's drift telemetry for Prometheus, per agent and
// schema $id: outcomes, dead letters, violations by keyword and by schema
// path, normalizations by op and path, what retries led to, and the
// pipeline's latency. Paths have array indices folded to [*], and the
// member names a closed object refused (stripped or rejected) folded to *,
// so their number is bounded by the schema; a cap per agent guards the
// rest. It is a handlers.Observer.
type Metrics struct {
	known func(agent string) bool

	reg            *prometheus.Registry
	drift          *prometheus.Registry // the counters GET /v1/drift sums
	outcomes       *prometheus.CounterVec
	deadLetters    *prometheus.CounterVec
	violations     *prometheus.CounterVec
	normalizations *prometheus.CounterVec
	retryResults   *prometheus.CounterVec
	ruleFailures   *prometheus.CounterVec
	refusals       *prometheus.CounterVec
	latency        *prometheus.HistogramVec

	mu    sync.Mutex
	paths map[string]map[string]bool // agent → path labels in use
}

var _ handlers.Observer = (*Metrics)(nil)

// NewMetrics registers agentgate's metrics, and the Go and process
// collectors, on a registry of its own. known tells which agent names may
// be labels.
func NewMetrics(known func(agent string) bool) *Metrics {
	m := &Metrics{
		known: known,
		reg:   prometheus.NewRegistry(),
		drift: prometheus.NewRegistry(),
		paths: map[string]map[string]bool{},
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agentgate_outcomes_total",
			Help: "Outcomes published, by agent, schema and outcome (valid, retry, refused, dlq).",
		}, []string{"agent", "schema", "outcome"}),
		deadLetters: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agentgate_dead_letters_total",
			Help: "Dead letters published, by agent, schema and error type.",
		}, []string{"agent", "schema", "type"}),
		violations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agentgate_violations_total",
			Help: "Schema violations found in outputs, by agent, schema, keyword and path (indices folded to [*]).",
		}, []string{"agent", "schema", "keyword", "path"}),
		normalizations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agentgate_normalizations_total",
			Help: "Normalizations applied to outputs, by agent, schema, op and path (indices folded to [*]).",
		}, []string{"agent", "schema", "op", "path"}),
		retryResults: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agentgate_retry_results_total",
			Help: "Outcomes of attempts after the first, by agent, schema and outcome: valid / all is the retries' success rate.",
		}, []string{"agent", "schema", "outcome"}),
		ruleFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agentgate_rule_failures_total",
			Help: "Business rules (CEL) that outputs failed, by agent, schema and rule name.",
		}, []string{"agent", "schema", "rule"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agentgate_refusals_total",
			Help: "Refusals published, by agent and detection (header, object, text, pattern).",
		}, []string{"agent", "detection"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "agentgate_pipeline_seconds",
			Help:    "Time from taking a raw output to publishing its outcome, by agent and outcome.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14),
		}, []string{"agent", "outcome"}),
	}
	m.reg.MustRegister(m.outcomes, m.deadLetters, m.violations, m.normalizations, m.retryResults, m.ruleFailures, m.refusals, m.latency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.drift.MustRegister(m.outcomes, m.violations, m.normalizations, m.retryResults)
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
	schema := d.SchemaID
	if schema == "" {
		schema = noSchemaLabel
	}
	m.outcomes.WithLabelValues(agent, schema, string(d.Outcome)).Inc()
	if d.ErrorType != "" {
		m.deadLetters.WithLabelValues(agent, schema, string(d.ErrorType)).Inc()
	}
	if d.Outcome == contract.OutcomeRefused {
		m.refusals.WithLabelValues(agent, d.Refusal).Inc()
	}
	if d.Attempt > 1 {
		m.retryResults.WithLabelValues(agent, schema, string(d.Outcome)).Inc()
	}
	for _, v := range d.Violations {
		refused := v.Keyword == "additionalProperties"
		m.violations.WithLabelValues(agent, schema, v.Keyword, m.pathLabel(agent, v.Path, refused)).Inc()
		if v.Keyword == rules.Keyword && v.Rule != "" {
			// Rule names come from the configuration: a bounded label.
			m.ruleFailures.WithLabelValues(agent, schema, v.Rule).Inc()
		}
	}
	for _, n := range d.Normalizations {
		m.normalizations.WithLabelValues(agent, schema, n.Op, m.pathLabel(agent, n.Path, n.Op == contract.OpStrip)).Inc()
	}
	if took > 0 {
		m.latency.WithLabelValues(agent, string(d.Outcome)).Observe(took.Seconds())
	}
}

// pathLabel folds a JSONPath to a bounded label: array indices become [*],
// and when the last member is one the schema does not know (refused), it
// becomes *. Past maxPathsPerAgent distinct labels an agent's new ones are
// otherPathLabel.
func (m *Metrics) pathLabel(agent, path string, refused bool) string {
	segs := contract.SplitPath(path)
	var b strings.Builder
	b.WriteString("$")
	for i, s := range segs {
		switch {
		case strings.HasPrefix(s, "[") && !strings.HasPrefix(s, "['"):
			b.WriteString("[*]")
		case refused && i == len(segs)-1:
			b.WriteString(".*")
		default:
			b.WriteString(s)
		}
	}
	label := b.String()
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := m.paths[agent]
	if seen == nil {
		seen = map[string]bool{}
		m.paths[agent] = seen
	}
	if !seen[label] {
		if len(seen) >= maxPathsPerAgent {
			return otherPathLabel
		}
		seen[label] = true
	}
	return label
}
