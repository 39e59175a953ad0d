package jtd

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/agentgate/agentgate/contract"
)

// Metadata members that carry over into the JSON Schema translation.
const (
	// MetaID is the schema's registry id (metadata.id).
	MetaID = "id"
	// MetaAliases lists a property's other names (metadata.aliases), the
	// x-aliases of the translation.
	MetaAliases = "aliases"
	// MetaRules holds the schema's business rules (metadata.rules), the
	// x-rules of the translation.
	MetaRules = "rules"
)

// JSONSchema translates the schema to the equivalent JSON Schema 2020-12
// document, with numbers as json.Number like a document decoded with
// UseNumber: definitions become $defs, ref a $ref, nullable a "null"
// alternative, the integer types bounded integers, timestamp a string of
// format date-time, properties a closed object (unless
// additionalProperties), values an object's additionalProperties,
// discriminator an anyOf of the mapping's closed objects, each with the
// tag as a const. metadata.id becomes $id; metadata.title and
// metadata.description the keywords of that name; metadata.aliases
// x-aliases and metadata.rules (root) x-rules.
//
// The differences in meaning: RFC 8927 accepts a leap second (:60) in any
// timestamp, JSON Schema's date-time only at the end of a UTC day; JSON
// Schema's date-time (RFC 3339) also accepts a lowercase "t" and "z",
// which RFC 8927 (through RFC 4287 section 3.3) refuses.
func (s *Schema) JSONSchema() map[string]any {
	out := s.translate()
	out["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	if id, ok := s.Metadata[MetaID].(string); ok {
		out["$id"] = id
	}
	if r, ok := s.Metadata[MetaRules]; ok {
		out["x-rules"] = r
	}
	if len(s.Definitions) > 0 {
		defs := map[string]any{}
		for name, d := range s.Definitions {
			defs[name] = d.translate()
		}
		out["$defs"] = defs
	}
	return out
}

func (s *Schema) translate() map[string]any {
	out := map[string]any{}
	switch s.Form {
	case FormEmpty:
	case FormRef:
		ref := map[string]any{"$ref": "#/$defs/" + escape(s.Ref)}
		if s.Nullable {
			out["anyOf"] = []any{map[string]any{"type": "null"}, ref}
		} else {
			out = ref
		}
	case FormType:
		switch s.Type {
		case "boolean", "string":
			out["type"] = s.Type
		case "timestamp":
			out["type"], out["format"] = "string", "date-time"
		case "float32", "float64":
			out["type"] = "number"
		default:
			r := intRanges[s.Type]
			out["type"] = "integer"
			out["minimum"] = json.Number(strconv.FormatInt(r[0], 10))
			out["maximum"] = json.Number(strconv.FormatInt(r[1], 10))
		}
	case FormEnum:
		enum := make([]any, 0, len(s.Enum)+1)
		for _, e := range s.Enum {
			enum = append(enum, e)
		}
		if s.Nullable {
			enum = append(enum, nil)
		}
		out["type"], out["enum"] = "string", enum
	case FormElements:
		out["type"], out["items"] = "array", s.Elements.translate()
	case FormProperties:
		s.translateProperties(out, "")
	case FormValues:
		out["type"], out["additionalProperties"] = "object", s.Values.translate()
	case FormDiscriminator:
		keys := slices.Sorted(maps.Keys(s.Mapping))
		tags := make([]any, len(keys))
		branches := make([]any, len(keys))
		for i, k := range keys {
			tags[i] = k
			b := map[string]any{}
			s.Mapping[k].translateProperties(b, s.Discriminator)
			b["properties"].(map[string]any)[s.Discriminator] = map[string]any{"const": k}
			delete(b, "type")
			branches[i] = b
		}
		out["type"] = "object"
		out["required"] = []any{s.Discriminator}
		out["properties"] = map[string]any{s.Discriminator: map[string]any{"type": "string", "enum": tags}}
		out["anyOf"] = branches
	}
	switch {
	case s.Nullable && s.Form == FormDiscriminator:
		out = map[string]any{"anyOf": []any{map[string]any{"type": "null"}, out}}
	case s.Nullable && s.Form != FormRef && s.Form != FormEmpty:
		if t, ok := out["type"].(string); ok {
			out["type"] = []any{t, "null"}
		}
	}
	for _, k := range []string{"title", "description"} {
		if v, ok := s.Metadata[k].(string); ok {
			out[k] = v
		}
	}
	if a, ok := s.Metadata[MetaAliases]; ok {
		out[contract.AliasesKeyword] = a
	}
	return out
}

// translateProperties writes the properties form into out; tag, when not
// empty, is a discriminator's tag that the object also allows.
func (s *Schema) translateProperties(out map[string]any, tag string) {
	props := map[string]any{}
	required := []any{}
	if tag != "" {
		required = append(required, tag)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		props[k] = s.Properties[k].translate()
		required = append(required, k)
	}
	for k, p := range s.OptionalProperties {
		props[k] = p.translate()
	}
	out["type"] = "object"
	out["properties"] = props
	if len(required) > 0 {
		out["required"] = required
	}
	if !s.AdditionalProperties {
		out["additionalProperties"] = false
	}
}
