package schemas_test

import (
	"errors"
	"testing"

	"github.com/agentgate/agentgate/schemas"
)

// inlineAgent loads the blueprints given as agent name to output_schema
// text, beside the schema files given, and returns the registry.
func inlineAgents(t *testing.T, files map[string]string, agents map[string]string) (*schemas.Registry, error) {
	t.Helper()
	all := make(map[string]string, len(files)+len(agents))
	for name, body := range files {
		all[name] = body
	}
	for name, schema := range agents {
		all["agents/"+name+".json"] = `{"name": "` + name + `", "output_schema": ` + schema + `}`
	}
	return loadFS(t, all)
}

func TestInlineSchema_everyKindJSONSchemaAllows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		schema   string
		declared string
		valid    []string
		invalid  []string
	}{
		{
			name:     "root $id is the base of relative refs",
			schema:   `{"$id": "https://ex.test/root.json", "$defs": {"a": {"$id": "a.json", "type": "string"}}, "properties": {"x": {"$ref": "a.json"}}}`,
			declared: "https://ex.test/root.json",
			valid:    []string{`{"x": "s"}`, `{}`},
			invalid:  []string{`{"x": 1}`},
		},
		{
			name:     "ref to its own $id with a pointer",
			schema:   `{"$id": "https://ex.test/r", "$defs": {"n": {"type": "number"}}, "properties": {"x": {"$ref": "https://ex.test/r#/$defs/n"}}}`,
			declared: "https://ex.test/r",
			valid:    []string{`{"x": 1.5}`},
			invalid:  []string{`{"x": "1"}`},
		},
		{
			name:     "$anchor",
			schema:   `{"$id": "https://ex.test/anchor", "$defs": {"n": {"$anchor": "num", "type": "number"}}, "properties": {"x": {"$ref": "#num"}}}`,
			declared: "https://ex.test/anchor",
			valid:    []string{`{"x": 2}`},
			invalid:  []string{`{"x": true}`},
		},
		{
			name:    "$anchor without $id",
			schema:  `{"$defs": {"n": {"$anchor": "num", "type": "number"}}, "properties": {"x": {"$ref": "#num"}}}`,
			valid:   []string{`{"x": 2}`},
			invalid: []string{`{"x": true}`},
		},
		{
			name: "$dynamicAnchor extended by the outer schema",
			schema: `{"$id": "https://ex.test/strict-list", "$ref": "list", "$defs": {
				"item": {"$dynamicAnchor": "item", "type": "string"},
				"list": {"$id": "list", "type": "array", "items": {"$dynamicRef": "#item"},
					"$defs": {"default": {"$dynamicAnchor": "item"}}}}}`,
			declared: "https://ex.test/strict-list",
			valid:    []string{`["a", "b"]`, `[]`},
			invalid:  []string{`["a", 1]`},
		},
		{
			name:    "boolean true",
			schema:  `true`,
			valid:   []string{`{"anything": [1, 2]}`, `3`, `null`},
			invalid: nil,
		},
		{
			name:    "boolean false",
			schema:  `false`,
			invalid: []string{`{}`, `null`, `"x"`},
		},
		{
			name:     "draft-07 root $id",
			schema:   `{"$schema": "http://json-schema.org/draft-07/schema#", "$id": "http://ex.test/d7.json", "definitions": {"s": {"$id": "#s", "type": "string"}}, "properties": {"x": {"$ref": "#s"}}}`,
			declared: "http://ex.test/d7.json",
			valid:    []string{`{"x": "y"}`},
			invalid:  []string{`{"x": []}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := inlineAgents(t, nil, map[string]string{"a": tt.schema})
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			bp, _ := r.Blueprint("a")
			s := bp.OutputSchema
			if s.ID != schemas.InlinePrefix+"a" {
				t.Errorf("ID = %q, want the inline id", s.ID)
			}
			if s.DeclaredID != tt.declared {
				t.Errorf("DeclaredID = %q, want %q", s.DeclaredID, tt.declared)
			}
			for _, doc := range tt.valid {
				if vs := s.Validate(decode(t, doc)); len(vs) != 0 {
					t.Errorf("%s: want valid, got %+v", doc, vs)
				}
			}
			for _, doc := range tt.invalid {
				if vs := s.Validate(decode(t, doc)); len(vs) == 0 {
					t.Errorf("%s: want invalid, got valid", doc)
				}
			}
		})
	}
}

// Two inline schemas may declare the same $id as each other and as a
// registry schema: each validates by its own body.
func TestInlineSchema_sameIDNoCollision(t *testing.T) {
	t.Parallel()
	const id = "https://t.dev/shared/1.0.0"
	r, err := inlineAgents(t,
		map[string]string{
			"schemas/shared.schema.json": `{"$id": "` + id + `", "type": "boolean"}`,
			"schemas/user.schema.json":   `{"$id": "https://t.dev/user/1.0.0", "$ref": "` + id + `"}`,
		},
		map[string]string{
			"s": `{"$id": "` + id + `", "type": "string"}`,
			"n": `{"$id": "` + id + `", "type": "number"}`,
			"u": `{"$id": "https://t.dev/uses/1.0.0", "properties": {"b": {"$ref": "` + id + `"}, "u": {"$ref": "https://t.dev/user/1.0.0"}}}`,
		})
	if err != nil {
		t.Fatal(err)
	}
	check := func(agent, doc string, valid bool) {
		t.Helper()
		bp, _ := r.Blueprint(agent)
		if got := len(bp.OutputSchema.Validate(decode(t, doc))) == 0; got != valid {
			t.Errorf("agent %s, %s: valid = %v, want %v", agent, doc, got, valid)
		}
	}
	check("s", `"x"`, true)
	check("s", `1`, false)
	check("n", `1`, true)
	check("n", `"x"`, false)
	// The registry's own schema of that $id is untouched, and an inline
	// schema that declares another $id still reaches it.
	reg, _ := r.Schema(id)
	if len(reg.Validate(decode(t, `true`))) != 0 || len(reg.Validate(decode(t, `"x"`))) == 0 {
		t.Error("the registry schema changed")
	}
	check("u", `{"b": true, "u": false}`, true)
	check("u", `{"b": "x"}`, false)
	check("u", `{"u": 1}`, false)
}

// Nothing is ever fetched: a ref outside the registry fails the load, even
// relative to an inline schema's own $id.
func TestInlineSchema_nothingFetched(t *testing.T) {
	t.Parallel()
	for _, schema := range []string{
		`{"$id": "https://ex.test/a/root.json", "properties": {"x": {"$ref": "other.json"}}}`,
		`{"$id": "https://ex.test/a/root.json", "$ref": "https://json-schema.org/draft/2020-12/schema-not-there"}`,
		`{"properties": {"x": {"$ref": "https://example.com/x.json"}}}`,
	} {
		_, err := inlineAgents(t, nil, map[string]string{"a": schema})
		if !errors.Is(err, schemas.ErrUnresolvedRef) {
			t.Errorf("%s: error %v, want ErrUnresolvedRef", schema, err)
		}
	}
}

// Resolve, the normalizer's view of refs, follows an inline schema's own
// $id too.
func TestInlineSchema_resolveOwnID(t *testing.T) {
	t.Parallel()
	r, err := inlineAgents(t, nil, map[string]string{
		"a": `{"$id": "https://ex.test/r/root", "$defs": {"n": {"type": "number"}}, "properties": {"x": {"$ref": "root#/$defs/n"}, "y": {"$ref": "https://ex.test/r/root#/$defs/n"}}}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	bp, _ := r.Blueprint("a")
	s := bp.OutputSchema
	props := s.Doc["properties"].(map[string]any)
	for _, name := range []string{"x", "y"} {
		got := s.Resolve(props[name].(map[string]any))
		if got == nil || got["type"] != "number" {
			t.Errorf("Resolve(%s) = %v, want the number definition", name, got)
		}
	}
}
