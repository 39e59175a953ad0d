package schemas_test

import (
	"encoding/json"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/schemas"
)

const testID = "https://t.dev/s/1.0.0"

// compileSchema loads one schema given without its $id (testID is added).
func compileSchema(t *testing.T, body string) *schemas.Schema {
	t.Helper()
	doc := `{"$id": "` + testID + `", ` + strings.TrimPrefix(strings.TrimSpace(body), "{")
	if strings.TrimSpace(body) == "{}" {
		doc = `{"$id": "` + testID + `"}`
	}
	r, err := loadFS(t, map[string]string{"schemas/s.schema.json": doc})
	if err != nil {
		t.Fatalf("loading schema: %v", err)
	}
	s, ok := r.Schema(testID)
	if !ok {
		t.Fatal("schema not registered")
	}
	return s
}

// decode decodes an instance as the gateway does: encoding/json, UseNumber.
func decode(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding %s: %v", s, err)
	}
	return v
}

// equalJSON compares violations with their expected JSON form.
func equalJSON(t *testing.T, got []contract.Violation, want string) {
	t.Helper()
	gotJSON, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	g := decode(t, string(gotJSON))
	w := decode(t, want)
	if !reflect.DeepEqual(normalize(g), normalize(w)) {
		pretty, _ := json.MarshalIndent(got, "", "  ")
		t.Errorf("violations:\n%s\nwant:\n%s", pretty, want)
	}
}

// normalize rewrites json.Numbers in canonical form, so that 10 and 10.0
// compare equal.
func normalize(v any) any {
	switch t := v.(type) {
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(t)); ok {
			return r.RatString()
		}
		return string(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, c := range t {
			out[k] = normalize(c)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, c := range t {
			out[i] = normalize(c)
		}
		return out
	}
	return v
}
