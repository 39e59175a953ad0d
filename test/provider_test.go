package test

import (
	"net/http"
	"net/url"
	"testing"
)

// GET /v1/agents/{name}/provider-schema exports the agent's output schema
// to a provider's strict mode, with the report; the JTD example is listed
// and served as it was written.
func TestGateway_providerSchemaAndJTD(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	g := startGateway(t, b)

	var doc map[string]any
	getJSON(t, g, "/v1/agents/pr-reviewer/provider-schema?provider=openai", http.StatusOK, &doc)
	if doc["provider"] != "openai" || doc["agent"] != "pr-reviewer" || doc["strict"] != true ||
		doc["schema_id"] != "https://agentgate.dev/schemas/pr-review/1.0.0" ||
		field(doc, "schema", "additionalProperties") != false ||
		field(doc, "request", "response_format", "json_schema", "strict") != true {
		t.Errorf("openai export = %v", doc)
	}
	if nx, _ := doc["not_expressed"].([]any); len(nx) == 0 {
		t.Errorf("no not_expressed findings for pr-review (minLength is not expressible): %v", doc["not_expressed"])
	}
	getJSON(t, g, "/v1/agents/incident-reporter/provider-schema?provider=anthropic", http.StatusOK, &doc)
	if doc["provider"] != "anthropic" || field(doc, "request", "output_config", "format", "type") != "json_schema" {
		t.Errorf("anthropic export = %v", doc)
	}
	getJSON(t, g, "/v1/agents/pr-reviewer/provider-schema?provider=gemini", http.StatusBadRequest, nil)
	getJSON(t, g, "/v1/agents/pr-reviewer/provider-schema", http.StatusBadRequest, nil)
	getJSON(t, g, "/v1/agents/nobody/provider-schema?provider=openai", http.StatusNotFound, nil)
	getJSON(t, g, "/v1/agents/repo-assistant/provider-schema?provider=openai", http.StatusNotFound, nil)

	var list []map[string]any
	getJSON(t, g, "/v1/schemas", http.StatusOK, &list)
	var found bool
	for _, s := range list {
		if s["id"] == "https://agentgate.dev/schemas/incident-report/1.0.0" {
			found = s["draft"] == "rfc8927" && s["version"] == "1.0.0"
		}
	}
	if !found {
		t.Errorf("GET /v1/schemas lacks the JTD schema: %v", list)
	}
	var jtdDoc map[string]any
	getJSON(t, g, "/v1/schemas/"+url.PathEscape("https://agentgate.dev/schemas/incident-report/1.0.0"), http.StatusOK, &jtdDoc)
	if field(jtdDoc, "metadata", "id") != "https://agentgate.dev/schemas/incident-report/1.0.0" || jtdDoc["$schema"] != nil {
		t.Errorf("GET /v1/schemas/{id} of the JTD schema = %v", jtdDoc)
	}
}
