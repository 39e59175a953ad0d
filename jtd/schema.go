package jtd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Form is one of the eight forms of RFC 8927 section 2.2.
type Form int

// The forms, in the RFC's order.
const (
	FormEmpty Form = iota
	FormRef
	FormType
	FormEnum
	FormElements
	FormProperties
	FormValues
	FormDiscriminator
)

var formNames = [...]string{"empty", "ref", "type", "enum", "elements", "properties", "values", "discriminator"}

// String is the form's name in the RFC.
func (f Form) String() string { return formNames[f] }

// Types are the values of the "type" keyword (RFC 8927 section 2.2.3).
var Types = []string{"boolean", "float32", "float64", "int8", "uint8", "int16", "uint16",
	"int32", "uint32", "string", "timestamp"}

// Schema is a parsed JTD schema. Only the root has Definitions.
type Schema struct {
	Form        Form
	Definitions map[string]*Schema
	Metadata    map[string]any
	Nullable    bool

	Ref                  string
	Type                 string
	Enum                 []string
	Elements             *Schema
	Properties           map[string]*Schema
	OptionalProperties   map[string]*Schema
	AdditionalProperties bool
	// HasProperties and HasOptionalProperties tell which of the two
	// keywords the schema has (either may be an empty object).
	HasProperties         bool
	HasOptionalProperties bool
	Values                *Schema
	Discriminator         string
	Mapping               map[string]*Schema
}

// keywords is every member a JTD schema may have.
var keywords = []string{"definitions", "metadata", "nullable", "ref", "type", "enum", "elements",
	"properties", "optionalProperties", "additionalProperties", "values", "discriminator", "mapping"}

// Parse decodes raw (one JSON object, numbers kept exact) and checks it is
// a correct JTD schema; the error wraps ErrInvalidSchema and names the
// location and the reason.
func Parse(raw []byte) (*Schema, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: data after the schema", ErrInvalidSchema)
	}
	return FromValue(v)
}

// FromValue is Parse on a decoded document.
func FromValue(v any) (*Schema, error) {
	p := parser{}
	s := p.schema(v, "", true)
	if p.err != nil {
		return nil, p.err
	}
	p.checkRefs(s, s, "")
	if p.err != nil {
		return nil, p.err
	}
	if err := refCycles(s); err != nil {
		return nil, err
	}
	return s, nil
}

type parser struct{ err error }

func (p *parser) fail(at, format string, args ...any) {
	if p.err != nil {
		return
	}
	if at == "" {
		at = "(root)"
	}
	p.err = fmt.Errorf("%w: at %s: %s", ErrInvalidSchema, at, fmt.Sprintf(format, args...))
}

// schema parses one schema at the JSON Pointer at.
func (p *parser) schema(v any, at string, root bool) *Schema {
	obj, ok := v.(map[string]any)
	if !ok {
		p.fail(at, "a schema must be a JSON object, not %s", kind(v))
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !slices.Contains(keywords, k) {
			p.fail(at, "unknown keyword %q (allowed: %s)", k, strings.Join(keywords, ", "))
			return nil
		}
	}
	s := &Schema{}
	if d, ok := obj["definitions"]; ok {
		if !root {
			p.fail(at+"/definitions", `"definitions" is allowed only at the root`)
			return nil
		}
		defs, ok := d.(map[string]any)
		if !ok {
			p.fail(at+"/definitions", `"definitions" must be an object`)
			return nil
		}
		s.Definitions = map[string]*Schema{}
		for _, name := range slices.Sorted(maps.Keys(defs)) {
			s.Definitions[name] = p.schema(defs[name], at+"/definitions/"+escape(name), false)
		}
	}
	if m, ok := obj["metadata"]; ok {
		if s.Metadata, ok = m.(map[string]any); !ok {
			p.fail(at+"/metadata", `"metadata" must be an object`)
		}
	}
	if n, ok := obj["nullable"]; ok {
		if s.Nullable, ok = n.(bool); !ok {
			p.fail(at+"/nullable", `"nullable" must be a boolean`)
		}
	}
	has := func(k string) bool { _, ok := obj[k]; return ok }
	var form []string
	for _, k := range []string{"ref", "type", "enum", "elements", "properties", "optionalProperties", "additionalProperties", "values", "discriminator", "mapping"} {
		if has(k) {
			form = append(form, k)
		}
	}
	switch strings.Join(form, ",") {
	case "":
		s.Form = FormEmpty
	case "ref":
		s.Form = FormRef
		if s.Ref, ok = obj["ref"].(string); !ok {
			p.fail(at+"/ref", `"ref" must be a string`)
		}
	case "type":
		s.Form = FormType
		if s.Type, ok = obj["type"].(string); !ok || !slices.Contains(Types, s.Type) {
			p.fail(at+"/type", `"type" must be one of %s, not %s`, strings.Join(Types, ", "), compact(obj["type"]))
		}
	case "enum":
		s.Form = FormEnum
		list, ok := obj["enum"].([]any)
		if !ok || len(list) == 0 {
			p.fail(at+"/enum", `"enum" must be a non-empty array of strings`)
			break
		}
		for i, e := range list {
			str, ok := e.(string)
			switch {
			case !ok:
				p.fail(fmt.Sprintf("%s/enum/%d", at, i), `"enum" must hold strings only, not %s`, kind(e))
			case slices.Contains(s.Enum, str):
				p.fail(fmt.Sprintf("%s/enum/%d", at, i), `"enum" repeats %q`, str)
			}
			s.Enum = append(s.Enum, str)
		}
	case "elements":
		s.Form = FormElements
		s.Elements = p.schema(obj["elements"], at+"/elements", false)
	case "values":
		s.Form = FormValues
		s.Values = p.schema(obj["values"], at+"/values", false)
	case "discriminator,mapping":
		s.Form = FormDiscriminator
		p.discriminator(s, obj, at)
	default:
		props := form
		if props[len(props)-1] == "additionalProperties" {
			props = props[:len(props)-1]
		}
		switch strings.Join(props, ",") {
		case "properties", "optionalProperties", "properties,optionalProperties":
			s.Form = FormProperties
			p.properties(s, obj, at)
		default:
			p.fail(at, "the keywords %s do not make one of the forms of RFC 8927 section 2.2 "+
				"(empty, ref, type, enum, elements, properties, values, discriminator)", strings.Join(form, ", "))
		}
	}
	return s
}

func (p *parser) properties(s *Schema, obj map[string]any, at string) {
	members := func(kw string) map[string]*Schema {
		v, ok := obj[kw]
		if !ok {
			return nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			p.fail(at+"/"+kw, "%q must be an object", kw)
			return nil
		}
		out := make(map[string]*Schema, len(m))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			out[k] = p.schema(m[k], at+"/"+kw+"/"+escape(k), false)
		}
		return out
	}
	_, s.HasProperties = obj["properties"]
	_, s.HasOptionalProperties = obj["optionalProperties"]
	s.Properties, s.OptionalProperties = members("properties"), members("optionalProperties")
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		if _, dup := s.OptionalProperties[k]; dup {
			p.fail(at+"/optionalProperties/"+escape(k), "%q is both in properties and in optionalProperties", k)
		}
	}
	if a, ok := obj["additionalProperties"]; ok {
		if s.AdditionalProperties, ok = a.(bool); !ok {
			p.fail(at+"/additionalProperties", `"additionalProperties" must be a boolean`)
		}
	}
}

func (p *parser) discriminator(s *Schema, obj map[string]any, at string) {
	var ok bool
	if s.Discriminator, ok = obj["discriminator"].(string); !ok {
		p.fail(at+"/discriminator", `"discriminator" must be a string`)
		return
	}
	m, ok := obj["mapping"].(map[string]any)
	if !ok {
		p.fail(at+"/mapping", `"mapping" must be an object`)
		return
	}
	s.Mapping = make(map[string]*Schema, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		bat := at + "/mapping/" + escape(k)
		b := p.schema(m[k], bat, false)
		s.Mapping[k] = b
		if b == nil {
			continue
		}
		switch {
		case b.Form != FormProperties:
			p.fail(bat, "a mapping's schema must be of the properties form, not %s", b.Form)
		case b.Nullable:
			p.fail(bat, `a mapping's schema must not be "nullable"`)
		case b.Properties[s.Discriminator] != nil || b.OptionalProperties[s.Discriminator] != nil:
			p.fail(bat, "a mapping's schema must not declare the discriminator %q", s.Discriminator)
		}
	}
}

// checkRefs checks that every ref names a definition of the root.
func (p *parser) checkRefs(root, s *Schema, at string) {
	if s == nil {
		return
	}
	if s.Form == FormRef {
		if _, ok := root.Definitions[s.Ref]; !ok {
			p.fail(at+"/ref", "ref %q names no definition of the root", s.Ref)
		}
	}
	s.children(at, func(c *Schema, cat string) { p.checkRefs(root, c, cat) })
}

// children calls fn for each direct subschema with its location.
func (s *Schema) children(at string, fn func(c *Schema, at string)) {
	for _, k := range slices.Sorted(maps.Keys(s.Definitions)) {
		fn(s.Definitions[k], at+"/definitions/"+escape(k))
	}
	if s.Elements != nil {
		fn(s.Elements, at+"/elements")
	}
	if s.Values != nil {
		fn(s.Values, at+"/values")
	}
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		fn(s.Properties[k], at+"/properties/"+escape(k))
	}
	for _, k := range slices.Sorted(maps.Keys(s.OptionalProperties)) {
		fn(s.OptionalProperties[k], at+"/optionalProperties/"+escape(k))
	}
	for _, k := range slices.Sorted(maps.Keys(s.Mapping)) {
		fn(s.Mapping[k], at+"/mapping/"+escape(k))
	}
}

// refCycles refuses a definition that is a chain of refs leading back to
// itself. Such a schema is correct per RFC 8927 section 2, but no instance
// can ever be validated against it, and the RFC's Security Considerations
// ask implementations to "detect, and abort, circular references";
// agentgate does so at load, which is stricter than the syntax alone.
func refCycles(root *Schema) error {
	for _, name := range slices.Sorted(maps.Keys(root.Definitions)) {
		seen := map[string]bool{}
		for cur := name; ; {
			if seen[cur] {
				return fmt.Errorf("%w: at /definitions/%s: a chain of refs leads back to %q without consuming any input, so validation would never end",
					ErrInvalidSchema, escape(name), cur)
			}
			seen[cur] = true
			d := root.Definitions[cur]
			if d == nil || d.Form != FormRef {
				break
			}
			cur = d.Ref
		}
	}
	return nil
}

// escape escapes a member name for a JSON Pointer (RFC 6901).
func escape(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
