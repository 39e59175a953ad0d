package jtd

import (
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/agentgate/agentgate/internal/jsonx"
)

// DefaultMaxDepth bounds the refs Validate follows at once.
const DefaultMaxDepth = 1024

// Error is an error indicator of RFC 8927 section 3.2: where in the
// instance, and which part of the schema rejected it, as JSON Pointer
// tokens.
type Error struct {
	InstancePath []string
	SchemaPath   []string

	// kind tells the two indicators whose paths alone are ambiguous to
	// Violations: a missing member or one not allowed.
	kind errKind
}

type errKind int

const (
	kindOther errKind = iota
	kindMissing
	kindAdditional
)

// ValidateOptions are the options of RFC 8927 section 3.1.
type ValidateOptions struct {
	// MaxDepth bounds the refs followed at once (default DefaultMaxDepth);
	// past it Validate returns ErrMaxDepth.
	MaxDepth int
	// MaxErrors stops validation after that many errors (0: all).
	MaxErrors int
}

// Validate validates an instance decoded with encoding/json (UseNumber or
// not) against the schema, which must be a root schema from Parse, and
// returns every error indicator, in a stable order (object members sorted);
// none when the instance is valid. It returns ErrMaxDepth when refs nest
// deeper than the limit.
func (s *Schema) Validate(instance any, opts ValidateOptions) ([]Error, error) {
	if opts.MaxDepth == 0 {
		opts.MaxDepth = DefaultMaxDepth
	}
	v := &validator{root: s, opts: opts, schema: [][]string{{}}}
	if err := v.validate(s, instance, nil); err != nil {
		return v.errs, err
	}
	return v.errs, nil
}

type validator struct {
	root     *Schema
	opts     ValidateOptions
	instance []string
	// schema is a stack of schema paths: following a ref starts a new one
	// at /definitions/<name>.
	schema [][]string
	errs   []Error
	done   bool
}

func (v *validator) pushSchema(tokens ...string) {
	top := len(v.schema) - 1
	v.schema[top] = append(v.schema[top], tokens...)
}

func (v *validator) popSchema(n int) {
	top := len(v.schema) - 1
	v.schema[top] = v.schema[top][:len(v.schema[top])-n]
}

func (v *validator) fail(schemaTokens ...string) { v.failKind(kindOther, schemaTokens...) }

func (v *validator) failKind(kind errKind, schemaTokens ...string) {
	if v.done {
		return
	}
	top := v.schema[len(v.schema)-1]
	v.errs = append(v.errs, Error{
		InstancePath: slices.Clone(v.instance),
		SchemaPath:   append(slices.Clone(top), schemaTokens...),
		kind:         kind,
	})
	if v.opts.MaxErrors > 0 && len(v.errs) >= v.opts.MaxErrors {
		v.done = true
	}
}

// validate follows the pseudocode of RFC 8927 section 3.3, form by form.
func (v *validator) validate(s *Schema, instance any, parentTag *string) error {
	if v.done {
		return nil
	}
	if s.Nullable && instance == nil {
		return nil
	}
	switch s.Form {
	case FormEmpty:
	case FormRef:
		if len(v.schema) > v.opts.MaxDepth {
			return ErrMaxDepth
		}
		v.schema = append(v.schema, []string{"definitions", s.Ref})
		err := v.validate(v.root.Definitions[s.Ref], instance, nil)
		v.schema = v.schema[:len(v.schema)-1]
		return err
	case FormType:
		if !typeOK(s.Type, instance) {
			v.fail("type")
		}
	case FormEnum:
		if str, ok := instance.(string); !ok || !slices.Contains(s.Enum, str) {
			v.fail("enum")
		}
	case FormElements:
		arr, ok := instance.([]any)
		if !ok {
			v.fail("elements")
			return nil
		}
		v.pushSchema("elements")
		defer v.popSchema(1)
		for i, e := range arr {
			v.instance = append(v.instance, strconv.Itoa(i))
			err := v.validate(s.Elements, e, nil)
			v.instance = v.instance[:len(v.instance)-1]
			if err != nil {
				return err
			}
		}
	case FormProperties:
		return v.properties(s, instance, parentTag)
	case FormValues:
		obj, ok := instance.(map[string]any)
		if !ok {
			v.fail("values")
			return nil
		}
		v.pushSchema("values")
		defer v.popSchema(1)
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			v.instance = append(v.instance, k)
			err := v.validate(s.Values, obj[k], nil)
			v.instance = v.instance[:len(v.instance)-1]
			if err != nil {
				return err
			}
		}
	case FormDiscriminator:
		obj, ok := instance.(map[string]any)
		if !ok {
			v.fail("discriminator")
			return nil
		}
		tagValue, ok := obj[s.Discriminator]
		if !ok {
			v.fail("discriminator")
			return nil
		}
		tag, ok := tagValue.(string)
		if !ok {
			v.instance = append(v.instance, s.Discriminator)
			v.fail("discriminator")
			v.instance = v.instance[:len(v.instance)-1]
			return nil
		}
		branch, ok := s.Mapping[tag]
		if !ok {
			v.instance = append(v.instance, s.Discriminator)
			v.fail("mapping")
			v.instance = v.instance[:len(v.instance)-1]
			return nil
		}
		v.pushSchema("mapping", tag)
		defer v.popSchema(2)
		return v.validate(branch, instance, &s.Discriminator)
	}
	return nil
}

func (v *validator) properties(s *Schema, instance any, parentTag *string) error {
	obj, ok := instance.(map[string]any)
	if !ok {
		if s.HasProperties {
			v.fail("properties")
		} else {
			v.fail("optionalProperties")
		}
		return nil
	}
	for _, group := range []struct {
		kw       string
		members  map[string]*Schema
		required bool
	}{{"properties", s.Properties, true}, {"optionalProperties", s.OptionalProperties, false}} {
		for _, k := range slices.Sorted(maps.Keys(group.members)) {
			val, present := obj[k]
			if !present {
				if group.required {
					v.failKind(kindMissing, group.kw, k)
				}
				continue
			}
			v.pushSchema(group.kw, k)
			v.instance = append(v.instance, k)
			err := v.validate(group.members[k], val, nil)
			v.instance = v.instance[:len(v.instance)-1]
			v.popSchema(2)
			if err != nil {
				return err
			}
		}
	}
	if s.AdditionalProperties {
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		_, req := s.Properties[k]
		_, opt := s.OptionalProperties[k]
		if req || opt || (parentTag != nil && k == *parentTag) {
			continue
		}
		v.instance = append(v.instance, k)
		v.failKind(kindAdditional)
		v.instance = v.instance[:len(v.instance)-1]
	}
	return nil
}

// intRanges are the bounds of the integer types of RFC 8927 section 3.3.3.
var intRanges = map[string][2]int64{
	"int8": {-128, 127}, "uint8": {0, 255}, "int16": {-32768, 32767}, "uint16": {0, 65535},
	"int32": {-2147483648, 2147483647}, "uint32": {0, 4294967295},
}

func typeOK(typ string, instance any) bool {
	switch typ {
	case "boolean":
		_, ok := instance.(bool)
		return ok
	case "string":
		_, ok := instance.(string)
		return ok
	case "timestamp":
		str, ok := instance.(string)
		return ok && isTimestamp(str)
	case "float32", "float64":
		return jsonx.Rat(instance) != nil
	}
	r := jsonx.Rat(instance)
	if r == nil || !r.IsInt() {
		// "a JSON number with zero fractional part": 3.0 and 3e0 are ints.
		return false
	}
	bounds := intRanges[typ]
	return r.Num().Cmp(big.NewInt(bounds[0])) >= 0 && r.Num().Cmp(big.NewInt(bounds[1])) <= 0
}

// timestampRE is RFC 3339's date-time (section 5.6) "as refined by
// Section 3.3 of RFC 4287" (RFC 8927 section 3.3.3): RFC 3339's note lets
// "T" and "Z" be lowercase, RFC 4287 requires them uppercase.
var timestampRE = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-](\d{2}):(\d{2}))$`)

// isTimestamp tells an RFC 3339 timestamp, leap seconds (:60) included as
// RFC 8927 section 3.3.3 asks.
func isTimestamp(s string) bool {
	m := timestampRE.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
	year, month, day, hour, minute, sec := n(1), n(2), n(3), n(4), n(5), n(6)
	if month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || sec > 60 {
		return false
	}
	if day > time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day() {
		return false
	}
	if m[9] != "" && (n(9) > 23 || n(10) > 59) {
		return false
	}
	return true
}
