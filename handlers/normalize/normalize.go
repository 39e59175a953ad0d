package normalize

import (
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sync"

	"github.com/agentgate/agentgate/contract"
)

// Bounds on how far one schema node is expanded through $ref and allOf: a
// $ref cycle or a fan of allOf branches stops here, and a set cut short is
// treated as unknown (nothing is stripped or coerced under it).
const (
	maxSchemaSetNodes = 64
	maxSchemaSetHops  = 32
)

// extraFieldsReject is the Options.ExtraFields value that leaves
// members a closed object forbids in place.
const extraFieldsReject = "reject"

// Keywords that may let more member names into an object, or make the set
// of names depend on the instance: where they appear, a closed object is
// stripped only when their branches provably add no name.
var nameCombinators = []string{"anyOf", "oneOf", "if", "then", "else", "dependentSchemas"}

// Resolver follows a schema node's $ref to its target. It returns the node
// itself when the node has no $ref, and nil when the reference cannot be
// resolved (the normalizer then treats that part of the schema as unknown).
type Resolver interface {
	Resolve(node map[string]any) map[string]any
}

// Options tune Normalize for one agent (its blueprint's
// extra_fields and coerce).
type Options struct {
	// ExtraFields is "strip" (the default, also used for "" and any value
	// other than "reject"): members that a closed object does not allow are
	// removed and recorded; or "reject": they are left for validation to
	// report.
	ExtraFields string
	// Coerce allows the schema-guided conversions of contract section 3.1
	// (op coerce). The zero value disables them; blueprints default to true.
	Coerce bool
}

// Normalize returns a normalized copy of doc (doc itself is never mutated,
// and the copy shares no map or slice with it), or doc itself when nothing
// changes, and every change made, in
// document order: at each object, its renames and drops (members in sorted
// order), then each member in sorted order, parents before children.
//
// It walks doc alongside schema, following $ref through r (nil r: every
// $ref is unknown), allOf (whose branches' properties and aliases merge),
// properties, patternProperties, additionalProperties, items (2020-12 and
// draft-07 tuple forms), prefixItems and additionalItems. anyOf, oneOf and
// if/then/else are never walked into, so no member under them is renamed or
// stripped (coercion alone looks at anyOf and oneOf branches, see below):
//
//   - rename/drop: a member named by one of a property's "x-aliases" is
//     renamed to the property's name; when the canonical member is present
//     too, or an earlier alias (in x-aliases order) is, it is dropped.
//   - strip: unless opts.ExtraFields is "reject", a member that a closed
//     object (additionalProperties false) does not allow through its
//     properties, patternProperties or those of its allOf branches is
//     removed, but only where the allowed names are certain.
//   - coerce (opts.Coerce): a numeric string to a number or integer, "true"
//     or "false" to a boolean, a single value to a one-element array, a
//     string to the enum member it matches but for case and surrounding
//     space, and a null member that is optional and cannot be null is
//     removed; each only where the schema's type, enum and const leave
//     exactly one reading. Under anyOf or oneOf a value that no branch
//     accepts as it is is converted as one branch asks only when exactly
//     one branch accepts the result (and the rest of the schema does too),
//     and a null member is removed only when every branch rejects null.
//     Branches are judged by a small pure evaluator with a fixed budget;
//     where it cannot tell (format, multipleOf, ...), nothing is converted.
//
// Normalize is idempotent: applied to its own output it changes nothing.
// The returned slice is never nil, so it marshals as [] when empty.
func Normalize(doc any, schema map[string]any, r Resolver, opts Options) (any, []contract.Normalization) {
	n := newNormalizer(r, opts)
	root := n.root(schema)
	// Most outputs need no change: a first pass that copies nothing and
	// names no path finds that out, and the document is returned as is.
	n.dry = true
	n.walk(doc, root, "")
	if len(n.ops) == 0 && n.judgeBudget > 0 && !n.nilContainer {
		return doc, n.ops
	}
	return newNormalizer(r, opts).copyWalk(doc, root)
}

// normalizeCopy is Normalize without its first pass: it always copies.
func normalizeCopy(doc any, schema map[string]any, r Resolver, opts Options) (any, []contract.Normalization) {
	n := newNormalizer(r, opts)
	return n.copyWalk(doc, n.root(schema))
}

// root is the set of the schema's root; empty without a schema.
func (n *normalizer) root(schema map[string]any) schemaSet {
	if schema == nil {
		return schemaSet{}
	}
	return n.flatten(schema)
}

func newNormalizer(r Resolver, opts Options) *normalizer {
	n := &normalizer{resolver: r, opts: opts, ops: []contract.Normalization{}, judgeBudget: branchJudgeBudget}
	if m, ok := r.(Memoizer); ok {
		n.memo = m.Memo()
	} else {
		n.memo = new(sync.Map)
	}
	return n
}

// copyWalk is the pass of Normalize that copies and records every change.
func (n *normalizer) copyWalk(doc any, root schemaSet) (any, []contract.Normalization) {
	return n.walk(doc, root, "$"), n.ops
}

// normalizer is the state of one Normalize call.
type normalizer struct {
	resolver Resolver
	opts     Options
	ops      []contract.Normalization
	// patterns caches compiled patternProperties; nil marks a pattern that
	// does not compile.
	patterns map[string]*regexp.Regexp
	// judgeBudget is what is left of the schema nodes anyOf/oneOf coercion
	// may judge (see coerceBranches).
	judgeBudget int
	// memo keeps the facts of schema sets, across calls when the resolver
	// is a Memoizer.
	memo *sync.Map
	// dry marks the first pass of Normalize, which only finds out whether
	// anything would change: it copies nothing, names no path, visits
	// members in any order and stops at the first change it records. (The
	// anyOf/oneOf judge budget depends on the order: a dry pass that used
	// it all up does not count as finding nothing.)
	dry bool
	// nilContainer is set by a dry pass that met a nil map or slice, which
	// the copy turns into an empty one (encoding/json never makes them).
	nilContainer bool
}

// Memoizer is implemented by resolvers that can keep what the normalizer
// derives from their schema across calls (schemas.Schema does): the schema
// is immutable, so what follows from it is computed once, not per output.
type Memoizer interface {
	Memo() *sync.Map
}

// setFacts is what walkObject needs to know of the schema set of an object.
// It depends on the schema alone, so it is computed once per set and shared
// by every output, goroutines included: it must not be modified.
type setFacts struct {
	canonOf   map[string]string
	aliasesOf map[string][]string
	closed    bool
	required  map[string]bool
	// children holds the set of each declared member, when the facts are
	// memoized (nil otherwise).
	children map[string]schemaSet
}

// setKey names a schema set by the identity of its nodes, which live as
// long as the schema that holds the memo. Sets of more than four nodes are
// not memoized.
type setKey struct {
	n       int
	nodes   [4]uintptr
	partial bool
}

// itemKey names the set that applies to every element of an array under
// the set named by set.
type itemKey struct {
	set setKey
}

// keyOf names s, if it is small enough to be memoized.
func (n *normalizer) keyOf(s schemaSet) (setKey, bool) {
	key := setKey{n: len(s.nodes), partial: s.partial}
	if len(s.nodes) > len(key.nodes) {
		return key, false
	}
	for i, node := range s.nodes {
		key.nodes[i] = reflect.ValueOf(node).Pointer()
	}
	return key, true
}

// facts returns the facts of s, from the memo when they are there.
func (n *normalizer) facts(s schemaSet) *setFacts {
	key, ok := n.keyOf(s)
	if ok {
		if f, hit := n.memo.Load(key); hit {
			return f.(*setFacts)
		}
	}
	f := &setFacts{closed: n.closedCertain(s), required: requiredNames(s)}
	f.canonOf, f.aliasesOf = n.aliases(s)
	if ok {
		// Worth it only when kept.
		f.children = make(map[string]schemaSet)
		for name := range declaredNames(s) {
			f.children[name] = n.childOf(s, name)
		}
		n.memo.Store(key, f)
	}
	return f
}

// schemaSet is the conjunction of schema nodes that apply to one instance
// location: a node, the targets of its $ref and its allOf branches, all the
// way down.
type schemaSet struct {
	nodes []map[string]any
	// partial is set when part of the conjunction is unknown (a $ref that
	// does not resolve, a dynamic reference, the expansion bounds, a pattern
	// that does not compile): aliases still apply, stripping and coercion do
	// not.
	partial bool
}

// walk returns the normalized copy of v, located at path, under s. In a
// dry pass it returns v itself.
func (n *normalizer) walk(v any, s schemaSet, path string) any {
	if n.opts.Coerce {
		v = n.coerce(v, s, path)
	}
	if n.dry {
		n.scan(v, s)
		return v
	}
	switch t := v.(type) {
	case map[string]any:
		return n.walkObject(t, s, path)
	case []any:
		out := make([]any, len(t))
		for i, item := range t {
			out[i] = n.walk(item, n.item(s, i), contract.Index(path, i))
		}
		return out
	default:
		return v
	}
}

// scan is walk's dry pass below v: it stops at the first change recorded.
func (n *normalizer) scan(v any, s schemaSet) {
	if len(n.ops) > 0 {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		if t == nil {
			n.nilContainer = true
			return
		}
		facts := n.facts(s)
		strip := n.opts.ExtraFields != extraFieldsReject && facts.closed
		for name, member := range t {
			if _, isAlias := facts.canonOf[name]; isAlias {
				n.ops = append(n.ops, contract.Normalization{Op: contract.OpRename, From: name})
				return
			}
			if _, declared := facts.children[name]; strip && !declared && !n.allowed(s, name) {
				n.ops = append(n.ops, contract.Normalization{Op: contract.OpStrip})
				return
			}
			child := n.child(s, facts, name)
			if n.dropsNull(member, s, child, facts.required[name]) {
				n.ops = append(n.ops, contract.Normalization{Op: contract.OpCoerce, From: "null"})
				return
			}
			if n.walk(member, child, ""); len(n.ops) > 0 {
				return
			}
		}
	case []any:
		if t == nil {
			n.nilContainer = true
			return
		}
		for i, item := range t {
			if n.walk(item, n.item(s, i), ""); len(n.ops) > 0 {
				return
			}
		}
	}
}

// dropsNull reports whether member v, under child in an object under s,
// is a null that coercion removes: optional, and the schema leaves null
// out.
func (n *normalizer) dropsNull(v any, s, child schemaSet, required bool) bool {
	return v == nil && n.opts.Coerce && !s.partial && !required && (excludesNull(child) || n.branchesExcludeNull(child))
}

func (n *normalizer) walkObject(obj map[string]any, s schemaSet, path string) map[string]any {
	facts := n.facts(s)
	canonOf, aliasesOf := facts.canonOf, facts.aliasesOf
	members := make(map[string]any, len(obj))
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		canon, isAlias := canonOf[name]
		if !isAlias {
			members[name] = obj[name]
			continue
		}
		op := contract.Normalization{Op: contract.OpDrop, Path: path, From: name, To: canon}
		if _, present := obj[canon]; !present && firstPresent(aliasesOf[canon], obj) == name {
			op.Op = contract.OpRename
			members[canon] = obj[name]
		}
		n.ops = append(n.ops, op)
	}

	strip := n.opts.ExtraFields != extraFieldsReject && facts.closed
	required := facts.required
	out := make(map[string]any, len(members))
	for _, name := range slices.Sorted(maps.Keys(members)) {
		v, mpath := members[name], contract.Member(path, name)
		if strip && !n.allowed(s, name) {
			n.ops = append(n.ops, contract.Normalization{Op: contract.OpStrip, Path: mpath})
			continue
		}
		child := n.child(s, facts, name)
		if n.dropsNull(v, s, child, required[name]) {
			n.ops = append(n.ops, contract.Normalization{Op: contract.OpCoerce, Path: mpath, From: "null", Detail: "null in optional member removed"})
			continue
		}
		out[name] = n.walk(v, child, mpath)
	}
	return out
}

// firstPresent returns the first of names that obj has.
func firstPresent(names []string, obj map[string]any) string {
	for _, a := range names {
		if _, ok := obj[a]; ok {
			return a
		}
	}
	return ""
}

// flatten expands schema nodes into the conjunction that applies: each node,
// its $ref target and its allOf branches, recursively, each node once.
// Boolean schemas carry no keywords to follow and are skipped.
func (n *normalizer) flatten(subs ...any) schemaSet {
	var s schemaSet
	seen := make(map[uintptr]bool)
	var visit func(v any, hops int)
	visit = func(v any, hops int) {
		node, ok := v.(map[string]any)
		if !ok || node == nil {
			return
		}
		id := reflect.ValueOf(node).Pointer()
		if seen[id] {
			return
		}
		if len(s.nodes) >= maxSchemaSetNodes || hops > maxSchemaSetHops {
			s.partial = true
			return
		}
		seen[id] = true
		s.nodes = append(s.nodes, node)
		for _, kw := range []string{"$dynamicRef", "$recursiveRef"} {
			if _, ok := node[kw]; ok {
				s.partial = true
			}
		}
		if _, ok := node["$ref"]; ok {
			var target map[string]any
			if n.resolver != nil {
				target = n.resolver.Resolve(node)
			}
			if target == nil {
				s.partial = true
			} else {
				visit(target, hops+1)
			}
		}
		if all, ok := node["allOf"].([]any); ok {
			for _, b := range all {
				visit(b, hops+1)
			}
		}
	}
	for _, v := range subs {
		visit(v, 0)
	}
	return s
}

// child returns the set that applies to member name of an object under s
// (whose facts are f): per node, the property's schema, else every
// matching patternProperties schema, else additionalProperties.
func (n *normalizer) child(s schemaSet, f *setFacts, name string) schemaSet {
	if c, declared := f.children[name]; declared {
		return c
	}
	// Undeclared names come from the output: not memoized, so that
	// outputs cannot grow the memo.
	return n.childOf(s, name)
}

// childOf computes child.
func (n *normalizer) childOf(s schemaSet, name string) schemaSet {
	var subs []any
	partial := s.partial
	for _, node := range s.nodes {
		if props, ok := node["properties"].(map[string]any); ok {
			if sub, ok := props[name]; ok {
				subs = append(subs, sub)
				continue
			}
		}
		matched := false
		if pp, ok := node["patternProperties"].(map[string]any); ok {
			for _, pat := range slices.Sorted(maps.Keys(pp)) {
				re := n.pattern(pat)
				if re == nil {
					partial = true
					continue
				}
				if re.MatchString(name) {
					subs = append(subs, pp[pat])
					matched = true
				}
			}
		}
		if ap, ok := node["additionalProperties"]; ok && !matched {
			subs = append(subs, ap)
		}
	}
	cs := n.flatten(subs...)
	cs.partial = cs.partial || partial
	return cs
}

// item returns the set that applies to element i of an array under s:
// prefixItems then items (2020-12), or tuple items then additionalItems
// (draft-07), or items for all.
func (n *normalizer) item(s schemaSet, i int) schemaSet {
	key, ok := n.keyOf(s)
	if !ok || positional(s) {
		return n.itemOf(s, i)
	}
	ik := itemKey{set: key}
	if c, hit := n.memo.Load(ik); hit {
		return c.(schemaSet)
	}
	c := n.itemOf(s, i)
	n.memo.Store(ik, c)
	return c
}

// positional reports whether the schema of an array's elements under s
// depends on their position (prefixItems, draft-07 tuple items).
func positional(s schemaSet) bool {
	for _, node := range s.nodes {
		if _, ok := node["prefixItems"]; ok {
			return true
		}
		if _, ok := node["items"].([]any); ok {
			return true
		}
	}
	return false
}

// declaredIn reports whether some node of s declares property name.
func declaredIn(s schemaSet, name string) bool {
	for _, node := range s.nodes {
		if props, ok := node["properties"].(map[string]any); ok {
			if _, ok := props[name]; ok {
				return true
			}
		}
	}
	return false
}

// itemOf computes item.
func (n *normalizer) itemOf(s schemaSet, i int) schemaSet {
	var subs []any
	for _, node := range s.nodes {
		if prefix, ok := node["prefixItems"].([]any); ok {
			if i < len(prefix) {
				subs = append(subs, prefix[i])
			} else if it, ok := node["items"]; ok {
				subs = append(subs, it)
			}
			continue
		}
		switch it := node["items"].(type) {
		case nil:
		case []any:
			if i < len(it) {
				subs = append(subs, it[i])
			} else if ai, ok := node["additionalItems"]; ok {
				subs = append(subs, ai)
			}
		default:
			subs = append(subs, it)
		}
	}
	cs := n.flatten(subs...)
	cs.partial = cs.partial || s.partial
	return cs
}

// aliases maps each alias to its property and each property to its aliases
// in x-aliases order, over every node of s (nodes in order, properties in
// sorted order), as contract.ClaimAliases reads them: the first claim of an
// alias wins, and an alias that is a declared property name is ignored.
func (n *normalizer) aliases(s schemaSet) (canonOf map[string]string, aliasesOf map[string][]string) {
	var lists []contract.AliasList
	for _, node := range s.nodes {
		props, _ := node["properties"].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(props)) {
			for _, pn := range n.flatten(props[name]).nodes {
				if v, ok := pn[contract.AliasesKeyword]; ok {
					lists = append(lists, contract.AliasList{Property: name, Value: v})
				}
			}
		}
	}
	if len(lists) == 0 {
		return nil, nil
	}
	declared := declaredNames(s)
	return contract.ClaimAliases(lists, func(name string) bool { return declared[name] }, nil)
}

// closedCertain reports whether an object under s is closed
// (additionalProperties false in some node) and the names it allows are
// known for sure, so that stripping the others cannot remove a member the
// schema accepts.
func (n *normalizer) closedCertain(s schemaSet) bool {
	if s.partial {
		return false
	}
	closed := false
	for _, node := range s.nodes {
		if ap, ok := node["additionalProperties"].(bool); ok && !ap {
			closed = true
		}
	}
	if !closed {
		return false
	}
	declared := declaredNames(s)
	for _, node := range s.nodes {
		if _, ok := node["unevaluatedProperties"]; ok {
			return false
		}
		if pp, ok := node["patternProperties"].(map[string]any); ok {
			for pat := range pp {
				if n.pattern(pat) == nil {
					return false
				}
			}
		}
		for _, kw := range nameCombinators {
			if v, ok := node[kw]; ok && !n.addsNoNames(kw, v, declared) {
				return false
			}
		}
	}
	return true
}

// addsNoNames reports whether the branches of combinator kw provably let no
// member name in beyond declared: they declare only declared properties,
// no patternProperties, no open additionalProperties and nothing nested
// that would need deciding.
func (n *normalizer) addsNoNames(kw string, v any, declared map[string]bool) bool {
	var branches []any
	switch kw {
	case "anyOf", "oneOf":
		list, ok := v.([]any)
		if !ok {
			return false
		}
		branches = list
	case "dependentSchemas":
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			branches = append(branches, m[k])
		}
	default:
		branches = []any{v}
	}
	for _, b := range branches {
		bs := n.flatten(b)
		if bs.partial {
			return false
		}
		for _, node := range bs.nodes {
			if _, ok := node["patternProperties"]; ok {
				return false
			}
			if _, ok := node["unevaluatedProperties"]; ok {
				return false
			}
			for _, nested := range nameCombinators {
				if _, ok := node[nested]; ok {
					return false
				}
			}
			if ap, ok := node["additionalProperties"]; ok {
				if closed, isBool := ap.(bool); !isBool || closed {
					return false
				}
			}
			props, _ := node["properties"].(map[string]any)
			for name := range props {
				if !declared[name] {
					return false
				}
			}
		}
	}
	return true
}

// allowed reports whether a closed object under s allows member name.
func (n *normalizer) allowed(s schemaSet, name string) bool {
	for _, node := range s.nodes {
		if props, ok := node["properties"].(map[string]any); ok {
			if _, ok := props[name]; ok {
				return true
			}
		}
		if pp, ok := node["patternProperties"].(map[string]any); ok {
			for pat := range pp {
				if re := n.pattern(pat); re != nil && re.MatchString(name) {
					return true
				}
			}
		}
	}
	return false
}

// pattern compiles a patternProperties key once per call; nil when Go's
// regexp syntax cannot express it.
func (n *normalizer) pattern(p string) *regexp.Regexp {
	if re, ok := n.patterns[p]; ok {
		return re
	}
	if n.patterns == nil {
		n.patterns = make(map[string]*regexp.Regexp)
	}
	re, err := regexp.Compile(p)
	if err != nil {
		re = nil // ECMA-262 syntax RE2 lacks (lookaround, backreferences)
	}
	n.patterns[p] = re
	return re
}

// declaredNames is the union of the properties of every node of s.
func declaredNames(s schemaSet) map[string]bool {
	names := make(map[string]bool)
	for _, node := range s.nodes {
		props, _ := node["properties"].(map[string]any)
		for name := range props {
			names[name] = true
		}
	}
	return names
}

// requiredNames is the union of required over every node of s.
func requiredNames(s schemaSet) map[string]bool {
	names := make(map[string]bool)
	for _, node := range s.nodes {
		list, _ := node["required"].([]any)
		for _, r := range list {
			if name, ok := r.(string); ok {
				names[name] = true
			}
		}
	}
	return names
}
