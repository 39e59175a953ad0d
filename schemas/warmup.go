package schemas

import (
	"reflect"

	"github.com/kaptinlin/jsonschema"
)

// prepare finishes a loaded registry: it indexes the documents' objects for
// Resolve and readies the compiled schemas for concurrent validation.
func (r *Registry) prepare() {
	for _, s := range r.schemas {
		s.reg = r
		walkJSON(s.Doc, func(m map[string]any) {
			r.owners[reflect.ValueOf(m).UnsafePointer()] = s
		})
		s.serialize = warmUp(s.compiled)
	}
}

// warmUp walks every node reachable from root (through $ref too) and
// compiles the regular expressions kaptinlin compiles lazily on first use
// (pattern.go:10-17: an unsynchronised write, a data race between the first
// concurrent validations). It reports whether a node with
// patternProperties is reachable, whose validations must be serialised.
func warmUp(root *jsonschema.Schema) (hasPatternProperties bool) {
	seen := make(map[*jsonschema.Schema]bool)
	var visit func(*jsonschema.Schema)
	visit = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if s.Pattern != nil {
			// Evaluating a string instance runs evaluatePattern, which
			// compiles and caches the expression.
			s.ValidateStruct("")
		}
		if s.PatternProperties != nil {
			hasPatternProperties = true
		}
		for _, c := range children(s) {
			visit(c)
		}
	}
	visit(root)
	return hasPatternProperties
}

// children lists the subschemas of s, $ref targets included.
func children(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{
		s.ResolvedRef, s.ResolvedDynamicRef, s.Not, s.If, s.Then, s.Else, s.Items, s.Contains,
		s.AdditionalProperties, s.PropertyNames, s.UnevaluatedItems, s.UnevaluatedProperties, s.ContentSchema,
	}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	out = append(out, s.PrefixItems...)
	for _, m := range []map[string]*jsonschema.Schema{s.Defs, s.DependentSchemas} {
		for _, c := range m {
			out = append(out, c)
		}
	}
	for _, m := range []*jsonschema.SchemaMap{s.Properties, s.PatternProperties} {
		if m != nil {
			for _, c := range *m {
				out = append(out, c)
			}
		}
	}
	return out
}
