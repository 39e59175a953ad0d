package normalize_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers/jsontext"
	"github.com/agentgate/agentgate/handlers/normalize"
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

func opRename(path, from, to string) contract.Normalization {
	return contract.Normalization{Op: contract.OpRename, Path: path, From: from, To: to}
}

func opDrop(path, from, to string) contract.Normalization {
	return contract.Normalization{Op: contract.OpDrop, Path: path, From: from, To: to}
}

func opStrip(path string) contract.Normalization {
	return contract.Normalization{Op: contract.OpStrip, Path: path}
}

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
		ops:    []contract.Normalization{opRename("$", "tripwire_candidates", "candidates")},
	},
	{
		name:   "canonical wins over its alias",
		schema: `{"properties": {"message": {"type": "string", "x-aliases": ["body"]}}}`,
		given:  `{"body": "alias", "message": "canonical"}`,
		want:   `{"message": "canonical"}`,
		ops:    []contract.Normalization{opDrop("$", "body", "message")},
	},
	{
		name:   "first alias in x-aliases order wins",
		schema: `{"properties": {"message": {"type": "string", "x-aliases": ["text", "body"]}}}`,
		given:  `{"body": "second", "text": "first"}`,
		want:   `{"message": "first"}`,
		ops:    []contract.Normalization{opDrop("$", "body", "message"), opRename("$", "text", "message")},
	},
	{
		name:   "aliases at every depth through $ref and items",
		schema: commentsSchema,
		given:  `{"review_comments": [{"path": "a.go", "body": "x"}, {"file": "b.go", "text": "y", "message": "z"}]}`,
		want:   `{"comments": [{"file": "a.go", "message": "x"}, {"file": "b.go", "message": "z"}]}`,
		ops: []contract.Normalization{
			opRename("$", "review_comments", "comments"),
			opRename("$.comments[0]", "body", "message"),
			opRename("$.comments[0]", "path", "file"),
			opDrop("$.comments[1]", "text", "message"),
		},
	},
	{
		name:   "aliases declared in allOf branches and behind $ref",
		schema: `{"allOf": [{"properties": {"a": {"x-aliases": ["alpha"]}}}, {"$ref": "#/$defs/b"}], "$defs": {"b": {"properties": {"b": {"$ref": "#/$defs/bee"}}}, "bee": {"x-aliases": ["beta"]}}}`,
		given:  `{"alpha": 1, "beta": 2}`,
		want:   `{"a": 1, "b": 2}`,
		ops:    []contract.Normalization{opRename("$", "alpha", "a"), opRename("$", "beta", "b")},
	},
	{
		name:   "an alias that is a declared property is no alias",
		schema: `{"properties": {"title": {}, "action": {"x-aliases": ["title", "name"]}}}`,
		given:  `{"title": "t", "name": "n"}`,
		want:   `{"title": "t", "action": "n"}`,
		ops:    []contract.Normalization{opRename("$", "name", "action")},
	},
	{
		name:   "alias under a non-identifier name",
		schema: `{"properties": {"odd key": {"type": "object", "properties": {"x": {"x-aliases": ["y"]}}}}}`,
		given:  `{"odd key": {"y": 1}}`,
		want:   `{"odd key": {"x": 1}}`,
		ops:    []contract.Normalization{opRename("$['odd key']", "y", "x")},
	},
	{
		name:   "draft-07 definitions",
		schema: `{"$schema": "http://json-schema.org/draft-07/schema#", "items": {"$ref": "#/definitions/x"}, "definitions": {"x": {"properties": {"a": {"x-aliases": ["b"]}}}}}`,
		given:  `[{"b": 1}]`,
		want:   `[{"a": 1}]`,
		ops:    []contract.Normalization{opRename("$[0]", "b", "a")},
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
		ops:    []contract.Normalization{opStrip("$.comments[0].severity"), opStrip("$.comments[0].trigger_pattern"), opStrip("$.note")},
	},
	{
		name:   "reject leaves extras for validation",
		schema: commentsSchema,
		opts:   normalize.Options{ExtraFields: "reject", Coerce: true},
		given:  `{"note": 1, "review_comments": [{"file": "a.go", "trigger_pattern": "x"}]}`,
		want:   `{"note": 1, "comments": [{"file": "a.go", "trigger_pattern": "x"}]}`,
		ops:    []contract.Normalization{opRename("$", "review_comments", "comments")},
	},
	{
		name:   "odd member names get quoted paths",
		schema: `{"type": "object", "additionalProperties": false}`,
		given:  `{"odd key": 1, "it's": 2}`,
		want:   `{}`,
		ops:    []contract.Normalization{opStrip("$['it\\'s']"), opStrip("$['odd key']")},
	},
	{
		name:   "patternProperties allow names",
		schema: `{"additionalProperties": false, "properties": {"a": {}}, "patternProperties": {"^x-": {}}}`,
		given:  `{"a": 1, "x-trace": 2, "b": 3}`,
		want:   `{"a": 1, "x-trace": 2}`,
		ops:    []contract.Normalization{opStrip("$.b")},
	},
	{
		name:   "allOf branches contribute allowed names",
		schema: `{"additionalProperties": false, "properties": {"a": {}}, "allOf": [{"properties": {"b": {}}}, {"$ref": "#/$defs/c"}], "$defs": {"c": {"properties": {"c": {}}}}}`,
		given:  `{"a": 1, "b": 2, "c": 3, "d": 4}`,
		want:   `{"a": 1, "b": 2, "c": 3}`,
		ops:    []contract.Normalization{opStrip("$.d")},
	},
	{
		name:   "closed by an allOf branch",
		schema: `{"allOf": [{"properties": {"a": {}}, "additionalProperties": false}]}`,
		given:  `{"a": 1, "z": 2}`,
		want:   `{"a": 1}`,
		ops:    []contract.Normalization{opStrip("$.z")},
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
		ops:    []contract.Normalization{opStrip("$.b")},
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
		ops:    []contract.Normalization{opStrip("$.c")},
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
		ops:    []contract.Normalization{opRename("$.next.next", "value", "v"), opStrip("$.next.next.x"), opStrip("$.x")},
	},
}

func TestNormalize_aliases(t *testing.T) { t.Parallel(); runNormCases(t, aliasCases) }

func TestNormalize_strip(t *testing.T) { t.Parallel(); runNormCases(t, stripCases) }

func runNormCases(t *testing.T, cases []normCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			schema := decodeTestSchema(t, tt.schema)
			doc, ops := normalize.Normalize(decodeTestDoc(t, tt.given), schema, localRefs{root: schema}, tt.opts)
			if got, want := compactJSON(t, doc), compactJSON(t, decodeTestDoc(t, tt.want)); got != want {
				t.Errorf("doc = %s, want %s", got, want)
			}
			if ops == nil || !slices.Equal(ops, tt.ops) {
				t.Errorf("normalizations =\n%s\nwant\n%s", formatNormalizations(ops), formatNormalizations(tt.ops))
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
				inputs = append(inputs, input{c.name, decodeTestSchema(t, c.schema), decodeTestDoc(t, c.given), opts})
			}
		}
	}
	for _, f := range outputFixtureFiles(t) {
		folder, _, _ := strings.Cut(f, "/")
		schema := loadExampleSchema(t, fixtureSchemas[folder])
		cands, _ := jsontext.Extract(readOutputFixture(t, f), 0)
		for i, c := range cands {
			inputs = append(inputs, input{fmt.Sprintf("%s#%d", f, i), schema, c.Doc, stripAndCoerce})
		}
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			r := localRefs{root: in.schema}
			once, onceOps := normalize.Normalize(in.doc, in.schema, r, in.opts)
			// The first pass, which returns a conforming document as is,
			// changes no result.
			copied, copiedOps := normalize.NormalizeCopy(in.doc, in.schema, r, in.opts)
			if !slices.Equal(onceOps, copiedOps) || compactJSON(t, once) != compactJSON(t, copied) {
				t.Errorf("Normalize = %s\n%s\nwithout its first pass %s\n%s", compactJSON(t, once), formatNormalizations(onceOps),
					compactJSON(t, copied), formatNormalizations(copiedOps))
			}
			twice, ops := normalize.Normalize(once, in.schema, r, in.opts)
			if len(ops) != 0 {
				t.Errorf("second pass changed:\n%s", formatNormalizations(ops))
			}
			if m, isMap := once.(map[string]any); isMap && !sameMap(m, twice) {
				t.Error("a document that needs no change was copied")
			}
			if a, b := compactJSON(t, once), compactJSON(t, twice); a != b {
				t.Errorf("second pass doc = %s, want %s", b, a)
			}
		})
	}
}

func TestNormalize_doesNotMutate(t *testing.T) {
	t.Parallel()
	schema := loadExampleSchema(t, "pr-review")
	cands, bad := jsontext.Extract(readOutputFixture(t, "pr-reviewer/drifted_fence.md"), 0)
	if bad != nil {
		t.Fatal(bad.Message)
	}
	before := compactJSON(t, cands[0].Doc)
	out, ops := normalize.Normalize(cands[0].Doc, schema, localRefs{root: schema}, stripAndCoerce)
	if len(ops) == 0 {
		t.Fatal("fixture needs normalizing")
	}
	if after := compactJSON(t, cands[0].Doc); after != before {
		t.Fatalf("input changed:\n%s\nwas\n%s", after, before)
	}
	// The output shares nothing with the input: changing it leaves the input alone.
	out.(map[string]any)["comments"].([]any)[0].(map[string]any)["file"] = "changed"
	if after := compactJSON(t, cands[0].Doc); after != before {
		t.Fatal("output shares containers with the input")
	}
}

func TestNormalize_noSchema(t *testing.T) {
	t.Parallel()
	given := decodeTestDoc(t, `{"a": ["1", null]}`)
	doc, ops := normalize.Normalize(given, nil, nil, stripAndCoerce)
	if ops == nil || len(ops) != 0 || compactJSON(t, doc) != `{"a":["1",null]}` {
		t.Errorf("Normalize(no schema) = %s, %v; want the doc unchanged and []", compactJSON(t, doc), ops)
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

// localRefs resolves local JSON pointers ("#", "#/$defs/x",
// "#/definitions/x", "#/allOf/0") against one root schema; anything else is
// unresolvable. The real resolver is schemas.Schema.Resolve.
type localRefs struct{ root map[string]any }

func (r localRefs) Resolve(node map[string]any) map[string]any {
	ref, ok := node["$ref"].(string)
	if !ok {
		return node
	}
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	var cur any = r.root
	if ptr != "" {
		unescape := strings.NewReplacer("~1", "/", "~0", "~")
		for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
			tok = unescape.Replace(tok)
			switch c := cur.(type) {
			case map[string]any:
				cur = c[tok]
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(c) {
					return nil
				}
				cur = c[i]
			default:
				return nil
			}
		}
	}
	m, _ := cur.(map[string]any)
	return m
}

func decodeTestSchema(t *testing.T, text string) map[string]any {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		t.Fatalf("schema %s: %v", text, err)
	}
	return s
}

// decodeTestDoc decodes a document as Extract does (numbers as json.Number).
func decodeTestDoc(t *testing.T, text string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("doc %s: %v", text, err)
	}
	return v
}

func loadExampleSchema(t *testing.T, name string) map[string]any {
	t.Helper()
	return decodeTestSchema(t, string(readTestFile(t, filepath.Join("..", "..", "examples", "schemas", name+".schema.json"))))
}

// fixtureSchemas names the example schema the raw outputs of each folder
// of ../testdata/outputs answer (the pipeline's fixtures, shared).
var fixtureSchemas = map[string]string{
	"pr-reviewer":         "pr-review",
	"code-analyzer":       "code-analysis",
	"tripwire-candidates": "tripwire-candidates",
}

// outputFixtureFiles lists the raw outputs of ../testdata/outputs (golden
// files left out), relative to it.
func outputFixtureFiles(t testing.TB) []string {
	t.Helper()
	dir := filepath.Join("..", "testdata", "outputs")
	files, err := filepath.Glob(filepath.Join(dir, "*", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no output fixtures in %s: %v", dir, err)
	}
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, ".golden.json") {
			continue
		}
		rel, _ := filepath.Rel(dir, f)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

func readOutputFixture(t testing.TB, name string) []byte {
	t.Helper()
	return readTestFile(t, filepath.Join("..", "testdata", "outputs", name))
}

func readTestFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return b
}

func formatNormalizations(ops []contract.Normalization) string {
	var b strings.Builder
	for _, op := range ops {
		line, _ := json.Marshal(op)
		fmt.Fprintf(&b, "  %s\n", line)
	}
	return b.String()
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
	schema := decodeTestSchema(t, `{"type": "object"}`)
	for _, doc := range []any{map[string]any(nil), []any(nil), map[string]any{"a": []any(nil)}} {
		got, _ := normalize.Normalize(doc, schema, localRefs{root: schema}, stripAndCoerce)
		want, _ := normalize.NormalizeCopy(doc, schema, localRefs{root: schema}, stripAndCoerce)
		if a, b := compactJSON(t, got), compactJSON(t, want); a != b {
			t.Errorf("Normalize(%#v) = %s, the copy %s", doc, a, b)
		}
	}
}
