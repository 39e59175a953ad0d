package normalize_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers/jsontext"
	"github.com/agentgate/agentgate/handlers/normalize"
	"github.com/agentgate/agentgate/internal/pipelinetest"
)

// normCase is one Normalize table case: a schema and a document as JSON
// text, the options, and the wanted document and changes.
type normCase struct {
	name   string
	schema string
	given  string
	opts   normalize.Options
	want   string
	ops    []contract.Normalization
}

var stripAndCoerce = normalize.Options{ExtraFields: "strip", Coerce: true}

const commentsSchema = `{
	"type": "object", "additionalProperties": false,
	"properties": {
		"comments": {"type": "array", "items": {"$ref": "#/$defs/comment"}, "x-aliases": ["review_comments"]}
	},
	"$defs": {"comment": {
		"type": "object", "additionalProperties": false,
		"properties": {
			"file": {"type": "string", "x-aliases": ["path"]},
			"message": {"type": "string", "x-aliases": ["body", "text"]}
		}
	}}
}`

var aliasCases = []normCase{
	{
		name:   "alias at the root",
		schema: `{"properties": {"candidates": {"type": "array", "x-aliases": ["tripwire_candidates"]}}}`,
		given:  `{"tripwire_candidates": []}`,
		want:   `{"candidates": []}`,
		ops:    []contract.Normalization{pipelinetest.Rename("$", "tripwire_candidates", "candidates")},
	},
	{
		name:   "canonical wins over its alias",
		schema: `{"properties": {"message": {"type": "string", "x-aliases": ["body"]}}}`,
		given:  `{"body": "alias", "message": "canonical"}`,
		want:   `{"message": "canonical"}`,
		ops:    []contract.Normalization{pipelinetest.Drop("$", "body", "message")},
	},
	{
		name:   "first alias in x-aliases order wins",
		schema: `{"properties": {"message": {"type": "string", "x-aliases": ["text", "body"]}}}`,
		given:  `{"body": "second", "text": "first"}`,
		want:   `{"message": "first"}`,
		ops:    []contract.Normalization{pipelinetest.Drop("$", "body", "message"), pipelinetest.Rename("$", "text", "message")},
	},
	{
		name:   "aliases at every depth through $ref and items",
		schema: commentsSchema,
		given:  `{"review_comments": [{"path": "a.go", "body": "x"}, {"file": "b.go", "text": "y", "message": "z"}]}`,
		want:   `{"comments": [{"file": "a.go", "message": "x"}, {"file": "b.go", "message": "z"}]}`,
		ops: []contract.Normalization{
			pipelinetest.Rename("$", "review_comments", "comments"),
			pipelinetest.Rename("$.comments[0]", "body", "message"),
			pipelinetest.Rename("$.comments[0]", "path", "file"),
			pipelinetest.Drop("$.comments[1]", "text", "message"),
		},
	},
	{
		name:   "aliases declared in allOf branches and behind $ref",
		schema: `{"allOf": [{"properties": {"a": {"x-aliases": ["alpha"]}}}, {"$ref": "#/$defs/b"}], "$defs": {"b": {"properties": {"b": {"$ref": "#/$defs/bee"}}}, "bee": {"x-aliases": ["beta"]}}}`,
		given:  `{"alpha": 1, "beta": 2}`,
		want:   `{"a": 1, "b": 2}`,
		ops:    []contract.Normalization{pipelinetest.Rename("$", "alpha", "a"), pipelinetest.Rename("$", "beta", "b")},
	},
	{
		name:   "an alias that is a declared property is no alias",
		schema: `{"properties": {"title": {}, "action": {"x-aliases": ["title", "name"]}}}`,
		given:  `{"title": "t", "name": "n"}`,
		want:   `{"title": "t", "action": "n"}`,
		ops:    []contract.Normalization{pipelinetest.Rename("$", "name", "action")},
	},
	{
		name:   "alias under a non-identifier name",
		schema: `{"properties": {"odd key": {"type": "object", "properties": {"x": {"x-aliases": ["y"]}}}}}`,
		given:  `{"odd key": {"y": 1}}`,
		want:   `{"odd key": {"x": 1}}`,
		ops:    []contract.Normalization{pipelinetest.Rename("$['odd key']", "y", "x")},
	},
	{
		name:   "draft-07 definitions",
		schema: `{"$schema": "http://json-schema.org/draft-07/schema#", "items": {"$ref": "#/definitions/x"}, "definitions": {"x": {"properties": {"a": {"x-aliases": ["b"]}}}}}`,
		given:  `[{"b": 1}]`,
		want:   `[{"a": 1}]`,
		ops:    []contract.Normalization{pipelinetest.Rename("$[0]", "b", "a")},
	},
	{
		name:   "no alias resolution inside anyOf branches",
		schema: `{"anyOf": [{"properties": {"a": {"x-aliases": ["b"]}}}]}`,
		given:  `{"b": 1}`,
		want:   `{"b": 1}`,
	},
}

var stripCases = []normCase{
	{
		name:   "closed objects strip extras at every depth",
		schema: commentsSchema,
		opts:   stripAndCoerce,
		given:  `{"note": 1, "comments": [{"file": "a.go", "trigger_pattern": "x", "severity": "high"}]}`,
		want:   `{"comments": [{"file": "a.go"}]}`,
		ops:    []contract.Normalization{pipelinetest.Strip("$.comments[0].severity"), pipelinetest.Strip("$.comments[0].trigger_pattern"), pipelinetest.Strip("$.note")},
	},
	{
		name:   "reject leaves extras for validation",
		schema: commentsSchema,
		opts:   normalize.Options{ExtraFields: "reject", Coerce: true},
		given:  `{"note": 1, "review_comments": [{"file": "a.go", "trigger_pattern": "x"}]}`,
		want:   `{"note": 1, "comments": [{"file": "a.go", "trigger_pattern": "x"}]}`,
		ops:    []contract.Normalization{pipelinetest.Rename("$", "review_comments", "comments")},
	},
	{
		name:   "odd member names get quoted paths",
		schema: `{"type": "object", "additionalProperties": false}`,
		given:  `{"odd key": 1, "it's": 2}`,
		want:   `{}`,
		ops:    []contract.Normalization{pipelinetest.Strip("$['it\\'s']"), pipelinetest.Strip("$['odd key']")},
	},
	{
		name:   "patternProperties allow names",
		schema: `{"additionalProperties": false, "properties": {"a": {}}, "patternProperties": {"^x-": {}}}`,
		given:  `{"a": 1, "x-trace": 2, "b": 3}`,
		want:   `{"a": 1, "x-trace": 2}`,
		ops:    []contract.Normalization{pipelinetest.Strip("$.b")},
	},
	{
		name:   "allOf branches contribute allowed names",
		schema: `{"additionalProperties": false, "properties": {"a": {}}, "allOf": [{"properties": {"b": {}}}, {"$ref": "#/$defs/c"}], "$defs": {"c": {"properties": {"c": {}}}}}`,
		given:  `{"a": 1, "b": 2, "c": 3, "d": 4}`,
		want:   `{"a": 1, "b": 2, "c": 3}`,
		ops:    []contract.Normalization{pipelinetest.Strip("$.d")},
	},
	{
		name:   "closed by an allOf branch",
		schema: `{"allOf": [{"properties": {"a": {}}, "additionalProperties": false}]}`,
		given:  `{"a": 1, "z": 2}`,
		want:   `{"a": 1}`,
		ops:    []contract.Normalization{pipelinetest.Strip("$.z")},
	},
	{
		name:   "open object keeps extras",
		schema: `{"properties": {"a": {}}, "additionalProperties": {"type": "integer"}}`,
		given:  `{"a": 1, "z": 2}`,
		want:   `{"a": 1, "z": 2}`,
	},
	{
		name:   "anyOf that may add names: no strip",
		schema: `{"additionalProperties": false, "properties": {"a": {}}, "anyOf": [{"properties": {"b": {}}}, {"required": ["a"]}]}`,
		given:  `{"a": 1, "b": 2}`,
		want:   `{"a": 1, "b": 2}`,
	},
	{
		name:   "anyOf and if/then over declared names only: strip",
		schema: `{"additionalProperties": false, "properties": {"a": {}, "k": {}}, "anyOf": [{"required": ["a"]}, {"properties": {"a": {"type": "string"}}}], "if": {"properties": {"k": {"const": 1}}}, "then": {"required": ["a"]}}`,
		given:  `{"a": 1, "k": 1, "b": 2}`,
		want:   `{"a": 1, "k": 1}`,
		ops:    []contract.Normalization{pipelinetest.Strip("$.b")},
	},
	{
		name:   "dependentSchemas that may add names: no strip",
		schema: `{"additionalProperties": false, "properties": {"a": {}}, "dependentSchemas": {"a": {"properties": {"b": {}}}}}`,
		given:  `{"a": 1, "b": 2}`,
		want:   `{"a": 1, "b": 2}`,
	},
	{
		name:   "dependentSchemas over declared names: strip",
		schema: `{"additionalProperties": false, "properties": {"a": {}, "b": {}}, "dependentSchemas": {"a": {"required": ["b"], "additionalProperties": false}}}`,
		given:  `{"a": 1, "b": 2, "c": 3}`,
		want:   `{"a": 1, "b": 2}`,
		ops:    []contract.Normalization{pipelinetest.Strip("$.c")},
	},
	{
		name:   "oneOf branch with an open additionalProperties: no strip",
		schema: `{"additionalProperties": false, "properties": {"a": {}}, "oneOf": [{"additionalProperties": true}]}`,
		given:  `{"a": 1, "b": 2}`,
		want:   `{"a": 1, "b": 2}`,
	},
	{
		name:   "schema too wide to expand: no strip",
		schema: `{"additionalProperties": false, "allOf": [` + strings.Repeat(`{"properties": {"a": {}}},`, 70) + `{}]}`,
		given:  `{"a": 1, "b": 2}`,
		want:   `{"a": 1, "b": 2}`,
	},
	{
		name:   "unevaluatedProperties: no strip",
		schema: `{"additionalProperties": false, "properties": {"a": {}}, "unevaluatedProperties": false}`,
		given:  `{"a": 1, "b": 2}`,
		want:   `{"a": 1, "b": 2}`,
	},
	{
		name:   "unresolvable $ref: no strip, no coercion",
		schema: `{"additionalProperties": false, "properties": {"a": {"type": "integer"}}, "$ref": "https://elsewhere.example/schema"}`,
		opts:   stripAndCoerce,
		given:  `{"a": "1", "b": 2}`,
		want:   `{"a": "1", "b": 2}`,
	},
	{
		name:   "pattern Go cannot compile: no strip",
		schema: `{"additionalProperties": false, "patternProperties": {"^(?!x)": {}}}`,
		given:  `{"a": 1}`,
		want:   `{"a": 1}`,
	},
	{
		name:   "$ref cycles terminate",
		schema: `{"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b", "properties": {"next": {"$ref": "#"}, "v": {"x-aliases": ["value"]}}, "additionalProperties": false}, "b": {"$ref": "#/$defs/a"}}}`,
		given:  `{"next": {"next": {"value": 1, "x": 2}}, "x": 3}`,
		want:   `{"next": {"next": {"v": 1}}}`,
		ops:    []contract.Normalization{pipelinetest.Rename("$.next.next", "value", "v"), pipelinetest.Strip("$.next.next.x"), pipelinetest.Strip("$.x")},
	},
}

func TestNormalize_aliases(t *testing.T) { t.Parallel(); runNormCases(t, aliasCases) }

func TestNormalize_strip(t *testing.T) { t.Parallel(); runNormCases(t, stripCases) }

func runNormCases(t *testing.T, cases []normCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			schema := pipelinetest.DecodeSchema(t, tt.schema)
			doc, ops := normalize.Normalize(pipelinetest.DecodeDoc(t, tt.given), schema, pipelinetest.LocalRefs{Root: schema}, tt.opts)
			if got, want := pipelinetest.CompactJSON(t, doc), pipelinetest.CompactJSON(t, pipelinetest.DecodeDoc(t, tt.want)); got != want {
				t.Errorf("doc = %s, want %s", got, want)
			}
			if ops == nil || !slices.Equal(ops, tt.ops) {
				t.Errorf("normalizations =\n%s\nwant\n%s", pipelinetest.FormatNormalizations(ops), pipelinetest.FormatNormalizations(tt.ops))
			}
		})
	}
}

// TestNormalize_idempotent normalizes every table case, fixture and example
// output twice: the second pass must change nothing.
func TestNormalize_idempotent(t *testing.T) {
	t.Parallel()
	type input struct {
		name   string
		schema map[string]any
		doc    any
		opts   normalize.Options
	}
	var inputs []input
	for _, set := range [][]normCase{aliasCases, stripCases, coerceCases} {
		for _, c := range set {
			for _, opts := range []normalize.Options{c.opts, stripAndCoerce, {ExtraFields: "reject"}} {
				inputs = append(inputs, input{c.name, pipelinetest.DecodeSchema(t, c.schema), pipelinetest.DecodeDoc(t, c.given), opts})
			}
		}
	}
	for _, f := range pipelinetest.OutputFixtures(t) {
		folder, _, _ := strings.Cut(f, "/")
		schema := pipelinetest.ExampleSchema(t, fixtureSchemas[folder])
		cands, _ := jsontext.Extract(pipelinetest.OutputFixture(t, f), 0)
		for i, c := range cands {
			inputs = append(inputs, input{fmt.Sprintf("%s#%d", f, i), schema, c.Doc, stripAndCoerce})
		}
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			r := pipelinetest.LocalRefs{Root: in.schema}
			once, onceOps := normalize.Normalize(in.doc, in.schema, r, in.opts)
			// The first pass, which returns a conforming document as is,
			// changes no result.
			copied, copiedOps := normalize.NormalizeCopy(in.doc, in.schema, r, in.opts)
			if !slices.Equal(onceOps, copiedOps) || pipelinetest.CompactJSON(t, once) != pipelinetest.CompactJSON(t, copied) {
				t.Errorf("Normalize = %s\n%s\nwithout its first pass %s\n%s", pipelinetest.CompactJSON(t, once), pipelinetest.FormatNormalizations(onceOps),
					pipelinetest.CompactJSON(t, copied), pipelinetest.FormatNormalizations(copiedOps))
			}
			twice, ops := normalize.Normalize(once, in.schema, r, in.opts)
			if len(ops) != 0 {
				t.Errorf("second pass changed:\n%s", pipelinetest.FormatNormalizations(ops))
			}
			if m, isMap := once.(map[string]any); isMap && !sameMap(m, twice) {
				t.Error("a document that needs no change was copied")
			}
			if a, b := pipelinetest.CompactJSON(t, once), pipelinetest.CompactJSON(t, twice); a != b {
				t.Errorf("second pass doc = %s, want %s", b, a)
			}
		})
	}
}

func TestNormalize_doesNotMutate(t *testing.T) {
	t.Parallel()
	schema := pipelinetest.ExampleSchema(t, "pr-review")
	cands, bad := jsontext.Extract(pipelinetest.OutputFixture(t, "pr-reviewer/drifted_fence.md"), 0)
	if bad != nil {
		t.Fatal(bad.Message)
	}
	before := pipelinetest.CompactJSON(t, cands[0].Doc)
	out, ops := normalize.Normalize(cands[0].Doc, schema, pipelinetest.LocalRefs{Root: schema}, stripAndCoerce)
	if len(ops) == 0 {
		t.Fatal("fixture needs normalizing")
	}
	if after := pipelinetest.CompactJSON(t, cands[0].Doc); after != before {
		t.Fatalf("input changed:\n%s\nwas\n%s", after, before)
	}
	// The output shares nothing with the input: changing it leaves the input alone.
	out.(map[string]any)["comments"].([]any)[0].(map[string]any)["file"] = "changed"
	if after := pipelinetest.CompactJSON(t, cands[0].Doc); after != before {
		t.Fatal("output shares containers with the input")
	}
}

func TestNormalize_noSchema(t *testing.T) {
	t.Parallel()
	given := pipelinetest.DecodeDoc(t, `{"a": ["1", null]}`)
	doc, ops := normalize.Normalize(given, nil, nil, stripAndCoerce)
	if ops == nil || len(ops) != 0 || pipelinetest.CompactJSON(t, doc) != `{"a":["1",null]}` {
		t.Errorf("Normalize(no schema) = %s, %v; want the doc unchanged and []", pipelinetest.CompactJSON(t, doc), ops)
	}
}

func ExampleNormalize() {
	var schema map[string]any
	_ = json.Unmarshal([]byte(`{
		"type": "object", "additionalProperties": false,
		"properties": {
			"candidates": {"type": "array", "x-aliases": ["tripwire_candidates"]},
			"count": {"type": "integer"}
		}
	}`), &schema)
	doc := map[string]any{"tripwire_candidates": []any{}, "count": "2", "trigger_pattern": "x"}
	out, ops := normalize.Normalize(doc, schema, nil, normalize.Options{Coerce: true})
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
	for _, op := range ops {
		b, _ := json.Marshal(op)
		fmt.Println(string(b))
	}
	// Output:
	// {"candidates":[],"count":2}
	// {"op":"rename","path":"$","from":"tripwire_candidates","to":"candidates"}
	// {"op":"coerce","path":"$.count","from":"\"2\"","to":"2","detail":"string to integer"}
	// {"op":"strip","path":"$.trigger_pattern"}
}

// fixtureSchemas names the example schema the raw outputs of each folder
// of ../testdata/outputs answer (the pipeline's fixtures, shared).
var fixtureSchemas = map[string]string{
	"pr-reviewer":         "pr-review",
	"code-analyzer":       "code-analysis",
	"tripwire-candidates": "tripwire-candidates",
}

// sameMap reports whether v is the map m itself.
func sameMap(m map[string]any, v any) bool {
	vm, ok := v.(map[string]any)
	return ok && reflect.ValueOf(vm).Pointer() == reflect.ValueOf(m).Pointer()
}

// TestNormalize_nilContainers: a nil map or slice (encoding/json never
// makes one, a caller may) comes back as the copy makes it, empty.
func TestNormalize_nilContainers(t *testing.T) {
	t.Parallel()
	schema := pipelinetest.DecodeSchema(t, `{"type": "object"}`)
	for _, doc := range []any{map[string]any(nil), []any(nil), map[string]any{"a": []any(nil)}} {
		got, _ := normalize.Normalize(doc, schema, pipelinetest.LocalRefs{Root: schema}, stripAndCoerce)
		want, _ := normalize.NormalizeCopy(doc, schema, pipelinetest.LocalRefs{Root: schema}, stripAndCoerce)
		if a, b := pipelinetest.CompactJSON(t, got), pipelinetest.CompactJSON(t, want); a != b {
			t.Errorf("Normalize(%#v) = %s, the copy %s", doc, a, b)
		}
	}
}
