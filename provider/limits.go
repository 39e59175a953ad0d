package provider

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
)

// size is what the providers' limits count, measured on the exported
// schema (each node once, $defs included).
type size struct {
	// nameChars: the characters of every property name, $defs name,
	// string enum value and string const (OpenAI's 120,000).
	nameChars int
	// largeEnums: the JSONPaths (into the exported schema) of enums with
	// more than limits.largeEnum values whose strings total over
	// limits.largeEnumChars characters.
	largeEnums []string
	// optional: properties not in their object's required list;
	// unions: schemas with anyOf or a list of types (Anthropic's 24 and 16).
	optional, unions int
}

// measure walks the exported schema.
func measure(out map[string]any, prof profile) size {
	var s size
	var walk func(n any, path string)
	walk = func(n any, path string) {
		node, ok := n.(map[string]any)
		if !ok {
			return
		}
		if _, ok := node["anyOf"]; ok {
			s.unions++
		} else if _, ok := node["type"].([]any); ok {
			s.unions++
		}
		if enum, ok := node["enum"].([]any); ok {
			chars := 0
			for _, v := range enum {
				if str, ok := v.(string); ok {
					chars += len([]rune(str))
				}
			}
			s.nameChars += chars
			if prof.largeEnum > 0 && len(enum) > prof.largeEnum && chars > prof.largeEnumChars {
				s.largeEnums = append(s.largeEnums, path)
			}
		}
		if c, ok := node["const"].(string); ok {
			s.nameChars += len([]rune(c))
		}
		if props, ok := node["properties"].(map[string]any); ok {
			req, _ := node["required"].([]any)
			for _, name := range slices.Sorted(maps.Keys(props)) {
				s.nameChars += len([]rune(name))
				if !slices.Contains(req, any(name)) {
					s.optional++
				}
				walk(props[name], path+".properties."+name)
			}
		}
		walk(node["items"], path+".items")
		if list, ok := node["anyOf"].([]any); ok {
			for i, b := range list {
				walk(b, fmt.Sprintf("%s.anyOf[%d]", path, i))
			}
		}
		if defs, ok := node["$defs"].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(defs)) {
				s.nameChars += len([]rune(name))
				walk(defs[name], path+".$defs."+name)
			}
		}
	}
	walk(out, "$")
	return s
}

// checkLimits reports, on the root, every limit of the profile the
// exported schema is over: the provider would refuse it.
func (e *exporter) checkLimits(out map[string]any) {
	p := e.prof
	over := func(kw string, n, limit int, what string) {
		if limit > 0 && n > limit {
			e.find("$", kw, ActionUnsupported, fmt.Sprintf("%d %s, over the limit of %d", n, what, limit))
		}
	}
	over("properties", e.properties, p.maxProperties, "properties in all")
	over("properties", e.depth, p.maxDepth, "levels of object nesting")
	over("enum", e.enumValues, p.maxEnumValues, "enum values in all")
	s := measure(out, p)
	over("properties", s.nameChars, p.maxNameChars, "characters in property names, definition names, enum and const values")
	for _, at := range s.largeEnums {
		e.find("$", "enum", ActionUnsupported, fmt.Sprintf("the enum at %s of the exported schema has over %d values totalling over %d characters",
			at, p.largeEnum, p.largeEnumChars))
	}
	over("required", s.optional, p.maxOptional, "optional properties")
	over("anyOf", s.unions, p.maxUnions, "schemas with anyOf or a list of types")
}

// unsupportedPattern finds the regular-expression features Anthropic's
// structured outputs do not support in "pattern": backreferences,
// lookahead and lookbehind, and word boundaries.
var unsupportedPattern = regexp.MustCompile(`\\[1-9]|\\k<|\(\?<?[=!]|\\[bB]`)
