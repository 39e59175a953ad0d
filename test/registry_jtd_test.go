package test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/contract"
)

const ticketName = "https://example.com/schemas/ticket"

// ticket is version v of a JSON Type Definition of tickets: a title and a
// priority, and the extra required properties given.
func ticket(v string, required ...string) string {
	props := `"title":{"type":"string","metadata":{"aliases":["summary"]}},"priority":{"enum":["low","high"]}`
	for _, r := range required {
		props += fmt.Sprintf(`,%q:{"type":"string"}`, r)
	}
	return fmt.Sprintf(`{"metadata":{"id":"%s/%s","description":"A ticket."},"properties":{%s}}`, ticketName, v, props)
}

// A JSON Type Definition goes into the registry through the API like a
// JSON Schema: named by metadata.id, versions immutable and checked for
// compatibility (through its JSON Schema translation), and outputs of an
// agent naming it are judged with RFC 8927's semantics, aliases applied.
func TestRegistryAPI_jtd(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	g := startGateway(t, b)
	vp := versionsPath(ticketName)

	if st, out := callRegistry(t, g, "POST", vp, ticket("1.0.0")); st != http.StatusCreated || out["version"] != "1.0.0" {
		t.Fatalf("register 1.0.0: %d %v", st, out)
	}
	if st, out := callRegistry(t, g, "POST", vp, ticket("1.0.0", "owner")); st != http.StatusConflict || out["error"] != "immutable" {
		t.Fatalf("register 1.0.0 differently: %d %v", st, out)
	}
	// A new required property breaks BACKWARD without a major bump.
	if st, out := callRegistry(t, g, "POST", vp, ticket("1.1.0", "owner")); st != http.StatusConflict || out["error"] != "incompatible" ||
		!strings.Contains(fmt.Sprint(out["details"]), "owner") {
		t.Fatalf("register breaking 1.1.0: %d %v", st, out)
	}
	// Not a valid JTD: refused with the reason.
	bad := strings.Replace(ticket("1.2.0"), `"enum":["low","high"]`, `"enum":[]`, 1)
	if st, out := callRegistry(t, g, "POST", vp, bad); st != http.StatusUnprocessableEntity || out["message"] == "" {
		t.Fatalf("register an invalid JTD: %d %v", st, out)
	}
	var latest struct {
		Version string
		Schema  map[string]any
	}
	getJSON(t, g, vp+"/latest", http.StatusOK, &latest)
	if latest.Version != "1.0.0" || latest.Schema["metadata"] == nil {
		t.Fatalf("latest: %+v", latest)
	}

	agent := fmt.Sprintf(`{"name":"triager","description":"test","output_schema":"%s/1.0.0","max_retries":1,"system_prompt":"File a ticket."}`, ticketName)
	if st, out := callRegistry(t, g, "POST", "/v1/agents", agent); st != http.StatusCreated {
		t.Fatalf("create triager: %d %v", st, out)
	}
	waitFor(t, 10*time.Second, "the live registry to serve triager", func() bool {
		_, ok := g.Registry().Blueprint("triager")
		return ok
	})
	b.publish(raw{agent: "triager", run: "jtd-1", payload: `{"summary": "Disk full", "priority": "high"}`})
	if o := b.awaitOutcomes("jtd-1", 1)[0]; o.Headers.Get(contract.HeaderOutcome) != "valid" ||
		field(o.Body, "result_data", "title") != "Disk full" {
		t.Fatalf("a drifted ticket: %s", o.Data)
	}
	b.publish(raw{agent: "triager", run: "jtd-2", payload: `{"title": "Disk full", "priority": "urgent"}`})
	o := b.awaitOutcomes("jtd-2", 1)[0]
	violations, _ := field(o.Body, "error", "violations").([]any)
	if o.Headers.Get(contract.HeaderOutcome) != "retry" || len(violations) != 1 {
		t.Fatalf("a ticket of a priority the enum lacks: %s", o.Data)
	}
	if v := violations[0].(map[string]any); v["path"] != "$.priority" || v["keyword"] != "enum" {
		t.Errorf("violation %v, want $.priority enum", v)
	}
}
