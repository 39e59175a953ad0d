package schemas_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/rules"
	"github.com/agentgate/agentgate/schemas"
)

func TestLoad_rules(t *testing.T) {
	t.Parallel()
	const schema = `{"$id": "https://t.dev/s/1.0.0", "type": "object",
		"x-rules": [{"name": "a-positive", "expr": "output.a > 0"}]}`
	agent := func(rulesJSON string) string {
		return `{"name": "x", "output_schema": "https://t.dev/s/1.0.0", "system_prompt": "", "rules": ` + rulesJSON + `}`
	}
	tests := []struct {
		name     string
		schema   string
		agent    string
		wantErr  []error
		wantText []string
	}{
		{name: "good", schema: schema, agent: agent(`[{"name": "b-set", "expr": "has(output.b)", "path": "$.b"}]`)},
		{name: "blueprint rule does not compile", schema: schema, agent: agent(`[{"name": "broken", "expr": "output.b ==="}]`),
			wantErr: []error{schemas.ErrBadRules, rules.ErrCompile}, wantText: []string{"agents/x.json: rules: invalid rules", `rule "broken"`}},
		{name: "blueprint rule over the cost limit", schema: schema,
			agent:   agent(`[{"name": "pairs", "expr": "output.l.all(a, output.l.all(b, a != b))"}]`),
			wantErr: []error{schemas.ErrBadRules, rules.ErrCostLimit}, wantText: []string{`rule "pairs"`, "over the limit"}},
		{name: "schema rule does not type-check", agent: agent(`[]`),
			schema:  `{"$id": "https://t.dev/s/1.0.0", "x-rules": [{"name": "str", "expr": "'a' + 1 == 2"}]}`,
			wantErr: []error{schemas.ErrBadRules, rules.ErrCompile}, wantText: []string{"schemas/s.schema.json: x-rules: invalid rules", `rule "str"`}},
		{name: "misspelt member", schema: schema, agent: agent(`[{"name": "m", "expresion": "true"}]`),
			wantErr: []error{schemas.ErrBadRules, rules.ErrBadRule}, wantText: []string{"expresion"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := loadFS(t, map[string]string{"schemas/s.schema.json": tt.schema, "agents/x.json": tt.agent})
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				bp, _ := r.Blueprint("x")
				if bp.Rules.Len() != 1 || bp.OutputSchema.Rules.Len() != 1 {
					t.Fatalf("rules: blueprint %d, schema %d", bp.Rules.Len(), bp.OutputSchema.Rules.Len())
				}
				return
			}
			for _, want := range tt.wantErr {
				if !errors.Is(err, want) {
					t.Errorf("err = %v, want %v", err, want)
				}
			}
			for _, want := range tt.wantText {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("err = %v, want it to say %q", err, want)
				}
			}
		})
	}
}
