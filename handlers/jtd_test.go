package handlers_test

import (
	"encoding/json"
	"testing"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers"
)

// A JTD schema drives normalization like a JSON Schema: metadata.aliases
// rename, closed objects strip, values are coerced as the JTD type asks
// (not inside a discriminator's mapping, an anyOf in the translation);
// validation then follows RFC 8927 and the schema's rules run.
func TestCheck_jtdSchema(t *testing.T) {
	t.Parallel()
	reg := examplesRegistry(t)
	s, ok := reg.Schema("https://agentgate.dev/schemas/incident-report/1.0.0")
	if !ok {
		t.Fatal("no incident-report schema")
	}
	drifted := "Here it is:\n```json\n" + `{"summary": "Checkout errors", "level": "sev1", "started_at": "2026-11-20T10:00:00Z",
		"services": "checkout", "customers_affected": "1200", "owner": "me",
		"actions": [{"kind": "page", "team": "payments", "urgent": true}]}` + "\n```"
	v := handlers.Check([]byte(drifted), s, handlers.CheckOptions{ExtraFields: "strip", Coerce: true})
	if !v.Valid {
		t.Fatalf("violations: %v", v.Violations)
	}
	got, _ := json.Marshal(v.Data)
	want := `{"actions":[{"kind":"page","team":"payments","urgent":true}],"affected_services":["checkout"],"customers_affected":1200,"opened_at":"2026-11-20T10:00:00Z","severity":"sev1","title":"Checkout errors"}`
	if string(got) != want {
		t.Errorf("data = %s\nwant   %s", got, want)
	}
	ops := map[string]int{}
	for _, n := range v.Normalizations {
		ops[n.Op]++
	}
	if ops[contract.OpRename] != 4 || ops[contract.OpStrip] != 1 || ops[contract.OpCoerce] != 2 || ops["extract"] != 1 {
		t.Errorf("normalizations = %+v", v.Normalizations)
	}

	// RFC 8927 validation and the schema's rule, after normalization.
	bad := `{"title": "x", "severity": "sev2", "opened_at": "2026-11-21T08:00:00Z", "resolved_at": "2026-11-20T08:00:00Z",
		"affected_services": [], "customers_affected": 70000000000, "actions": [{"kind": "reboot"}]}`
	v = handlers.Check([]byte(bad), s, handlers.CheckOptions{ExtraFields: "strip", Coerce: true})
	var kws []string
	for _, vi := range v.Violations {
		kws = append(kws, vi.Path+" "+vi.Keyword)
	}
	want2 := []string{"$.actions[0].kind mapping", "$.customers_affected type"}
	if len(kws) != len(want2) || kws[0] != want2[0] || kws[1] != want2[1] {
		t.Errorf("violations = %v, want %v", kws, want2)
	}
	ruleOnly := `{"title": "x", "severity": "sev2", "opened_at": "2026-11-21T08:00:00Z", "resolved_at": "2026-11-20T08:00:00Z",
		"affected_services": [], "customers_affected": 7, "actions": []}`
	v = handlers.Check([]byte(ruleOnly), s, handlers.CheckOptions{ExtraFields: "strip", Coerce: true})
	if len(v.Violations) != 1 || v.Violations[0].Rule != "resolved-after-opened" || v.Violations[0].Path != "$.resolved_at" {
		t.Errorf("rule violations = %+v", v.Violations)
	}
}
