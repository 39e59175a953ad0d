// Package goschema turns Go types into registry schemas, so that Go teams
// can keep their types as the source of truth: [For] reflects a struct's
// JSON encoding into a draft 2020-12 JSON Schema with
// github.com/invopop/jsonschema (its `jsonschema:"..."` tags apply: title,
// description, enum, minimum...), gives it the registry $id, and turns an
// `aliases:"a,b"` struct tag into the property's "x-aliases" (contract
// section 5), so that the gateway renames drifted member names to the
// field's. The result is checked exactly as a --config schema file before
// it is returned.
//
// Fields without `omitempty` are required, and objects are closed
// ("additionalProperties": false), as invopop/jsonschema does by default:
// a valid result_data decodes into the type with nothing left over (see
// executor.DecodeAs).
//
// The package knows nothing of NATS or HTTP: it must never import the bus,
// the pipeline or the gateway, only the registry's compiler.
package goschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/registry"
)

// AliasTag is the struct tag that lists a field's aliases, comma-separated.
const AliasTag = "aliases"

// ErrNotStruct is returned by For for a type that is not a struct (or a
// pointer to one).
var ErrNotStruct = errors.New("goschema: want a struct type")

// For returns the registry schema document of T's JSON encoding, with $id
// id (a versioned registry $id: "https://example.com/schemas/review/1.0.0").
// Its errors: ErrNotStruct; registry.ErrInvalid (an *registry.InvalidError)
// when the document would not load as a registry schema, for example an
// $id without a version or an alias that collides with a field.
func For[T any](id string) ([]byte, error) {
	return FromType(reflect.TypeFor[T](), id)
}

// FromType is For with a reflect.Type.
func FromType(t reflect.Type, id string) ([]byte, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%w, got %s", ErrNotStruct, t)
	}
	r := &jsonschema.Reflector{ExpandedStruct: true}
	s := r.ReflectFromType(t)
	s.ID = jsonschema.ID(id)
	if s.Title == "" {
		s.Title = t.Name()
	}
	if s.Description == "" {
		s.Description = "The JSON encoding of the Go type " + t.String() + "."
	}
	addAliases(s, s.Definitions, t, make(map[reflect.Type]bool))
	doc, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("goschema: encoding the schema of %s: %w", t, err)
	}
	if _, err := registry.Compile([][]byte{doc}, nil); err != nil {
		return nil, fmt.Errorf("goschema: the schema of %s: %w", t, err)
	}
	return doc, nil
}

// addAliases walks the Go type t alongside its schema s and sets
// "x-aliases" on every property whose field has an aliases tag.
func addAliases(s *jsonschema.Schema, defs jsonschema.Definitions, t reflect.Type, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s == nil {
		return
	}
	if s.Ref != "" {
		// A named type kept in $defs: walk it there, once.
		if seen[t] {
			return
		}
		seen[t] = true
		s = defs[strings.TrimPrefix(s.Ref, "#/$defs/")]
		if s == nil {
			return
		}
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		addAliases(s.Items, defs, t.Elem(), seen)
	case reflect.Map:
		addAliases(s.AdditionalProperties, defs, t.Elem(), seen)
	case reflect.Struct:
		if s.Properties == nil {
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			name, embedded := jsonName(f)
			switch {
			case embedded:
				addAliases(s, defs, f.Type, seen)
				continue
			case name == "":
				continue
			}
			prop, ok := s.Properties.Get(name)
			if !ok {
				continue
			}
			if tag := f.Tag.Get(AliasTag); tag != "" {
				var aliases []string
				for a := range strings.SplitSeq(tag, ",") {
					if a = strings.TrimSpace(a); a != "" {
						aliases = append(aliases, a)
					}
				}
				if prop.Extras == nil {
					prop.Extras = map[string]any{}
				}
				prop.Extras[contract.AliasesKeyword] = aliases
			}
			addAliases(prop, defs, f.Type, seen)
		}
	}
}

// jsonName is the member name encoding/json gives field f ("" when it is
// not encoded), and whether f is an embedded struct whose fields are
// promoted.
func jsonName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false
	}
	name, _, _ := strings.Cut(tag, ",")
	if f.Anonymous && name == "" {
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		return "", ft.Kind() == reflect.Struct
	}
	if !f.IsExported() {
		return "", false
	}
	if name == "" {
		name = f.Name
	}
	return name, false
}
