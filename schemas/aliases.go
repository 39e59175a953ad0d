package schemas

import (
	"fmt"
	"maps"
	"slices"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/internal/jsonx"
	"github.com/agentgate/agentgate/schemas/validator"
)

// checkAliases returns every "x-aliases" of doc that the normalizer could
// not apply unambiguously, each wrapping ErrBadAlias: at each object node,
// the names in play are the node's properties and those of its direct allOf
// branches (which the normalizer merges), and contract.ClaimAliases, the
// rule the normalizer applies, reads their lists; every entry it passes over
// is an error here, but for an alias a property declared again in a branch
// lists again (AliasRestated). Names the normalizer reaches through $ref or
// a deeper allOf are not checked: it skips, there, what does not count.
func checkAliases(doc any) []error {
	var errs []error
	validator.WalkSchema(doc, "$", func(node map[string]any, path, via string) bool {
		props := mergedProperties(node, path, via)
		if len(props) == 0 {
			return true
		}
		declaredAt := make(map[string]string, len(props))
		var lists []contract.AliasList
		var at []string // where each of lists is
		for _, p := range props {
			if _, dup := declaredAt[p.name]; !dup {
				declaredAt[p.name] = contract.Member(p.path, p.name)
			}
			if v, ok := p.node[contract.AliasesKeyword]; ok {
				lists = append(lists, contract.AliasList{Property: p.name, Value: v})
				at = append(at, contract.Member(contract.Member(p.path, p.name), contract.AliasesKeyword))
			}
		}
		declared := func(name string) bool { _, ok := declaredAt[name]; return ok }
		contract.ClaimAliases(lists, declared, func(li, i int, why contract.AliasProblem, claimant string) {
			l := lists[li]
			var alias any
			if i >= 0 {
				alias = l.Value.([]any)[i]
			}
			switch why {
			case contract.AliasNotAList:
				errs = append(errs, fmt.Errorf("%w: %s: want an array of names, got %s", ErrBadAlias, at[li], jsonx.TypeName(l.Value, jsonx.IntegerApart)))
			case contract.AliasNotAName:
				errs = append(errs, fmt.Errorf("%w: %s: want a name, got %s", ErrBadAlias, contract.Index(at[li], i), jsonx.TypeName(alias, jsonx.IntegerApart)))
			case contract.AliasOwnName:
				errs = append(errs, fmt.Errorf("%w: %s: %q is the property's own name", ErrBadAlias, at[li], alias))
			case contract.AliasDeclared:
				errs = append(errs, fmt.Errorf("%w: %s: %q collides with the property %s", ErrBadAlias, at[li], alias, declaredAt[alias.(string)]))
			case contract.AliasRepeated:
				errs = append(errs, fmt.Errorf("%w: %s: %q is listed twice", ErrBadAlias, at[li], alias))
			case contract.AliasClaimed:
				errs = append(errs, fmt.Errorf("%w: %s: %q is also an alias of %q", ErrBadAlias, at[li], alias, claimant))
			}
		})
		return true
	})
	return errs
}

// property is a property's schema, its name and the path of the
// "properties" object that declares it.
type property struct {
	name string
	node map[string]any
	path string
}

// mergedProperties returns the properties of node and of its direct allOf
// branches, in the order the normalizer reads them (the node's, then each
// branch's, each by name), or nil when there are none. A node that is
// itself an allOf branch is checked as part of its parent.
func mergedProperties(node map[string]any, path, via string) []property {
	if via == "allOf" {
		return nil
	}
	var out []property
	add := func(n map[string]any, path string) {
		props, _ := n["properties"].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(props)) {
			pn, ok := props[name].(map[string]any)
			if !ok {
				pn = map[string]any{}
			}
			out = append(out, property{name: name, node: pn, path: path})
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
