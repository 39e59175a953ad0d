package schemas

import (
	"fmt"
	"maps"
	"slices"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/internal/jsonx"
	"github.com/agentgate/agentgate/schemas/validator"
)

// aliasesKeyword is the schema annotation listing a property's aliases
// (contract section 5).
const aliasesKeyword = "x-aliases"

// checkAliases returns every "x-aliases" of doc that the normalizer could
// not apply unambiguously, each wrapping ErrBadAlias: at each object node,
// the names in play are the node's properties and those of its direct allOf
// branches (which the normalizer merges); an alias must be a string, must
// not be one of those names, and must not be claimed twice.
func checkAliases(doc any) []error {
	var errs []error
	validator.WalkSchema(doc, "$", func(node map[string]any, path, via string) bool {
		props := mergedProperties(node, path, via)
		if props == nil {
			return true
		}
		claimed := make(map[string]string) // alias to the property claiming it
		for _, name := range slices.Sorted(maps.Keys(props)) {
			p := props[name]
			list, ok := p.node[aliasesKeyword]
			if !ok {
				continue
			}
			at := contract.Member(contract.Member(p.path, name), aliasesKeyword)
			aliases, ok := list.([]any)
			if !ok {
				errs = append(errs, fmt.Errorf("%w: %s: want an array of names, got %s", ErrBadAlias, at, jsonx.TypeName(list, jsonx.IntegerApart)))
				continue
			}
			for i, a := range aliases {
				alias, ok := a.(string)
				switch {
				case !ok:
					errs = append(errs, fmt.Errorf("%w: %s: want a name, got %s", ErrBadAlias, contract.Index(at, i), jsonx.TypeName(a, jsonx.IntegerApart)))
				case alias == name:
					errs = append(errs, fmt.Errorf("%w: %s: %q is the property's own name", ErrBadAlias, at, alias))
				case props[alias].node != nil:
					errs = append(errs, fmt.Errorf("%w: %s: %q collides with the property %s", ErrBadAlias, at, alias,
						contract.Member(props[alias].path, alias)))
				case claimed[alias] == name:
					errs = append(errs, fmt.Errorf("%w: %s: %q is listed twice", ErrBadAlias, at, alias))
				case claimed[alias] != "":
					errs = append(errs, fmt.Errorf("%w: %s: %q is also an alias of %q", ErrBadAlias, at, alias, claimed[alias]))
				default:
					claimed[alias] = name
				}
			}
		}
		return true
	})
	return errs
}

// property is a property's schema and the path of the "properties" object
// that declares it.
type property struct {
	node map[string]any
	path string
}

// mergedProperties returns the properties of node and of its direct allOf
// branches, or nil when there are none. A node that is itself an allOf
// branch is checked as part of its parent.
func mergedProperties(node map[string]any, path, via string) map[string]property {
	if via == "allOf" {
		return nil
	}
	var out map[string]property
	add := func(n map[string]any, path string) {
		props, _ := n["properties"].(map[string]any)
		for name, p := range props {
			pn, ok := p.(map[string]any)
			if !ok {
				pn = map[string]any{}
			}
			if _, dup := out[name]; dup {
				continue
			}
			if out == nil {
				out = make(map[string]property)
			}
			out[name] = property{node: pn, path: path}
		}
	}
	add(node, contract.Member(path, "properties"))
	if branches, ok := node["allOf"].([]any); ok {
		for i, b := range branches {
			if bn, ok := b.(map[string]any); ok {
				add(bn, contract.Member(contract.Index(contract.Member(path, "allOf"), i), "properties"))
			}
		}
	}
	return out
}
