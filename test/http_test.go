package test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestGateway_httpAPI(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	g := startGateway(t, b)

	var agents []map[string]any
	getJSON(t, g, "/v1/agents", http.StatusOK, &agents)
	names := map[any]bool{}
	for _, a := range agents {
		names[a["name"]] = true
	}
	for _, want := range []string{"pr-reviewer", "code-analyzer", "tripwire-candidates"} {
		if !names[want] {
			t.Errorf("GET /v1/agents lacks %s: %v", want, agents)
		}
	}
	var bp map[string]any
	getJSON(t, g, "/v1/agents/pr-reviewer", http.StatusOK, &bp)
	if bp["output_schema"] != "https://agentgate.dev/schemas/pr-review/1.0.0" || bp["max_retries"] != 1.0 {
		t.Errorf("blueprint = %v", bp)
	}
	getJSON(t, g, "/v1/agents/nobody", http.StatusNotFound, nil)

	// The schema as the model should see it (contract section 3.2): $id
	// and x-aliases left out.
	prompt := getText(t, g, "/v1/agents/pr-reviewer/prompt", http.StatusOK)
	i := strings.LastIndex(prompt, "## ")
	if i < 0 || !strings.HasPrefix(prompt[i:], "## Required Output Format") || !strings.Contains(prompt[i:], `"title": "Pull request review"`) ||
		strings.Contains(prompt, "$id") || strings.Contains(prompt, "x-aliases") {
		t.Errorf("prompt's last section is not the output format:\n%s", prompt)
	}

	var list []map[string]any
	getJSON(t, g, "/v1/schemas", http.StatusOK, &list)
	if len(list) < 3 {
		t.Errorf("GET /v1/schemas = %v", list)
	}
	id := "https://agentgate.dev/schemas/pr-review/1.0.0"
	var schema map[string]any
	getJSON(t, g, "/v1/schemas/"+url.PathEscape(id), http.StatusOK, &schema)
	if schema["$id"] != id {
		t.Errorf("GET /v1/schemas/{id} = %v", schema)
	}
	getJSON(t, g, "/v1/schemas/"+url.PathEscape("https://agentgate.dev/schemas/none/1.0.0"), http.StatusNotFound, nil)

	// Metrics count outcomes by agent and outcome.
	b.publish(raw{agent: "pr-reviewer", run: "m-1", payload: validReview})
	b.publish(raw{agent: "pr-reviewer", run: "m-2", payload: badReview})
	b.awaitOutcomes("m-2", 1)
	b.awaitOutcomes("m-1", 1)
	b.awaitIdle() // an outcome is counted after it is published, before its input is acked
	metrics := getText(t, g, "/metrics", http.StatusOK)
	for _, want := range []string{
		`agentgate_outcomes_total{agent="pr-reviewer",outcome="valid",schema="https://agentgate.dev/schemas/pr-review/1.0.0"} 1`,
		`agentgate_outcomes_total{agent="pr-reviewer",outcome="retry",schema="https://agentgate.dev/schemas/pr-review/1.0.0"} 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func getText(t *testing.T, g *runningGateway, path string, wantStatus int) string {
	t.Helper()
	resp, err := http.Get("http://" + g.HTTPAddr() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != wantStatus {
		t.Fatalf("GET %s = %d, want %d: %s", path, resp.StatusCode, wantStatus, body)
	}
	return string(body)
}
