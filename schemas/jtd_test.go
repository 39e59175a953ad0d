package schemas_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/examples"
	"github.com/agentgate/agentgate/jtd"
	"github.com/agentgate/agentgate/schemas"
)

const incidentID = "https://agentgate.dev/schemas/incident-report/1.0.0"

func TestLoad_jtd(t *testing.T) {
	t.Parallel()
	r, err := schemas.LoadFS(examples.Config)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := r.Schema(incidentID)
	if !ok {
		t.Fatal("the bundled JTD schema is not registered")
	}
	if s.Draft != schemas.DraftJTD || s.Version != "1.0.0" || s.Title != "Incident report" || s.Rules.Len() != 1 ||
		!strings.Contains(string(s.Raw), `"discriminator": "kind"`) || s.Doc["$id"] != incidentID {
		t.Errorf("schema = %+v", s)
	}
	bp, _ := r.Blueprint("incident-reporter")
	if bp.OutputSchema != s {
		t.Error("the blueprint does not point at the JTD schema")
	}
}

func TestLoad_jtdErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		doc     string
		wantErr error
		want    string
	}{
		{"not RFC 8927", `{"metadata": {"id": "https://t.dev/j/1.0.0"}, "type": "int64"}`, jtd.ErrInvalidSchema, `schemas/j.jtd.json: invalid JSON Type Definition schema: invalid JSON Type Definition schema: at /type: "type" must be one of`},
		{"JSON Schema keyword", `{"metadata": {"id": "https://t.dev/j/1.0.0"}, "type": "string", "minLength": 1}`, schemas.ErrJTD, `unknown keyword "minLength"`},
		{"no id", `{"type": "string"}`, schemas.ErrNoID, "metadata.id"},
		{"no version", `{"metadata": {"id": "https://t.dev/j"}, "type": "string"}`, schemas.ErrBadVersion, "metadata.id"},
		{"colliding alias", `{"metadata": {"id": "https://t.dev/j/1.0.0"}, "properties": {"a": {"metadata": {"aliases": ["b"]}}, "b": {}}}`, schemas.ErrBadAlias, "metadata.aliases"},
		{"alias under a mapping", `{"metadata": {"id": "https://t.dev/j/1.0.0"}, "discriminator": "k", "mapping": {"a": {"properties": {"x": {"metadata": {"aliases": ["y"]}}}}}}`, schemas.ErrBadAlias, "/mapping/a/properties/x"},
		{"bad rule", `{"metadata": {"id": "https://t.dev/j/1.0.0", "rules": [{"name": "r", "expr": "output."}]}}`, schemas.ErrBadRules, `rule "r"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := loadFS(t, map[string]string{"schemas/j.jtd.json": tt.doc})
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %v saying %q", err, tt.wantErr, tt.want)
			}
		})
	}
}

// A JTD schema and its JSON Schema translation accept and refuse the same
// instances: the bundled example on the instances in testdata/jtd, and the
// schemas of the RFC's forms on theirs.
func TestJTD_translationAgrees(t *testing.T) {
	t.Parallel()
	r, err := schemas.LoadFS(examples.Config)
	if err != nil {
		t.Fatal(err)
	}
	incident, _ := r.Schema(incidentID)
	files, _ := filepath.Glob("testdata/jtd/incident-*.json")
	if len(files) < 6 {
		t.Fatalf("only %d instances in testdata/jtd", len(files))
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc := decode(t, string(raw))
		jtdValid := len(incident.Validate(doc)) == 0
		if want := strings.Contains(f, "-valid"); jtdValid != want {
			t.Errorf("%s: JTD valid = %v, want %v (%v)", f, jtdValid, want, incident.Validate(doc))
		}
		if got := schemas.ValidateTranslation(incident, doc); got != jtdValid {
			t.Errorf("%s: translation valid = %v, JTD valid = %v", f, got, jtdValid)
		}
	}

	forms := []struct {
		schema    string
		instances []string
	}{
		{`{"type": "uint8"}`, []string{`0`, `255`, `256`, `-1`, `1.0`, `1.5`, `"1"`, `null`}},
		{`{"type": "int32", "nullable": true}`, []string{`null`, `-2147483648`, `2147483648`, `true`}},
		{`{"type": "float32"}`, []string{`1.5`, `1`, `"x"`}},
		{`{"type": "timestamp"}`, []string{`"1985-04-12T23:20:50.52Z"`, `"1985-04-12"`, `3`}},
		{`{"enum": ["a", "b"], "nullable": true}`, []string{`"a"`, `"c"`, `null`, `1`}},
		{`{"elements": {"type": "boolean"}}`, []string{`[]`, `[true]`, `[1]`, `{}`}},
		{`{"values": {"type": "string"}}`, []string{`{}`, `{"a": "b"}`, `{"a": 1}`, `[]`}},
		{`{"properties": {"a": {"type": "string"}}, "optionalProperties": {"b": {"type": "uint8"}}}`,
			[]string{`{"a": "x"}`, `{"a": "x", "b": 1}`, `{"b": 1}`, `{"a": "x", "c": 1}`, `[]`}},
		{`{"properties": {"a": {}}, "additionalProperties": true}`, []string{`{"a": null, "z": 1}`, `{}`}},
		{`{"discriminator": "k", "mapping": {"x": {"properties": {"n": {"type": "uint8"}}}, "y": {"optionalProperties": {}}}}`,
			[]string{`{"k": "x", "n": 1}`, `{"k": "y"}`, `{"k": "y", "n": 1}`, `{"k": "z"}`, `{"n": 1}`, `{"k": 1}`, `"x"`}},
		{`{"definitions": {"node": {"properties": {"v": {"type": "string"}}, "optionalProperties": {"next": {"ref": "node", "nullable": true}}}}, "ref": "node"}`,
			[]string{`{"v": "a"}`, `{"v": "a", "next": {"v": "b", "next": null}}`, `{"v": "a", "next": {"w": 1}}`}},
	}
	for i, f := range forms {
		doc := `{"metadata": {"id": "https://t.dev/j/1.0.0"}, ` + strings.TrimPrefix(f.schema, "{")
		reg, err := loadFS(t, map[string]string{"schemas/j.jtd.json": doc})
		if err != nil {
			t.Fatalf("form %d: %v", i, err)
		}
		s, _ := reg.Schema("https://t.dev/j/1.0.0")
		for _, in := range f.instances {
			inst := decode(t, in)
			jtdValid := len(s.Validate(inst)) == 0
			if got := schemas.ValidateTranslation(s, inst); got != jtdValid {
				t.Errorf("%s on %s: translation valid = %v, JTD valid = %v", f.schema, in, got, jtdValid)
			}
		}
	}
}
