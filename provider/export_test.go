package provider_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/provider"
	"github.com/agentgate/agentgate/schemas"
)

// load registers one schema document under id and returns it.
func load(t *testing.T, id, doc string) *schemas.Schema {
	t.Helper()
	if !strings.Contains(doc, `"$id"`) {
		doc = `{"$id": "` + id + `", ` + strings.TrimPrefix(strings.TrimSpace(doc), "{")
	}
	reg, err := schemas.LoadFS(fstest.MapFS{"schemas/s.schema.json": {Data: []byte(doc)}})
	if err != nil {
		t.Fatalf("loading %s: %v", doc, err)
	}
	s, _ := reg.Schema(id)
	return s
}

// exported loads an export's schema as a registry schema: it must be a
// correct JSON Schema 2020-12 document.
func exported(t *testing.T, x *provider.Result) *schemas.Schema {
	t.Helper()
	doc := map[string]any{"$id": "https://t.dev/exported/1.0.0"}
	for k, v := range x.Schema {
		doc[k] = v
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return load(t, "https://t.dev/exported/1.0.0", string(raw))
}

// checkStrictObjects asserts OpenAI's rules on every object of an
// exported schema: additionalProperties false and every property required.
func checkStrictObjects(t *testing.T, node any, path string, allRequired bool) {
	t.Helper()
	switch n := node.(type) {
	case map[string]any:
		if props, ok := n["properties"].(map[string]any); ok {
			if n["additionalProperties"] != false {
				t.Errorf("%s: additionalProperties = %v", path, n["additionalProperties"])
			}
			if allRequired {
				req, _ := n["required"].([]any)
				for name := range props {
					if !slices.Contains(req, any(name)) {
						t.Errorf("%s: property %q is not required", path, name)
					}
				}
			}
		}
		for k, v := range n {
			checkStrictObjects(t, v, path+"/"+k, allRequired)
		}
	case []any:
		for i, v := range n {
			checkStrictObjects(t, v, fmt.Sprintf("%s/%d", path, i), allRequired)
		}
	}
}

func TestExport_examples(t *testing.T) {
	t.Parallel()
	reg, err := schemas.Load("../examples")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for _, s := range reg.Schemas() {
		for _, p := range provider.Names {
			t.Run(s.ID+"/"+string(p), func(t *testing.T) {
				x, err := provider.Export(p, s.Doc, s)
				if err != nil {
					t.Fatal(err)
				}
				if !x.Strict {
					t.Errorf("not strict: %+v", x.NotExpressed)
				}
				exported(t, x)
				checkStrictObjects(t, x.Schema, "", p == provider.OpenAI)
				if p == provider.Anthropic && len(x.OptionalAsNull) != 0 {
					t.Errorf("anthropic keeps optional members optional: %v", x.OptionalAsNull)
				}
			})
			n++
		}
	}
	if n < 8 {
		t.Fatalf("only %d exports", n)
	}
}

// An output in OpenAI's exported shape (null for each optional member it
// leaves out) validates against the exported schema and, mapped back by
// the normalizer, against the original, the nulls recorded.
func TestExport_outputsMapBack(t *testing.T) {
	t.Parallel()
	reg, err := schemas.Load("../examples")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id, output string
		nulls      []string
	}{
		{"https://agentgate.dev/schemas/pr-review/1.0.0",
			`{"summary": "s", "approval": "approve", "comments": [], "metrics": null}`, []string{"$.metrics"}},
		{"https://agentgate.dev/schemas/code-analysis/1.0.0",
			`{"files_analyzed": 1, "issues": [{"file": "a.go", "line": 1, "severity": "low", "category": "style", "message": "m", "suggestion": null}]}`,
			[]string{"$.issues[0].suggestion"}},
		{"https://agentgate.dev/schemas/incident-report/1.0.0",
			`{"title": "t", "severity": "sev3", "opened_at": "2026-11-21T08:00:00Z", "affected_services": [], "customers_affected": 0,
			  "actions": [{"kind": "rollback", "release": "v1"}], "resolved_at": null, "root_cause": null, "labels": null}`,
			[]string{"$.labels", "$.resolved_at"}},
		// An optional member of a discriminator's branch, exported as
		// required and nullable: its null is removed under the branch.
		{"https://agentgate.dev/schemas/incident-report/1.0.0",
			`{"title": "t", "severity": "sev3", "opened_at": "2026-11-21T08:00:00Z", "affected_services": [], "customers_affected": 0,
			  "actions": [{"kind": "page", "team": "db", "urgent": null}], "resolved_at": null, "root_cause": null, "labels": null}`,
			[]string{"$.actions[0].urgent", "$.labels", "$.resolved_at"}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			s, _ := reg.Schema(tt.id)
			x, err := provider.Export(provider.OpenAI, s.Doc, s)
			if err != nil {
				t.Fatal(err)
			}
			ex := exported(t, x)
			var doc any
			dec := json.NewDecoder(strings.NewReader(tt.output))
			dec.UseNumber()
			if err := dec.Decode(&doc); err != nil {
				t.Fatal(err)
			}
			if vs := ex.Validate(doc); vs != nil {
				t.Fatalf("the exported shape is not valid against the export: %v", vs)
			}
			v := handlers.Check([]byte(tt.output), s, handlers.CheckOptions{ExtraFields: "strip", Coerce: true})
			if !v.Valid {
				t.Fatalf("not valid once mapped back: %v", v.Violations)
			}
			var got []string
			for _, n := range v.Normalizations {
				if n.Op == "coerce" && n.From == "null" {
					got = append(got, n.Path)
				}
			}
			if !slices.Equal(got, tt.nulls) {
				t.Errorf("nulls removed at %v, want %v", got, tt.nulls)
			}
		})
	}
}

func TestExport_tricky(t *testing.T) {
	t.Parallel()
	type want struct {
		strict   bool
		findings []string // "path keyword action"
		has      []string // substrings of the exported schema's JSON
	}
	tests := []struct {
		name   string
		schema string
		want   map[provider.Name]want
	}{
		{"recursion", `{"type": "object", "required": ["name"], "additionalProperties": false,
			"properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}}}}`,
			map[provider.Name]want{
				provider.OpenAI:    {strict: true, has: []string{`"$ref":"#"`, `"type":["array","null"]`}},
				provider.Anthropic: {strict: false, findings: []string{"$.properties.children.items $ref unsupported"}},
			}},
		{"oneOf", `{"type": "object", "additionalProperties": false, "required": ["v"], "properties": {"v": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}`,
			map[provider.Name]want{
				provider.OpenAI:    {strict: true, findings: []string{"$.properties.v oneOf rewritten"}, has: []string{`"anyOf":[{"type":"string"},{"type":"integer"}]`}},
				provider.Anthropic: {strict: true, findings: []string{"$.properties.v oneOf rewritten"}},
			}},
		{"patternProperties", `{"type": "object", "patternProperties": {"^x-": {"type": "string"}}}`,
			map[provider.Name]want{
				provider.OpenAI:    {strict: true, findings: []string{"$ patternProperties dropped"}, has: []string{`"additionalProperties":false`}},
				provider.Anthropic: {strict: true, findings: []string{"$ patternProperties dropped"}},
			}},
		{"formats", `{"type": "object", "additionalProperties": false, "required": ["a", "b", "c", "d"], "properties": {
			"a": {"type": "string", "format": "email"}, "b": {"type": "string", "format": "uri"},
			"c": {"type": "string", "format": "regex"}, "d": {"type": "string", "format": "date-time", "minLength": 20}}}`,
			map[provider.Name]want{
				provider.OpenAI: {strict: true, findings: []string{"$.properties.b format dropped", "$.properties.c format dropped", "$.properties.d minLength dropped"},
					has: []string{`"format":"email"`, `"format":"date-time"`}},
				provider.Anthropic: {strict: true, findings: []string{"$.properties.c format dropped", "$.properties.d minLength dropped"},
					has: []string{`"format":"uri"`}},
			}},
		{"numbers and arrays", `{"type": "object", "additionalProperties": false, "required": ["n", "l"], "properties": {
			"n": {"type": "integer", "minimum": 1, "maximum": 5}, "l": {"type": "array", "minItems": 2, "maxItems": 4, "uniqueItems": true, "items": {"type": "string"}}}}`,
			map[provider.Name]want{
				provider.OpenAI: {strict: true, findings: []string{"$.properties.l uniqueItems dropped"}, has: []string{`"minimum":1`, `"maxItems":4`}},
				provider.Anthropic: {strict: true, findings: []string{"$.properties.l maxItems dropped", "$.properties.l minItems dropped",
					"$.properties.l uniqueItems dropped", "$.properties.n maximum dropped", "$.properties.n minimum dropped"}},
			}},
		{"allOf and open object", `{"allOf": [{"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}, {"properties": {"b": {"type": "boolean"}}}]}`,
			map[provider.Name]want{
				provider.OpenAI: {strict: true, findings: []string{"$ allOf rewritten", "$.allOf[0] additionalProperties rewritten", "$.allOf[1] additionalProperties rewritten"},
					has: []string{`"required":["a","b"]`}},
			}},
		{"root not an object", `{"type": "array", "items": {"type": "string"}}`,
			map[provider.Name]want{
				provider.OpenAI:    {strict: false, findings: []string{"$ type unsupported"}},
				provider.Anthropic: {strict: true},
			}},
		{"enum of objects and rules", `{"type": "object", "additionalProperties": false, "required": ["e"], "properties": {"e": {"enum": [{"a": 1}, "x"]}},
			"x-rules": [{"name": "r", "expr": "true"}]}`,
			map[provider.Name]want{
				provider.OpenAI:    {strict: true, findings: []string{"$ x-rules dropped"}},
				provider.Anthropic: {strict: false, findings: []string{"$ x-rules dropped", "$.properties.e enum unsupported"}},
			}},
		{"deep nesting", `{"type": "object", "additionalProperties": false, "required": ["a"], "properties": {"a": ` +
			strings.Repeat(`{"type": "object", "additionalProperties": false, "required": ["a"], "properties": {"a": `, 10) + `{"type": "string"}` + strings.Repeat(`}}`, 10) + `}}`,
			map[provider.Name]want{
				provider.OpenAI:    {strict: false, findings: []string{"$ properties unsupported"}},
				provider.Anthropic: {strict: true},
			}},
	}
	for _, tt := range tests {
		for p, w := range tt.want {
			t.Run(tt.name+"/"+string(p), func(t *testing.T) {
				t.Parallel()
				s := load(t, "https://t.dev/tricky/1.0.0", tt.schema)
				x, err := provider.Export(p, s.Doc, s)
				if err != nil {
					t.Fatal(err)
				}
				exported(t, x)
				var got []string
				for _, f := range x.NotExpressed {
					got = append(got, f.Path+" "+f.Keyword+" "+f.Action)
				}
				if x.Strict != w.strict || !slices.Equal(got, w.findings) {
					t.Errorf("strict = %v, findings = %q\nwant %v, %q", x.Strict, got, w.strict, w.findings)
				}
				raw, _ := json.Marshal(x.Schema)
				for _, h := range w.has {
					if !strings.Contains(string(raw), h) {
						t.Errorf("exported schema lacks %s: %s", h, raw)
					}
				}
			})
		}
	}
}

func TestExport_unknownProvider(t *testing.T) {
	t.Parallel()
	if _, err := provider.Export("gemini", map[string]any{}, nil); !errors.Is(err, provider.ErrUnknownProvider) {
		t.Fatalf("err = %v", err)
	}
}

// The providers' size limits (see the package doc comment for the pages):
// just at the limit is strict, one over is unsupported.
func TestExport_limits(t *testing.T) {
	t.Parallel()
	// object builds a closed object with n properties, each given by prop;
	// required lists the first req of them.
	object := func(n, req int, name func(i int) string, prop func(i int) string) string {
		var props, reqs []string
		for i := range n {
			props = append(props, fmt.Sprintf("%q: %s", name(i), prop(i)))
			if i < req {
				reqs = append(reqs, fmt.Sprintf("%q", name(i)))
			}
		}
		return `{"type": "object", "additionalProperties": false, "required": [` + strings.Join(reqs, ", ") +
			`], "properties": {` + strings.Join(props, ", ") + `}}`
	}
	short := func(i int) string { return fmt.Sprintf("p%d", i) }
	str := func(int) string { return `{"type": "string"}` }
	enum := func(n, chars int) string {
		var vals []string
		for i := range n {
			v := fmt.Sprintf("%d", i)
			vals = append(vals, fmt.Sprintf("%q", v+strings.Repeat("x", chars-len(v))))
		}
		return object(1, 1, short, func(int) string { return `{"type": "string", "enum": [` + strings.Join(vals, ", ") + `]}` })
	}
	// nested is n levels of objects, each holding the next.
	var nested func(n int) string
	nested = func(n int) string {
		if n == 1 {
			return object(1, 1, short, str)
		}
		return object(1, 1, short, func(int) string { return nested(n - 1) })
	}
	// enums is an object of n members, each an enum of per short values.
	enums := func(n, per int) string {
		return object(n, n, short, func(int) string {
			var vals []string
			for i := range per {
				vals = append(vals, fmt.Sprintf(`"v%d"`, i))
			}
			return `{"type": "string", "enum": [` + strings.Join(vals, ", ") + `]}`
		})
	}
	tests := []struct {
		name     string
		p        provider.Name
		schema   string
		strict   bool
		findings []string
	}{
		// OpenAI: 5,000 properties in all, 10 levels of nesting, 1,000 enum values in all.
		{"5000 properties", provider.OpenAI, object(5000, 5000, short, str), true, nil},
		{"5001 properties", provider.OpenAI, object(5001, 5001, short, str), false, []string{"$ properties unsupported"}},
		{"10 levels", provider.OpenAI, nested(10), true, nil},
		{"11 levels", provider.OpenAI, nested(11), false, []string{"$ properties unsupported"}},
		{"1000 enum values", provider.OpenAI, enums(4, 250), true, nil},
		{"1001 enum values", provider.OpenAI, enums(7, 143), false, []string{"$ enum unsupported"}},
		// OpenAI: 120,000 characters of property names and enum values.
		{"names at the limit", provider.OpenAI, object(3, 3, func(i int) string { return fmt.Sprintf("%d", i) + strings.Repeat("n", 39999) }, str), true, nil},
		{"names over the limit", provider.OpenAI, object(3, 3, func(i int) string { return fmt.Sprintf("%d", i) + strings.Repeat("n", 40000) }, str),
			false, []string{"$ properties unsupported"}},
		// OpenAI: an enum of over 250 values may total 15,000 characters.
		{"large enum within", provider.OpenAI, enum(251, 59), true, nil},
		{"large enum over", provider.OpenAI, enum(251, 60), false, []string{"$ enum unsupported"}},
		{"small enum, long values", provider.OpenAI, enum(250, 100), true, nil},
		// Anthropic: 24 optional properties, 16 unions.
		{"24 optional", provider.Anthropic, object(30, 6, short, str), true, nil},
		{"25 optional", provider.Anthropic, object(30, 5, short, str), false, []string{"$ required unsupported"}},
		{"16 unions", provider.Anthropic, object(16, 16, short, func(int) string { return `{"type": ["string", "null"]}` }), true, nil},
		{"17 unions", provider.Anthropic, object(17, 17, short, func(int) string { return `{"anyOf": [{"type": "string"}, {"type": "integer"}]}` }),
			false, []string{"$ anyOf unsupported"}},
		{"optional and unions count nothing for OpenAI", provider.OpenAI, object(30, 0, short, func(int) string { return `{"type": ["string", "null"]}` }), true, nil},
		// Anthropic: no lookaround, backreference or word boundary.
		{"pattern lookahead", provider.Anthropic, object(1, 1, short, func(int) string { return `{"type": "string", "pattern": "^(?!x)\\w+$"}` }),
			true, []string{"$.properties.p0 pattern dropped"}},
		{"pattern backreference", provider.Anthropic, object(1, 1, short, func(int) string { return `{"type": "string", "pattern": "^(a)\\1$"}` }),
			true, []string{"$.properties.p0 pattern dropped"}},
		{"pattern plain", provider.Anthropic, object(1, 1, short, func(int) string { return `{"type": "string", "pattern": "^[a-z]+\\d{2}$"}` }), true, nil},
		{"pattern lookahead, OpenAI", provider.OpenAI, object(1, 1, short, func(int) string { return `{"type": "string", "pattern": "^(?!x)\\w+$"}` }), true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := load(t, "https://t.dev/limits/1.0.0", tt.schema)
			x, err := provider.Export(tt.p, s.Doc, s)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range x.NotExpressed {
				if f.Keyword == "additionalProperties" { // the test objects are closed already
					continue
				}
				got = append(got, f.Path+" "+f.Keyword+" "+f.Action)
			}
			if x.Strict != tt.strict || !slices.Equal(got, tt.findings) {
				t.Errorf("strict = %v, findings = %q (%v)\nwant %v, %q", x.Strict, got, x.NotExpressed, tt.strict, tt.findings)
			}
		})
	}
}
