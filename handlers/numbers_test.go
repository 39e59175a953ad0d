package handlers_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/schemas"
)

// Numbers a consumer cannot decode faithfully are violations at their
// path, keyword type, the same way whatever their spelling; a schema opts
// in to big integers with x-big-integers.
func TestCheck_numbersThatBreakConsumers(t *testing.T) {
	t.Parallel()
	reg, err := schemas.LoadFS(fstest.MapFS{
		"schemas/n.schema.json": {Data: []byte(`{"$id": "https://agentgate.test/n/1.0.0", "type": "object",
			"properties": {"n": {"type": "number"}, "i": {"type": "integer"}}}`)},
		"schemas/big.schema.json": {Data: []byte(`{"$id": "https://agentgate.test/big/1.0.0", "x-big-integers": true,
			"type": "object", "properties": {"n": {"type": "number"}, "i": {"type": "integer"}}}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := reg.Schema("https://agentgate.test/n/1.0.0")
	big, _ := reg.Schema("https://agentgate.test/big/1.0.0")
	huge := strings.Repeat("9", 10000)
	tests := []struct {
		name     string
		schema   *schemas.Schema
		given    string
		wantPath string // "" when valid
	}{
		{"1e400", plain, `{"n": 1e400}`, "$.n"},
		{"-1e999999999", plain, `{"n": -1e999999999}`, "$.n"},
		{"10,000-digit integer", plain, `{"i": ` + huge + `}`, "$.i"},
		{"2^53 + 1", plain, `{"i": 9007199254740993}`, "$.i"},
		{"2^53", plain, `{"i": 9007199254740992}`, ""},
		{"1.5e308", plain, `{"n": 1.5e308}`, ""},
		{"opted in: 10,000-digit integer", big, `{"i": ` + huge + `}`, ""},
		{"opted in: 1e400 still refused", big, `{"n": 1e400}`, "$.n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := handlers.Check([]byte(tt.given), tt.schema, handlers.CheckOptions{})
			if tt.wantPath == "" {
				if !v.Valid {
					t.Fatalf("violations = %+v", v.Violations)
				}
				return
			}
			if v.Valid || len(v.Violations) != 1 || v.Violations[0].Path != tt.wantPath || v.Violations[0].Keyword != "type" {
				t.Fatalf("violations = %+v", v.Violations)
			}
			if len(v.Violations[0].Message) > 300 {
				t.Errorf("message not bounded: %d bytes", len(v.Violations[0].Message))
			}
		})
	}
}

// A document of more values than the limit is refused before validation,
// which would cost memory per value and per violation: a violation at $
// (keyword json), so the model gets a retry.
func TestCheck_tooManyValues(t *testing.T) {
	t.Parallel()
	reg, err := schemas.Load("../examples")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := reg.Schema("https://agentgate.dev/schemas/pr-review/1.0.0")
	var sb strings.Builder
	sb.WriteString(`{"summary": "ok", "approval": "approve", "comments": [`)
	for i := range handlers.DefaultMaxValues {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString("1")
	}
	sb.WriteString("]}")
	v := handlers.Check([]byte(sb.String()), s, handlers.CheckOptions{})
	if v.Valid || len(v.Violations) != 1 || v.Violations[0].Path != "$" || v.Violations[0].Keyword != "json" ||
		!strings.Contains(v.Violations[0].Message, "values") {
		t.Fatalf("violations = %.300v", v.Violations)
	}
}
