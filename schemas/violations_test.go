package schemas_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/contract"
)

const reviewSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["summary", "comments"],
  "properties": {
    "summary": {"type": "string", "minLength": 3, "maxLength": 10},
    "score": {"type": "number", "minimum": 0, "exclusiveMaximum": 10, "multipleOf": 0.5},
    "count": {"type": "integer"},
    "comments": {
      "type": "array",
      "items": {"$ref": "#/$defs/comment"}
    }
  },
  "$defs": {
    "comment": {
      "type": "object",
      "additionalProperties": false,
      "required": ["line", "severity"],
      "properties": {
        "line": {"type": "integer", "minimum": 1},
        "severity": {"enum": ["nitpick", "suggestion", "concern", "blocker"]}
      }
    }
  }
}`

func TestValidate_violations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		schema string
		doc    string
		want   string // the violations as JSON
	}{
		{
			name:   "valid",
			schema: reviewSchema,
			doc:    `{"summary": "fine", "comments": [{"line": 1, "severity": "nitpick"}]}`,
			want:   `null`,
		},
		{
			name:   "enum",
			schema: reviewSchema,
			doc:    `{"summary": "fine", "comments": [{"line": 3, "severity": "critical"}]}`,
			want: `[{"path": "$.comments[0].severity", "keyword": "enum",
				"expected": ["nitpick", "suggestion", "concern", "blocker"], "received": "critical",
				"message": "value must be one of \"nitpick\", \"suggestion\", \"concern\", \"blocker\""}]`,
		},
		{
			name:   "type",
			schema: reviewSchema,
			doc:    `{"summary": 42, "count": 1.5, "comments": []}`,
			want: `[
				{"path": "$.count", "keyword": "type", "expected": "integer", "received": 1.5, "message": "expected integer, got number"},
				{"path": "$.summary", "keyword": "type", "expected": "string", "received": 42, "message": "expected string, got integer"}]`,
		},
		{
			name:   "integer-valued number is an integer",
			schema: reviewSchema,
			doc:    `{"summary": "fine", "count": 2.0, "comments": []}`,
			want:   `null`,
		},
		{
			name:   "required once, at the member's path, with no received",
			schema: reviewSchema,
			doc:    `{"comments": [{"severity": "nitpick"}, {"line": 2, "severity": "concern"}]}`,
			want: `[
				{"path": "$.comments[0].line", "keyword": "required", "message": "missing required member \"line\""},
				{"path": "$.summary", "keyword": "required", "message": "missing required member \"summary\""}]`,
		},
		{
			name:   "additionalProperties, one per member",
			schema: reviewSchema,
			doc:    `{"summary": "fine", "comments": [], "note": "x", "extra": {"a": 1}}`,
			want: `[
				{"path": "$.extra", "keyword": "additionalProperties", "received": {"a": 1}, "message": "member \"extra\" is not allowed"},
				{"path": "$.note", "keyword": "additionalProperties", "received": "x", "message": "member \"note\" is not allowed"}]`,
		},
		{
			name:   "numeric bounds",
			schema: reviewSchema,
			doc:    `{"summary": "fine", "score": 10.25, "comments": [{"line": 0, "severity": "nitpick"}]}`,
			want: `[
				{"path": "$.comments[0].line", "keyword": "minimum", "expected": 1, "received": 0, "message": "value must be >= 1"},
				{"path": "$.score", "keyword": "exclusiveMaximum", "expected": 10, "received": 10.25, "message": "value must be < 10"},
				{"path": "$.score", "keyword": "multipleOf", "expected": 0.5, "received": 10.25, "message": "value must be a multiple of 0.5"}]`,
		},
		{
			name:   "string lengths",
			schema: reviewSchema,
			doc:    `{"summary": "no", "comments": []}`,
			want:   `[{"path": "$.summary", "keyword": "minLength", "expected": 3, "received": "no", "message": "string must be at least 3 characters long"}]`,
		},
		{
			name:   "pattern and maxLength",
			schema: `{"properties": {"slug": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 1}}}`,
			doc:    `{"slug": "Ab"}`,
			want: `[
				{"path": "$.slug", "keyword": "maxLength", "expected": 1, "received": "Ab", "message": "string must be at most 1 character long"},
				{"path": "$.slug", "keyword": "pattern", "expected": "^[a-z]+$", "received": "Ab", "message": "string must match the pattern \"^[a-z]+$\""}]`,
		},
		{
			name:   "nested arrays",
			schema: `{"properties": {"matrix": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}}}`,
			doc:    `{"matrix": [[1, 2], [3, "x"], [4, 5, true]]}`,
			want: `[
				{"path": "$.matrix[1][1]", "keyword": "type", "expected": "integer", "received": "x", "message": "expected integer, got string"},
				{"path": "$.matrix[2][2]", "keyword": "type", "expected": "integer", "received": true, "message": "expected integer, got boolean"}]`,
		},
		{
			name:   "odd keys, and numeric-looking member names",
			schema: `{"additionalProperties": {"type": "string"}}`,
			doc:    `{"odd key": 1, "a.b": 2, "0": 3, "it's": 4, "a/b~c": 5, "ok": "x"}`,
			want: `[
				{"path": "$['0']", "keyword": "type", "expected": "string", "received": 3, "message": "expected string, got integer"},
				{"path": "$['a.b']", "keyword": "type", "expected": "string", "received": 2, "message": "expected string, got integer"},
				{"path": "$['a/b~c']", "keyword": "type", "expected": "string", "received": 5, "message": "expected string, got integer"},
				{"path": "$['it\\'s']", "keyword": "type", "expected": "string", "received": 4, "message": "expected string, got integer"},
				{"path": "$['odd key']", "keyword": "type", "expected": "string", "received": 1, "message": "expected string, got integer"}]`,
		},
		{
			name:   "root",
			schema: `{"type": "object"}`,
			doc:    `["not", "an", "object"]`,
			want:   `[{"path": "$", "keyword": "type", "expected": "object", "received": ["not", "an", "object"], "message": "expected object, got array"}]`,
		},
		{
			name:   "several types",
			schema: `{"properties": {"a": {"type": ["string", "null"]}}}`,
			doc:    `{"a": 1}`,
			want:   `[{"path": "$.a", "keyword": "type", "expected": ["string", "null"], "received": 1, "message": "expected string or null, got integer"}]`,
		},
		{
			name:   "explicit null received",
			schema: `{"properties": {"a": {"type": "string"}}}`,
			doc:    `{"a": null}`,
			want:   `[{"path": "$.a", "keyword": "type", "expected": "string", "received": null, "message": "expected string, got null"}]`,
		},
		{
			name:   "enum of mixed values",
			schema: `{"properties": {"v": {"enum": [1, 2.50, null, {"a": [true]}, "x"]}}}`,
			doc:    `{"v": 3}`,
			want: `[{"path": "$.v", "keyword": "enum", "expected": [1, 2.50, null, {"a": [true]}, "x"], "received": 3,
				"message": "value must be one of 1, 2.50, null, {\"a\":[true]}, \"x\""}]`,
		},
		{
			name:   "const",
			schema: `{"properties": {"v": {"const": {"major": 1}}}}`,
			doc:    `{"v": {"major": 2}}`,
			want:   `[{"path": "$.v", "keyword": "const", "expected": {"major": 1}, "received": {"major": 2}, "message": "value must be {\"major\":1}"}]`,
		},
		{
			name:   "anyOf: one violation for the combinator",
			schema: `{"properties": {"id": {"anyOf": [{"type": "integer"}, {"type": "string", "format": "uuid"}]}}}`,
			doc:    `{"id": "nope"}`,
			want: `[{"path": "$.id", "keyword": "anyOf", "received": "nope",
				"message": "value must match at least one of the allowed schemas: expected integer, got string; or value must be a valid uuid"}]`,
		},
		{
			name:   "oneOf matching two",
			schema: `{"oneOf": [{"type": "integer"}, {"type": "number"}]}`,
			doc:    `3`,
			want:   `[{"path": "$", "keyword": "oneOf", "received": 3, "message": "value must match exactly one of the allowed schemas, but matches several (0, 1)"}]`,
		},
		{
			name:   "oneOf matching none",
			schema: `{"properties": {"x": {"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}}}`,
			doc:    `{"x": {}}`,
			want: `[{"path": "$.x", "keyword": "oneOf", "received": {},
				"message": "value must match exactly one of the allowed schemas: $.x.a: missing required member \"a\"; or $.x.b: missing required member \"b\""}]`,
		},
		{
			name:   "not",
			schema: `{"properties": {"x": {"not": {"type": "string"}}}}`,
			doc:    `{"x": "s"}`,
			want:   `[{"path": "$.x", "keyword": "not", "received": "s", "message": "value must not match the forbidden schema"}]`,
		},
		{
			name:   "allOf and $ref report their leaves, without duplicates",
			schema: `{"allOf": [{"$ref": "#/$defs/named"}, {"$ref": "#/$defs/named"}, {"properties": {"name": {"maxLength": 2}}}], "$defs": {"named": {"required": ["name"], "properties": {"name": {"type": "string"}}}}}`,
			doc:    `{"name": 7}`,
			want:   `[{"path": "$.name", "keyword": "type", "expected": "string", "received": 7, "message": "expected string, got integer"}]`,
		},
		{
			name:   "if/then",
			schema: `{"if": {"properties": {"kind": {"const": "bug"}}}, "then": {"required": ["severity"]}, "else": {"properties": {"severity": false}}}`,
			doc:    `{"kind": "bug"}`,
			want:   `[{"path": "$.severity", "keyword": "required", "message": "missing required member \"severity\""}]`,
		},
		{
			name:   "if/else with a false property",
			schema: `{"if": {"properties": {"kind": {"const": "bug"}}}, "then": {"required": ["severity"]}, "else": {"properties": {"severity": false}}}`,
			doc:    `{"kind": "idea", "severity": 1}`,
			want:   `[{"path": "$.severity", "keyword": "properties", "received": 1, "message": "member \"severity\" is not allowed"}]`,
		},
		{
			name:   "array keywords",
			schema: `{"properties": {"tags": {"type": "array", "minItems": 3, "uniqueItems": true}, "pair": {"prefixItems": [{"type": "string"}], "items": false}}}`,
			doc:    `{"tags": ["a", "a"], "pair": ["a", "b"]}`,
			want: `[
				{"path": "$.pair[1]", "keyword": "items", "received": "b", "message": "item is not allowed here"},
				{"path": "$.tags", "keyword": "minItems", "expected": 3, "received": ["a", "a"], "message": "array must have at least 3 items"},
				{"path": "$.tags", "keyword": "uniqueItems", "expected": true, "received": ["a", "a"], "message": "array items must be unique"}]`,
		},
		{
			name:   "contains",
			schema: `{"properties": {"a": {"contains": {"const": 1}}, "b": {"contains": {"const": 1}, "minContains": 2}}}`,
			doc:    `{"a": [2], "b": [1]}`,
			want: `[
				{"path": "$.a", "keyword": "contains", "received": [2], "message": "array must contain at least 1 matching item"},
				{"path": "$.b", "keyword": "minContains", "expected": 2, "received": [1], "message": "array must contain at least 2 matching items"}]`,
		},
		{
			name:   "object size, dependentRequired, propertyNames",
			schema: `{"minProperties": 3, "dependentRequired": {"a": ["b"]}, "propertyNames": {"pattern": "^[a-z]+$"}}`,
			doc:    `{"a": 1, "B": 2}`,
			want: `[
				{"path": "$", "keyword": "minProperties", "expected": 3, "received": {"a": 1, "B": 2}, "message": "object must have at least 3 members"},
				{"path": "$.B", "keyword": "propertyNames", "received": "B", "message": "member name \"B\" is not allowed: string must match the pattern \"^[a-z]+$\""},
				{"path": "$.b", "keyword": "dependentRequired", "message": "missing member \"b\", required when \"a\" is present"}]`,
		},
		{
			name:   "unevaluatedProperties",
			schema: `{"allOf": [{"properties": {"a": true}}], "unevaluatedProperties": false}`,
			doc:    `{"a": 1, "z": 2}`,
			want:   `[{"path": "$.z", "keyword": "unevaluatedProperties", "received": 2, "message": "member \"z\" is not allowed"}]`,
		},
		{
			name:   "patternProperties",
			schema: `{"patternProperties": {"^n_": {"type": "number"}}, "additionalProperties": false}`,
			doc:    `{"n_a": "x", "other": 1}`,
			want: `[
				{"path": "$.n_a", "keyword": "type", "expected": "number", "received": "x", "message": "expected number, got string"},
				{"path": "$.other", "keyword": "additionalProperties", "received": 1, "message": "member \"other\" is not allowed"}]`,
		},
		{
			name:   "content keywords are annotations",
			schema: `{"properties": {"blob": {"type": "string", "contentEncoding": "base64", "contentMediaType": "application/json"}}}`,
			doc:    `{"blob": "%%% not base64"}`,
			want:   `null`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := compileSchema(t, tt.schema)
			equalJSON(t, s.Validate(decode(t, tt.doc)), tt.want)
		})
	}
}

func TestValidate_draft07(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, `{
		"$schema": "http://json-schema.org/draft-07/schema#",
		"properties": {
			"point": {"type": "array", "items": [{"type": "number"}, {"type": "number"}], "additionalItems": false},
			"ref": {"$ref": "#/definitions/pos", "minimum": 100}
		},
		"definitions": {"pos": {"type": "integer", "minimum": 1}}
	}`)
	equalJSON(t, s.Validate(decode(t, `{"point": [1, "y", 3], "ref": 0}`)), `[
		{"path": "$.point[1]", "keyword": "type", "expected": "number", "received": "y", "message": "expected number, got string"},
		{"path": "$.point[2]", "keyword": "additionalItems", "received": 3, "message": "item is not allowed here"},
		{"path": "$.ref", "keyword": "minimum", "expected": 1, "received": 0, "message": "value must be >= 1"}]`)
}

// TestValidate_jsonNumber checks numbers beyond float64 precision, as
// json.Number keeps them.
func TestValidate_jsonNumber(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, `{"properties": {"big": {"type": "integer", "maximum": 9007199254740993}}}`)
	if got := s.Validate(map[string]any{"big": json.Number("9007199254740993")}); got != nil {
		t.Errorf("at the maximum: %+v", got)
	}
	equalJSON(t, s.Validate(map[string]any{"big": json.Number("9007199254740994")}), `[
		{"path": "$.big", "keyword": "maximum", "expected": 9007199254740993, "received": 9007199254740994, "message": "value must be <= 9007199254740993"}]`)
	equalJSON(t, s.Validate(map[string]any{"big": json.Number("1e400")}), `[
		{"path": "$.big", "keyword": "maximum", "expected": 9007199254740993, "received": 1e400, "message": "value must be <= 9007199254740993"}]`)
}

func TestValidate_receivedOmittedOver1024Bytes(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, `{"properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}`)
	fits := strings.Repeat("x", 1022) // 1024 bytes encoded
	over := strings.Repeat("x", 1023) // 1025 bytes encoded
	vs := s.Validate(map[string]any{"a": fits, "b": over})
	if len(vs) != 2 {
		t.Fatalf("want 2 violations, got %+v", vs)
	}
	if !vs[0].HasReceived || vs[0].Received != fits {
		t.Errorf("$.a: received missing")
	}
	if vs[1].HasReceived || vs[1].Received != nil {
		t.Errorf("$.b: received present although over 1024 bytes")
	}
}

// TestValidate_receivedIsACopy checks that a violation does not share the
// document's maps.
func TestValidate_receivedIsACopy(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, `{"properties": {"a": {"type": "string"}}}`)
	inner := map[string]any{"k": "v"}
	vs := s.Validate(map[string]any{"a": inner})
	inner["k"] = "changed"
	if got := vs[0].Received.(map[string]any)["k"]; got != "v" {
		t.Errorf("received changed with the document: %v", got)
	}
}

func TestValidate_sortedByPathThenKeyword(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, `{"type": "array", "items": {"type": "string", "minLength": 5}}`)
	doc := make([]any, 12)
	for i := range doc {
		doc[i] = "x"
	}
	doc[10] = json.Number("1")
	vs := s.Validate(doc)
	var paths []string
	for _, v := range vs {
		paths = append(paths, v.Path)
	}
	if paths[9] != "$[9]" || paths[10] != "$[10]" || paths[11] != "$[11]" {
		t.Errorf("paths not in numeric order: %v", paths)
	}
	sorted := append([]contract.Violation(nil), vs...)
	contract.SortViolations(sorted)
	for i := range vs {
		if vs[i].Path != sorted[i].Path || vs[i].Keyword != sorted[i].Keyword {
			t.Fatalf("not sorted at %d: %v", i, paths)
		}
	}
}
