package jtd

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/contract"
)

// Violations validates instance and maps each error indicator to a
// contract violation, sorted with contract.SortViolations; nil when valid:
//
//   - path is the indicator's instancePath as a JSONPath, except for a
//     missing member (a required property, or a discriminator's tag),
//     reported at the member's own path as contract section 4 does;
//   - keyword is the last keyword of the schemaPath: type, enum,
//     elements, properties, optionalProperties, values, discriminator or
//     mapping. A member that the properties form does not allow has the
//     object's own schema as its schemaPath; its keyword is
//     additionalProperties, the keyword that would allow it;
//   - expected and received are the type name or the enum / mapping
//     values, and what the instance holds, where that applies.
//
// A ref chain deeper than the limit is one violation at $, keyword ref.
func (s *Schema) Violations(instance any) []contract.Violation {
	errs, err := s.Validate(instance, ValidateOptions{})
	var out []contract.Violation
	for _, e := range errs {
		out = append(out, s.violation(e, instance))
	}
	if errors.Is(err, ErrMaxDepth) {
		out = append(out, contract.Violation{Path: "$", Keyword: "ref", Message: fmt.Sprintf("schema refs nest deeper than %d", DefaultMaxDepth)})
	}
	contract.SortViolations(out)
	return out
}

func (s *Schema) violation(e Error, instance any) contract.Violation {
	path := jsonPath(instance, e.InstancePath)
	value, hasValue := lookup(instance, e.InstancePath)
	node := s.at(e.SchemaPath)
	sp := e.SchemaPath
	last := ""
	if len(sp) > 0 {
		last = sp[len(sp)-1]
	}
	v := contract.Violation{Path: path}
	received := func() {
		if hasValue {
			v.Received, v.HasReceived = value, true
		}
	}
	switch {
	case e.kind == kindMissing:
		v.Path = contract.Member(path, last)
		v.Keyword, v.Message = "properties", "required member is missing"
	case e.kind == kindAdditional:
		// The schemaPath is the object's schema itself.
		v.Keyword, v.Message = "additionalProperties", "member is not allowed"
	case last == "type":
		v.Keyword, v.Expected = "type", node.Type
		v.Message = "value must be " + describeType(node.Type)
		received()
	case last == "enum":
		v.Keyword, v.Expected = "enum", node.Enum
		v.Message = "value must be one of " + quoteAll(node.Enum)
		received()
	case last == "elements":
		v.Keyword, v.Message = "elements", "value must be an array"
		received()
	case last == "values":
		v.Keyword, v.Message = "values", "value must be an object"
		received()
	case last == "properties" || last == "optionalProperties":
		v.Keyword, v.Message = last, "value must be an object"
		received()
	case last == "discriminator" && node != nil && isTag(instance, e.InstancePath, node.Discriminator):
		v.Keyword, v.Message = "discriminator", "the discriminator must be a string"
		received()
	case last == "discriminator" && node != nil && isObject(value):
		v.Path = contract.Member(path, node.Discriminator)
		v.Keyword = "discriminator"
		v.Message = fmt.Sprintf("required member %q (the discriminator) is missing", node.Discriminator)
	case last == "discriminator":
		v.Keyword, v.Message = "discriminator", "value must be an object"
		received()
	case last == "mapping":
		keys := slices.Sorted(maps.Keys(node.Mapping))
		v.Keyword, v.Expected = "mapping", keys
		v.Message = "value must be one of " + quoteAll(keys)
		received()
	}
	return v
}

// isTag reports whether path points at a discriminator tag that is not a
// string (rather than at an object that lacks its tag).
func isTag(instance any, path []string, tag string) bool {
	if len(path) == 0 || path[len(path)-1] != tag {
		return false
	}
	parent, _ := lookup(instance, path[:len(path)-1])
	obj, ok := parent.(map[string]any)
	if !ok {
		return false
	}
	_, isString := obj[tag].(string)
	return !isString
}

func isObject(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

// at returns the schema node a schemaPath leads to (for a path ending in a
// keyword, the node holding that keyword); nil if it leads nowhere.
func (s *Schema) at(path []string) *Schema {
	cur := s
	for i := 0; i < len(path) && cur != nil; i++ {
		tok := path[i]
		next := func(m map[string]*Schema) *Schema {
			if i+1 >= len(path) {
				return cur // the keyword itself: stay on its node
			}
			i++
			return m[path[i]]
		}
		switch tok {
		case "definitions":
			cur = next(s.Definitions)
		case "properties":
			cur = next(cur.Properties)
		case "optionalProperties":
			cur = next(cur.OptionalProperties)
		case "mapping":
			cur = next(cur.Mapping)
		case "elements":
			if i+1 < len(path) {
				cur = cur.Elements
			}
		case "values":
			if i+1 < len(path) {
				cur = cur.Values
			}
		default:
			return cur
		}
	}
	return cur
}

func lookup(instance any, path []string) (any, bool) {
	cur := instance
	for _, tok := range path {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// jsonPath turns instance tokens into a contract JSONPath, telling array
// indices from member names by the instance itself.
func jsonPath(instance any, tokens []string) string {
	p, cur := "$", instance
	for _, t := range tokens {
		switch c := cur.(type) {
		case []any:
			i, _ := strconv.Atoi(t)
			p = contract.Index(p, i)
			if i >= 0 && i < len(c) {
				cur = c[i]
			}
		case map[string]any:
			p = contract.Member(p, t)
			cur = c[t]
		default:
			p = contract.Member(p, t)
		}
	}
	return p
}

func describeType(t string) string {
	switch t {
	case "boolean":
		return "a boolean"
	case "string":
		return "a string"
	case "timestamp":
		return "an RFC 3339 timestamp (a string such as \"2026-11-24T10:00:00Z\")"
	case "float32", "float64":
		return "a number"
	}
	r := intRanges[t]
	return fmt.Sprintf("an integer from %d to %d (%s)", r[0], r[1], t)
}

func quoteAll(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}
