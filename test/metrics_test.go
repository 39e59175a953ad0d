package test

import (
	"fmt"
	"net/http"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

const prSchema = "https://agentgate.dev/schemas/pr-review/1.0.0"

// After a known mix of outputs, /metrics counts exactly that mix: outcomes,
// dead letters, violations and normalizations by folded path, and what the
// retries led to.
func TestGateway_driftTelemetry(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	g := startGateway(t, b)

	drifted1 := "```json\n" + `{"summary":"s","approval":"approve","review_comments":[{"file":"a.go","line":1,"severity":"nitpick","message":"m","trigger_pattern":"x"}]}` + "\n```"
	drifted2 := "```json\n" + `{"summary":"s","approval":"approve","review_comments":[{"file":"a.go","line":1,"severity":"nitpick","message":"m","score":1},{"file":"b.go","line":2,"severity":"concern","message":"m","score":2}]}` + "\n```"
	for i := range 3 {
		b.publish(raw{agent: "pr-reviewer", run: fmt.Sprintf("ok-%d", i), payload: validReview})
	}
	b.publish(raw{agent: "pr-reviewer", run: "drift-1", payload: drifted1})
	b.publish(raw{agent: "pr-reviewer", run: "drift-2", payload: drifted2})
	b.publish(raw{agent: "pr-reviewer", run: "fixed", attempt: 1, payload: badReview})
	b.publish(raw{agent: "pr-reviewer", run: "stubborn", attempt: 1, payload: badReview})
	b.publish(raw{agent: "pr-reviewer", run: "refusal", payload: `{"refusal":"no"}`})
	b.publish(raw{agent: "someone-else", run: "stray", payload: validReview})
	b.awaitIdle()
	b.publish(raw{agent: "pr-reviewer", run: "fixed", attempt: 2, payload: validReview})
	b.publish(raw{agent: "pr-reviewer", run: "stubborn", attempt: 2, payload: badReview})
	b.awaitIdle()

	fams := scrape(t, g)
	tests := []struct {
		metric string
		labels map[string]string
		want   float64
	}{
		{"agentgate_outcomes_total", map[string]string{"agent": "pr-reviewer", "schema": prSchema, "outcome": "valid"}, 6},
		{"agentgate_outcomes_total", map[string]string{"agent": "pr-reviewer", "schema": prSchema, "outcome": "retry"}, 2},
		{"agentgate_outcomes_total", map[string]string{"agent": "pr-reviewer", "schema": prSchema, "outcome": "refused"}, 1},
		{"agentgate_outcomes_total", map[string]string{"agent": "pr-reviewer", "schema": prSchema, "outcome": "dlq"}, 1},
		{"agentgate_outcomes_total", map[string]string{"agent": "_unknown", "schema": "none", "outcome": "dlq"}, 1},
		{"agentgate_dead_letters_total", map[string]string{"agent": "pr-reviewer", "schema": prSchema, "type": "output_schema_validation_failed"}, 1},
		{"agentgate_dead_letters_total", map[string]string{"agent": "_unknown", "schema": "none", "type": "unknown_agent"}, 1},
		{"agentgate_violations_total", map[string]string{"agent": "pr-reviewer", "schema": prSchema, "keyword": "enum", "path": "$.approval"}, 3},
		{"agentgate_normalizations_total", map[string]string{"agent": "pr-reviewer", "schema": prSchema, "op": "extract", "path": "$"}, 2},
		{"agentgate_normalizations_total", map[string]string{"agent": "pr-reviewer", "schema": prSchema, "op": "rename", "path": "$"}, 2},
		{"agentgate_normalizations_total", map[string]string{"agent": "pr-reviewer", "schema": prSchema, "op": "strip", "path": "$.comments[*].*"}, 3},
		{"agentgate_retry_results_total", map[string]string{"agent": "pr-reviewer", "schema": prSchema, "outcome": "valid"}, 1},
		{"agentgate_retry_results_total", map[string]string{"agent": "pr-reviewer", "schema": prSchema, "outcome": "dlq"}, 1},
	}
	for _, tt := range tests {
		if got := metricValue(fams, tt.metric, tt.labels); got != tt.want {
			t.Errorf("%s%v = %v, want %v", tt.metric, tt.labels, got, tt.want)
		}
	}
	// Every one of the 11 outcomes was timed.
	var timed uint64
	for _, m := range fams["agentgate_pipeline_seconds"].GetMetric() {
		timed += m.GetHistogram().GetSampleCount()
	}
	if timed != 11 {
		t.Errorf("pipeline latency observed %d outcomes, want 11", timed)
	}
}

func scrape(t *testing.T, g *runningGateway) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get("http://" + g.HTTPAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// metricValue is the value of the counter with exactly these labels (0
// when there is none).
func metricValue(fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	for _, m := range fams[name].GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		match := true
		for _, l := range m.GetLabel() {
			if labels[l.GetName()] != l.GetValue() {
				match = false
			}
		}
		if match {
			return m.GetCounter().GetValue()
		}
	}
	return 0
}
