package test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/gateway"
)

const invoiceSchema = "https://agentgate.dev/schemas/invoice/1.0.0"

// A business rule that fails is a retry request whose prompt names it; the
// corrected output passes; /metrics counts the failure by rule.
func TestGateway_ruleFailsThenPassesOnRetry(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	g := startGateway(t, b, func(c *gateway.Config) { c.ConfigDir = "testdata/rules" })

	wrong := `{"total": 10, "issued": "2026-11-02T00:00:00Z", "due": "2026-11-01T00:00:00Z",
		"items": [{"name": "a", "price": 2.5}, {"name": "b", "price": 5}]}`
	b.publish(raw{agent: "invoicer", run: "inv-1", attempt: 1, payload: wrong})
	o := b.awaitOutcomes("inv-1", 1)[0]
	if o.Headers.Get(contract.HeaderOutcome) != "retry" {
		t.Fatalf("outcome %s: %s", o.Headers.Get(contract.HeaderOutcome), o.Data)
	}
	vs, _ := field(o.Body, "error", "violations").([]any)
	want := []map[string]any{
		{"path": "$.due", "keyword": "rule", "rule": "due-after-issued", "message": "due must come after issued (rule due-after-issued)"},
		{"path": "$.total", "keyword": "rule", "rule": "total-is-sum", "message": "total must equal the sum of the items' prices (rule total-is-sum)"},
	}
	if len(vs) != len(want) {
		t.Fatalf("violations = %v", vs)
	}
	for i, w := range want {
		got := vs[i].(map[string]any)
		for k, v := range w {
			if got[k] != v {
				t.Errorf("violation %d: %s = %v, want %v", i, k, got[k], v)
			}
		}
	}
	prompt, _ := o.Body["retry_prompt"].(string)
	for _, line := range []string{"- $.due: due must come after issued (rule due-after-issued)", "- $.total: total must equal the sum of the items' prices"} {
		if !strings.Contains(prompt, line) {
			t.Errorf("retry prompt lacks %q:\n%s", line, prompt)
		}
	}

	fixed := `{"total": 7.5, "issued": "2026-11-01T00:00:00Z", "due": "2026-12-01T00:00:00Z",
		"items": [{"name": "a", "price": 2.5}, {"name": "b", "price": 5}]}`
	b.publish(raw{agent: "invoicer", run: "inv-1", attempt: 2, payload: fixed})
	var valid *outcome
	for _, o := range b.awaitOutcomes("inv-1", 2) {
		if o.Headers.Get(contract.HeaderAttempt) == "2" {
			valid = &o
		}
	}
	if valid == nil || valid.Headers.Get(contract.HeaderOutcome) != "valid" || field(valid.Body, "result_data", "total") != 7.5 {
		t.Fatalf("second outcome: %+v", valid)
	}
	b.awaitState("inv-1", contract.RunCompleted, 2)

	fams := scrape(t, g)
	for rule, want := range map[string]float64{"total-is-sum": 1, "due-after-issued": 1} {
		labels := map[string]string{"agent": "invoicer", "schema": invoiceSchema, "rule": rule}
		if v := metricValue(fams, "agentgate_rule_failures_total", labels); v != want {
			t.Errorf("agentgate_rule_failures_total%v = %v, want %v", labels, v, want)
		}
	}

	// The blueprint shows its rules.
	var bp map[string]any
	getJSON(t, g, "/v1/agents/invoicer", http.StatusOK, &bp)
	if rs, _ := bp["rules"].([]any); len(rs) != 1 || field(rs[0].(map[string]any), "name") != "due-after-issued" {
		t.Errorf("GET /v1/agents/invoicer rules = %v", bp["rules"])
	}
}
