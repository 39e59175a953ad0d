package validator

import (
	"maps"
	"slices"

	"github.com/agentgate/agentgate/contract"
)

// Keywords whose value is one subschema.
var SubschemaKeywords = []string{
	"additionalProperties", "additionalItems", "unevaluatedItems", "unevaluatedProperties",
	"propertyNames", "contains", "not", "if", "then", "else", "contentSchema", "items",
}

// Keywords whose value is an array of subschemas ("items" too, in its
// draft-07 tuple form).
var SubschemaListKeywords = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}

// Keywords whose value is an object of subschemas ("dependencies" too, for
// the members that are not arrays of names).
var SubschemaMapKeywords = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}

// WalkSchema calls fn for every schema object in the schema document doc,
// found at path (a contract JSONPath into the document, "$" for the root):
// doc itself when it is an object, then, depth first and in sorted keyword
// and member order, every subschema reached through the keywords of drafts
// 07 and 2020-12. Values of enum, const, default, examples and unknown
// keywords are never entered, so an object there is not taken for a
// schema. Boolean subschemas are skipped. via is the keyword that led to
// the node ("" for doc). fn returns false to skip the node's subschemas.
func WalkSchema(doc any, path string, fn func(node map[string]any, path, via string) bool) {
	walkVia(doc, path, "", fn)
}

func walkVia(doc any, path, via string, fn func(node map[string]any, path, via string) bool) {
	node, ok := doc.(map[string]any)
	if !ok || !fn(node, path, via) {
		return
	}
	for _, kw := range SubschemaKeywords {
		if v, ok := node[kw].(map[string]any); ok {
			walkVia(v, contract.Member(path, kw), kw, fn)
		}
	}
	for _, kw := range SubschemaListKeywords {
		if list, ok := node[kw].([]any); ok {
			for i, v := range list {
				walkVia(v, contract.Index(contract.Member(path, kw), i), kw, fn)
			}
		}
	}
	for _, kw := range SubschemaMapKeywords {
		if m, ok := node[kw].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(m)) {
				walkVia(m[name], contract.Member(contract.Member(path, kw), name), kw, fn)
			}
		}
	}
}
