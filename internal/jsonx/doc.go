// Package jsonx holds the small helpers every stage needs on documents as
// encoding/json decodes them (with UseNumber: json.Number, string, bool,
// nil, []any, map[string]any), one copy each: equality of two values
// (numbers by exact value, so 1 and 1.0 are equal), the JSON type name of a
// value, the evaluation of a JSON pointer or an anchor inside a document,
// the reading of JSON number text without floating point, and which schema
// keywords are annotations.
//
// The normalizer, the validator's messages, the schema linter and the
// compatibility checker used to keep copies of these that disagreed at the
// edges; they now share these. It must never import anything of
// agentgate's: it sits below every package that uses it.
package jsonx
