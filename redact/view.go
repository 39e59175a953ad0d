package redact

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/schemas"
)

// Keyword marks a schema property as sensitive.
const Keyword = "x-sensitive"

// Mask replaces a sensitive value.
const Mask = "[redacted]"

// maxDepth bounds the documents and paths walked; anything deeper is
// masked whole (it fails closed).
const maxDepth = 512

// view answers which locations of one kind of document are sensitive,
// walking the schema alongside the document. Where the schema offers
// several subschemas for a location (allOf, anyOf, oneOf, if/then/else,
// patternProperties, additionalProperties, the items keywords), a location
// is sensitive when any of them says so; an object or array where the
// schema describes none is masked whole. It may mask more than needed,
// never less.
type view struct {
	resolver *schemas.Schema  // resolves $ref (any schema of the registry)
	roots    []map[string]any // the schema nodes of the document's root
}

func (v *view) sensitive(nodes []map[string]any) bool {
	for _, n := range nodes {
		if b, _ := n[Keyword].(bool); b {
			return true
		}
	}
	return false
}

// nodeSet collects the schema nodes that apply at one location, each once
// (by identity: schema documents are shared, never copied).
type nodeSet struct {
	nodes []map[string]any
	seen  map[uintptr]bool
}

// add adds n, its $ref's target and the branches that apply at the same
// location.
func (s *nodeSet) add(v *view, n map[string]any) {
	if n == nil {
		return
	}
	id := mapPointer(n)
	if s.seen == nil {
		s.seen = map[uintptr]bool{}
	}
	if s.seen[id] {
		return
	}
	s.seen[id] = true
	s.nodes = append(s.nodes, n)
	if _, ok := n["$ref"]; ok {
		s.add(v, v.resolver.Resolve(n))
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := n[kw].([]any); ok {
			for _, b := range list {
				bm, _ := b.(map[string]any)
				s.add(v, bm)
			}
		}
	}
	for _, kw := range []string{"if", "then", "else"} {
		bm, _ := n[kw].(map[string]any)
		s.add(v, bm)
	}
	if deps, ok := n["dependentSchemas"].(map[string]any); ok {
		for _, d := range deps {
			dm, _ := d.(map[string]any)
			s.add(v, dm)
		}
	}
}

func (v *view) rootNodes() []map[string]any {
	var set nodeSet
	for _, r := range v.roots {
		set.add(v, r)
	}
	return set.nodes
}

// segment is one step into a document: a member name, or an index (name
// empty, index >= 0).
type segment struct {
	name  string
	index int
}

// children are the schema nodes that apply to the member or item seg of a
// location whose nodes are given.
func (v *view) children(nodes []map[string]any, seg segment) []map[string]any {
	var set nodeSet
	add := func(x any) {
		if m, ok := x.(map[string]any); ok {
			set.add(v, m)
		}
	}
	for _, n := range nodes {
		if seg.index < 0 {
			if props, ok := n["properties"].(map[string]any); ok {
				add(props[seg.name])
			}
			if pp, ok := n["patternProperties"].(map[string]any); ok {
				for _, p := range pp {
					add(p)
				}
			}
			add(n["additionalProperties"])
			add(n["unevaluatedProperties"])
			continue
		}
		for _, kw := range []string{"prefixItems", "items"} {
			if list, ok := n[kw].([]any); ok && seg.index < len(list) {
				add(list[seg.index])
			}
		}
		add(n["items"])
		add(n["additionalItems"])
		add(n["unevaluatedItems"])
		add(n["contains"])
	}
	return set.nodes
}

// path reports whether the location at a contract JSONPath is sensitive
// or lies inside a sensitive member.
func (v *view) path(p string) bool {
	_, sensitive := v.at(p)
	return sensitive
}

// at returns the schema nodes that apply at a contract JSONPath, and
// whether the location is sensitive or lies inside a sensitive member.
func (v *view) at(p string) ([]map[string]any, bool) {
	nodes := v.rootNodes()
	segs := contract.SplitPath(p)
	if len(segs) > maxDepth {
		return nil, true
	}
	for _, s := range segs {
		if v.sensitive(nodes) {
			return nil, true
		}
		nodes = v.children(nodes, parseSegment(s))
		if len(nodes) == 0 {
			return nil, false
		}
	}
	return nodes, v.sensitive(nodes)
}

// doc returns doc with every sensitive value replaced by Mask; doc itself
// is not modified.
func (v *view) doc(doc any) any {
	return v.mask(doc, v.rootNodes(), 0)
}

// valueAt returns a value found at path p (a violation's received value,
// say) with what is sensitive in it masked, and whether anything was.
func (v *view) valueAt(p string, val any) (any, bool) {
	nodes, sensitive := v.at(p)
	if sensitive {
		return Mask, true
	}
	out := v.mask(val, nodes, len(contract.SplitPath(p)))
	changed, _ := json.Marshal(out)
	orig, _ := json.Marshal(val)
	return out, !bytes.Equal(changed, orig)
}

// mask masks doc, found where nodes apply. An object or array the schema
// does not describe there (an undeclared member, a value of another shape
// than the schema's) is masked whole: it may hold anything.
func (v *view) mask(doc any, nodes []map[string]any, depth int) any {
	if len(nodes) == 0 {
		switch doc.(type) {
		case map[string]any, []any:
			return Mask
		}
		return doc
	}
	if v.sensitive(nodes) || depth > maxDepth {
		return Mask
	}
	switch d := doc.(type) {
	case map[string]any:
		out := make(map[string]any, len(d))
		for k, x := range d {
			out[k] = v.mask(x, v.children(nodes, segment{name: k, index: -1}), depth+1)
		}
		return out
	case []any:
		out := make([]any, len(d))
		for i, x := range d {
			out[i] = v.mask(x, v.children(nodes, segment{index: i}), depth+1)
		}
		return out
	}
	return doc
}

// parseSegment reads one segment of contract.SplitPath.
func parseSegment(s string) segment {
	switch {
	case strings.HasPrefix(s, "['") && strings.HasSuffix(s, "']"):
		r := strings.NewReplacer(`\'`, `'`, `\\`, `\`)
		return segment{name: r.Replace(s[2 : len(s)-2]), index: -1}
	case strings.HasPrefix(s, "["):
		if n, err := strconv.Atoi(strings.Trim(s, "[]")); err == nil {
			return segment{index: n}
		}
	}
	return segment{name: strings.TrimPrefix(s, "."), index: -1}
}
