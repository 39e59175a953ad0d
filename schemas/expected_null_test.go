package schemas_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentgate/agentgate/schemas"
)

// A const null is an expected value like any other: the violation says so.
func TestValidate_expectedNull(t *testing.T) {
	t.Parallel()
	reg, err := schemas.LoadFS(fstest.MapFS{"schemas/n.schema.json": {Data: []byte(`{
		"$id": "https://agentgate.dev/schemas/n/1.0.0", "title": "t", "description": "d",
		"type": "object", "properties": {"a": {"const": null}}}`)}})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := reg.Schema("https://agentgate.dev/schemas/n/1.0.0")
	vs := s.Validate(map[string]any{"a": json.Number("1")})
	if len(vs) != 1 {
		t.Fatalf("violations = %v", vs)
	}
	b, _ := json.Marshal(vs[0])
	if !strings.Contains(string(b), `"expected":null`) || !strings.Contains(string(b), `"received":1`) {
		t.Errorf("violation = %s", b)
	}
}
