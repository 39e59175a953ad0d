package normalize_test

import (
	"testing"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers/normalize"
	"github.com/agentgate/agentgate/internal/pipelinetest"
)

// member wraps a property schema as the schema of an object's member v.
func memberSchema(schema string) string {
	return `{"type": "object", "properties": {"v": ` + schema + `}}`
}

var coerceCases = []normCase{
	{name: "string to integer", schema: memberSchema(`{"type": "integer"}`), given: `{"v": "42"}`, want: `{"v": 42}`,
		ops: []contract.Normalization{pipelinetest.Coerce("$.v", `"42"`, `42`, "string to integer")}},
	{name: "integral decimal to integer", schema: memberSchema(`{"type": "integer"}`), given: `{"v": " -4.20e1 "}`, want: `{"v": -42}`,
		ops: []contract.Normalization{pipelinetest.Coerce("$.v", `" -4.20e1 "`, `-42`, "string to integer")}},
	{name: "fraction is no integer", schema: memberSchema(`{"type": "integer"}`), given: `{"v": "4.2"}`, want: `{"v": "4.2"}`},
	{name: "huge exponent is left alone", schema: memberSchema(`{"type": "integer"}`), given: `{"v": "1e99999999999"}`, want: `{"v": "1e99999999999"}`},
	{name: "string to number keeps the text", schema: memberSchema(`{"type": "number"}`), given: `{"v": "1.50"}`, want: `{"v": 1.50}`,
		ops: []contract.Normalization{pipelinetest.Coerce("$.v", `"1.50"`, `1.50`, "string to number")}},
	{name: "not a JSON number", schema: memberSchema(`{"type": "number"}`), given: `{"v": "0x10"}`, want: `{"v": "0x10"}`},
	{name: "leading zeros are not JSON", schema: memberSchema(`{"type": "number"}`), given: `{"v": "007"}`, want: `{"v": "007"}`},
	{name: "number allowed with null", schema: memberSchema(`{"type": ["number", "null"]}`), given: `{"v": "3"}`, want: `{"v": 3}`,
		ops: []contract.Normalization{pipelinetest.Coerce("$.v", `"3"`, `3`, "string to number")}},
	{name: "string allowed: no number coercion", schema: memberSchema(`{"type": ["string", "number"]}`), given: `{"v": "3"}`, want: `{"v": "3"}`},
	{name: "string to boolean", schema: memberSchema(`{"type": "boolean"}`), given: `{"v": "TRUE"}`, want: `{"v": true}`,
		ops: []contract.Normalization{pipelinetest.Coerce("$.v", `"TRUE"`, `true`, "string to boolean")}},
	{name: "false", schema: memberSchema(`{"type": "boolean"}`), given: `{"v": "false"}`, want: `{"v": false}`,
		ops: []contract.Normalization{pipelinetest.Coerce("$.v", `"false"`, `false`, "string to boolean")}},
	{name: "yes is no boolean", schema: memberSchema(`{"type": "boolean"}`), given: `{"v": "yes"}`, want: `{"v": "yes"}`},
	{name: "value to array", schema: memberSchema(`{"type": "array"}`), given: `{"v": "x"}`, want: `{"v": ["x"]}`,
		ops: []contract.Normalization{pipelinetest.Coerce("$.v", `"x"`, `["x"]`, "string to array")}},
	{name: "wrapped value is coerced too", schema: memberSchema(`{"type": "array", "items": {"type": "integer"}}`), given: `{"v": "5"}`, want: `{"v": [5]}`,
		ops: []contract.Normalization{pipelinetest.Coerce("$.v", `"5"`, `["5"]`, "string to array"), pipelinetest.Coerce("$.v[0]", `"5"`, `5`, "string to integer")}},
	{name: "two readings: nothing", schema: memberSchema(`{"type": ["integer", "array"]}`), given: `{"v": "5"}`, want: `{"v": "5"}`},
	{name: "enum case and whitespace", schema: memberSchema(`{"type": "string", "enum": ["low", "high"]}`), given: `{"v": " High"}`, want: `{"v": "high"}`,
		ops: []contract.Normalization{pipelinetest.Coerce("$.v", `" High"`, `"high"`, "string to enum value")}},
	{name: "enum without type, via $ref", schema: `{"properties": {"v": {"$ref": "#/$defs/level"}}, "$defs": {"level": {"enum": ["low", "high", 3]}}}`,
		given: `{"v": "LOW"}`, want: `{"v": "low"}`, ops: []contract.Normalization{pipelinetest.Coerce("$.v", `"LOW"`, `"low"`, "string to enum value")}},
	{name: "ambiguous enum", schema: memberSchema(`{"enum": ["High", "high"]}`), given: `{"v": "HIGH"}`, want: `{"v": "HIGH"}`},
	{name: "enum and const must agree", schema: memberSchema(`{"enum": ["a", "b"], "allOf": [{"const": "b"}]}`), given: `{"v": "A"}`, want: `{"v": "A"}`},
	{name: "unknown enum value stays", schema: memberSchema(`{"enum": ["low", "high"]}`), given: `{"v": "critical"}`, want: `{"v": "critical"}`},
	{name: "null in optional member removed", schema: memberSchema(`{"type": "string"}`), given: `{"v": null}`, want: `{}`,
		ops: []contract.Normalization{pipelinetest.NullRemoved("$.v")}},
	{name: "null kept where allowed", schema: memberSchema(`{"type": ["string", "null"]}`), given: `{"v": null}`, want: `{"v": null}`},
	{name: "null kept when required", schema: `{"required": ["v"], "properties": {"v": {"type": "string"}}}`, given: `{"v": null}`, want: `{"v": null}`},
	{name: "null kept with no type", schema: memberSchema(`{"description": "anything"}`), given: `{"v": null}`, want: `{"v": null}`},
	{name: "null kept in arrays", schema: `{"items": {"type": "string"}}`, given: `[null]`, want: `[null]`},
	{name: "null removed from an enum member", schema: memberSchema(`{"enum": ["a"]}`), given: `{"v": null}`, want: `{}`,
		ops: []contract.Normalization{pipelinetest.NullRemoved("$.v")}},
	{name: "anyOf: the one branch that accepts", schema: memberSchema(`{"anyOf": [{"type": "integer"}, {"type": "boolean"}]}`), given: `{"v": "1"}`, want: `{"v": 1}`,
		ops: []contract.Normalization{pipelinetest.Coerce("$.v", `"1"`, `1`, "string to integer (anyOf)")}},
	{name: "anyOf: nullable integer", schema: memberSchema(`{"anyOf": [{"type": "integer"}, {"type": "null"}]}`), given: `{"v": "5"}`, want: `{"v": 5}`,
		ops: []contract.Normalization{pipelinetest.Coerce("$.v", `"5"`, `5`, "string to integer (anyOf)")}},
	{name: "anyOf: boolean branch", schema: memberSchema(`{"anyOf": [{"type": "integer"}, {"type": "boolean"}]}`), given: `{"v": "TRUE"}`, want: `{"v": true}`,
		ops: []contract.Normalization{pipelinetest.Coerce("$.v", `"TRUE"`, `true`, "string to boolean (anyOf)")}},
	{name: "oneOf: enum case under a branch", schema: memberSchema(`{"oneOf": [{"type": "string", "enum": ["low", "high"]}, {"type": "integer"}]}`), given: `{"v": " High"}`, want: `{"v": "high"}`,
		ops: []contract.Normalization{pipelinetest.Coerce("$.v", `" High"`, `"high"`, "string to enum value (oneOf)")}},
	{name: "oneOf: branches behind $ref", schema: `{"properties": {"v": {"oneOf": [{"$ref": "#/$defs/n"}, {"$ref": "#/$defs/s"}]}}, "$defs": {"n": {"type": "number", "minimum": 0}, "s": {"type": "array", "items": {"type": "string"}, "minItems": 2}}}`,
		given: `{"v": "2.5"}`, want: `{"v": 2.5}`, ops: []contract.Normalization{pipelinetest.Coerce("$.v", `"2.5"`, `2.5`, "string to number (oneOf)")}},
	{name: "anyOf: two branches accept the result", schema: memberSchema(`{"anyOf": [{"type": "integer"}, {"type": "number"}]}`), given: `{"v": "42"}`, want: `{"v": "42"}`},
	{name: "anyOf: accepted as it is", schema: memberSchema(`{"anyOf": [{"type": "integer"}, {"type": "string"}]}`), given: `{"v": "42"}`, want: `{"v": "42"}`},
	{name: "anyOf: the result fails its branch", schema: memberSchema(`{"anyOf": [{"type": "integer", "minimum": 10}, {"type": "boolean"}]}`), given: `{"v": "5"}`, want: `{"v": "5"}`},
	{name: "anyOf: two results, each accepted by one branch", schema: memberSchema(`{"anyOf": [{"type": "integer"}, {"type": "array"}]}`), given: `{"v": "5"}`, want: `{"v": "5"}`},
	{name: "anyOf: a branch it cannot judge", schema: memberSchema(`{"anyOf": [{"type": "integer"}, {"type": "string", "format": "date"}]}`), given: `{"v": "42"}`, want: `{"v": "42"}`},
	{name: "anyOf: an unknown keyword", schema: memberSchema(`{"anyOf": [{"type": "integer", "multipleOf": 2}, {"type": "boolean"}]}`), given: `{"v": "4"}`, want: `{"v": "4"}`},
	{name: "anyOf and oneOf together: nothing", schema: memberSchema(`{"anyOf": [{"type": "integer"}, {"type": "boolean"}], "allOf": [{"oneOf": [{"type": "integer"}, {"type": "null"}]}]}`), given: `{"v": "1"}`, want: `{"v": "1"}`},
	{name: "oneOf: sibling keywords must accept too", schema: memberSchema(`{"oneOf": [{"type": "integer"}, {"type": "boolean"}], "enum": [1, 2, "x"]}`), given: `{"v": "3"}`, want: `{"v": "3"}`},
	{name: "anyOf: null removed when every branch rejects it", schema: memberSchema(`{"anyOf": [{"type": "string"}, {"type": "integer"}]}`), given: `{"v": null}`, want: `{}`,
		ops: []contract.Normalization{pipelinetest.NullRemoved("$.v")}},
	{name: "anyOf: null kept when a branch allows it", schema: memberSchema(`{"anyOf": [{"type": "string"}, {"type": "null"}]}`), given: `{"v": null}`, want: `{"v": null}`},
	{name: "conjunctive type beside oneOf", schema: memberSchema(`{"type": "integer", "oneOf": [{"minimum": 0}, {"maximum": -10}]}`), given: `{"v": "1"}`, want: `{"v": 1}`,
		ops: []contract.Normalization{pipelinetest.Coerce("$.v", `"1"`, `1`, "string to integer")}},
	{name: "allOf narrows number to integer", schema: memberSchema(`{"type": "number", "allOf": [{"type": "integer"}]}`), given: `{"v": "2.5"}`, want: `{"v": "2.5"}`},
	{name: "root value", schema: `{"type": "array", "items": {"type": "boolean"}}`, given: `"true"`, want: `[true]`,
		ops: []contract.Normalization{pipelinetest.Coerce("$", `"true"`, `["true"]`, "string to array"), pipelinetest.Coerce("$[0]", `"true"`, `true`, "string to boolean")}},
	{name: "prefixItems then items", schema: `{"prefixItems": [{"type": "integer"}], "items": {"type": "boolean"}}`, given: `["1", "true", "false"]`, want: `[1, true, false]`,
		ops: []contract.Normalization{pipelinetest.Coerce("$[0]", `"1"`, `1`, "string to integer"), pipelinetest.Coerce("$[1]", `"true"`, `true`, "string to boolean"), pipelinetest.Coerce("$[2]", `"false"`, `false`, "string to boolean")}},
	{name: "draft-07 tuple items and additionalItems", schema: `{"items": [{"type": "integer"}], "additionalItems": {"type": "number"}}`, given: `["1", "2.5"]`, want: `[1, 2.5]`,
		ops: []contract.Normalization{pipelinetest.Coerce("$[0]", `"1"`, `1`, "string to integer"), pipelinetest.Coerce("$[1]", `"2.5"`, `2.5`, "string to number")}},
	{name: "patternProperties and additionalProperties schemas", schema: `{"patternProperties": {"^n_": {"type": "integer"}}, "additionalProperties": {"type": "boolean"}}`,
		given: `{"n_a": "1", "flag": "true"}`, want: `{"n_a": 1, "flag": true}`,
		ops: []contract.Normalization{pipelinetest.Coerce("$.flag", `"true"`, `true`, "string to boolean"), pipelinetest.Coerce("$.n_a", `"1"`, `1`, "string to integer")}},
	{name: "integral number stays", schema: memberSchema(`{"type": "integer"}`), given: `{"v": 42.0}`, want: `{"v": 42.0}`},
	{name: "fractional number under integer stays", schema: memberSchema(`{"type": "integer"}`), given: `{"v": 42.5}`, want: `{"v": 42.5}`},
	{name: "exponent written out", schema: memberSchema(`{"type": "integer"}`), given: `{"v": "1e3"}`, want: `{"v": 1000}`,
		ops: []contract.Normalization{pipelinetest.Coerce("$.v", `"1e3"`, `1000`, "string to integer")}},
	{name: "negative zero", schema: memberSchema(`{"type": "integer"}`), given: `{"v": "-0.0"}`, want: `{"v": 0}`,
		ops: []contract.Normalization{pipelinetest.Coerce("$.v", `"-0.0"`, `0`, "string to integer")}},
	{name: "large exponent kept as written", schema: memberSchema(`{"type": "integer"}`), given: `{"v": "2E21"}`, want: `{"v": 2E21}`,
		ops: []contract.Normalization{pipelinetest.Coerce("$.v", `"2E21"`, `2E21`, "string to integer")}},
	{name: "number to array", schema: memberSchema(`{"type": "array"}`), given: `{"v": 3}`, want: `{"v": [3]}`,
		ops: []contract.Normalization{pipelinetest.Coerce("$.v", `3`, `[3]`, "number to array")}},
	{name: "boolean and object to array", schema: `{"items": {"type": "array"}}`, given: `[true, {"a": 1}, [1]]`, want: `[[true], [{"a": 1}], [1]]`,
		ops: []contract.Normalization{pipelinetest.Coerce("$[0]", `true`, `[true]`, "boolean to array"), pipelinetest.Coerce("$[1]", `{"a":1}`, `[{"a":1}]`, "object to array")}},
	{name: "null is never wrapped", schema: `{"required": ["v"], "properties": {"v": {"type": "array"}}}`, given: `{"v": null}`, want: `{"v": null}`},
	{name: "no coercion below a dynamic reference", schema: memberSchema(`{"$dynamicRef": "#node", "type": "integer"}`), given: `{"v": "1"}`, want: `{"v": "1"}`},
	{name: "long values are cut in From and To", schema: memberSchema(`{"type": "array"}`),
		given: `{"v": "0123456789012345678901234567890123456789012345678901234567890123456789"}`,
		want:  `{"v": ["0123456789012345678901234567890123456789012345678901234567890123456789"]}`,
		ops: []contract.Normalization{pipelinetest.Coerce("$.v", `"012345678901234567890123456789012345678901234567890123456789...`,
			`["01234567890123456789012345678901234567890123456789012345678...`, "string to array")}},
	// Branches of a discriminator (a JTD translation, a provider export with optional
	// members required and nullable): a null the one matching branch does not allow.
	{name: "anyOf: null of a branch's optional member removed",
		schema: `{"anyOf": [
			{"type": "object", "required": ["kind", "team"], "additionalProperties": false,
			 "properties": {"kind": {"const": "page"}, "team": {"type": "string"}, "urgent": {"type": "boolean"}}},
			{"type": "object", "required": ["kind", "release"], "additionalProperties": false,
			 "properties": {"kind": {"const": "rollback"}, "release": {"type": "string"}}}]}`,
		given: `{"kind": "page", "team": "db", "urgent": null}`, want: `{"kind": "page", "team": "db"}`,
		ops: []contract.Normalization{{Op: contract.OpCoerce, Path: "$.urgent", From: "null", Detail: "null in optional member removed (anyOf)"}}},
	{name: "anyOf: a required member's null stays",
		schema: `{"anyOf": [{"type": "object", "required": ["team"], "properties": {"team": {"type": "string"}}},
			{"type": "object", "required": ["release"], "properties": {"release": {"type": "string"}}}]}`,
		given: `{"team": null}`, want: `{"team": null}`},
	{name: "anyOf: two branches accept without the null: nothing",
		schema: `{"anyOf": [{"type": "object", "properties": {"x": {"type": "string"}}, "required": ["a"]},
			{"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["a"], "minProperties": 1}]}`,
		given: `{"a": 1, "x": null}`, want: `{"a": 1, "x": null}`},
}

func TestNormalize_coerce(t *testing.T) {
	t.Parallel()
	cases := make([]normCase, len(coerceCases))
	for i, c := range coerceCases {
		c.opts = stripAndCoerce
		cases[i] = c
	}
	runNormCases(t, cases)
}

func TestNormalize_coerceDisabled(t *testing.T) {
	t.Parallel()
	cases := make([]normCase, len(coerceCases))
	for i, c := range coerceCases {
		c.opts = normalize.Options{}
		c.want, c.ops = c.given, nil
		cases[i] = c
	}
	runNormCases(t, cases)
}

// TestNormalize_plainFloats covers documents decoded without UseNumber.
func TestNormalize_plainFloats(t *testing.T) {
	t.Parallel()
	schema := pipelinetest.DecodeSchema(t, `{"properties": {"i": {"type": "integer"}, "f": {"type": "integer"}, "a": {"type": "array"}}}`)
	doc := map[string]any{"i": 2.0, "f": 2.5, "a": 1.5}
	out, ops := normalize.Normalize(doc, schema, nil, stripAndCoerce)
	if got := pipelinetest.CompactJSON(t, out); got != `{"a":[1.5],"f":2.5,"i":2}` {
		t.Errorf("doc = %s", got)
	}
	want := []contract.Normalization{pipelinetest.Coerce("$.a", `1.5`, `[1.5]`, "number to array")}
	if len(ops) != 1 || ops[0] != want[0] {
		t.Errorf("normalizations =\n%s\nwant\n%s", pipelinetest.FormatNormalizations(ops), pipelinetest.FormatNormalizations(want))
	}
}
