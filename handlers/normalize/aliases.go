package normalize

import (
	"maps"
	"slices"

	"github.com/agentgate/agentgate/contract"
)

// RenameAliases returns patch with every member named by an x-aliases
// alias of schema renamed to its canonical name, at every depth, where the
// patch does not also hold the canonical name, and each rename at its path
// as Normalize records them. A partial re-ask's answer is merged into the
// previous document as an RFC 7386 merge patch: merged as it is, an alias
// would sit beside the previous document's canonical member, which would
// win. Nothing else changes: no member is stripped, dropped or coerced
// (Normalize does that on the merged document).
func RenameAliases(patch any, schema map[string]any, r Resolver) (any, []contract.Normalization) {
	if schema == nil {
		return patch, nil
	}
	n := newNormalizer(r, Options{})
	var ops []contract.Normalization
	var walk func(v any, set schemaSet, path string) any
	walk = func(v any, set schemaSet, path string) any {
		obj, ok := v.(map[string]any)
		if !ok {
			return v
		}
		canonOf, _ := n.aliases(set)
		out := make(map[string]any, len(obj))
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			name := k
			if c, isAlias := canonOf[k]; isAlias {
				if _, both := obj[c]; !both {
					name = c
					ops = append(ops, contract.Normalization{Op: contract.OpRename, Path: path, From: k, To: c})
				}
			}
			out[name] = walk(obj[k], n.childOf(set, name), contract.Member(path, name))
		}
		return out
	}
	return walk(patch, n.root(schema), "$"), ops
}
