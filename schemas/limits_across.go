package schemas

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// checkAcross runs the analysis of checkLimits over every loaded schema
// file together, following $refs from one document into another: a cycle
// that consumes no input, a chain of $refs or an evaluation cost over the
// limits that only appears across files is refused, naming the files.
// Each file was checked on its own before it was compiled; what it finds
// serves to check inline schemas (see checkInline).
func (l *loader) checkAcross(loaded []*Schema) {
	g := newGraph()
	var ids []string
	for _, s := range loaded {
		if s.jtd != nil || s.Doc == nil {
			continue // a JTD schema cannot reference another document
		}
		g.add(s.Doc, s.ID)
		ids = append(ids, s.ID)
	}
	g.link()
	file := func(doc string) string { return l.idSource[doc] }
	refused := map[string]bool{}
	for range ids { // each round refuses at least one document
		cycle := g.inPlaceCycle(refused)
		if cycle == nil {
			break
		}
		docs := g.docsOf(cycle)
		l.fail(file(docs[0]), g.cycleError(cycle, file))
		for _, d := range docs {
			refused[d] = true
		}
	}
	costs := g.costWalker(refused)
	for _, id := range ids {
		if refused[id] {
			continue
		}
		if err := g.limitError(costs.from(id), file); err != nil {
			l.fail(file(id), err)
			refused[id] = true
		}
	}
	l.across = &acrossGraph{g: g, refused: refused, docs: map[string]*Schema{}, refs: map[string][]string{}}
	for _, s := range loaded {
		if s.jtd == nil && s.Doc != nil && !refused[s.ID] {
			l.across.docs[s.ID] = s
		}
	}
	for _, k := range slices.Sorted(maps.Keys(g.nodes)) {
		n := g.nodes[k]
		for _, e := range n.edges {
			if to := g.nodes[e.to].doc; to != n.doc && !slices.Contains(l.across.refs[n.doc], to) {
				l.across.refs[n.doc] = append(l.across.refs[n.doc], to)
			}
		}
	}
}

// acrossGraph is what checkAcross leaves for checking inline schemas: the
// graph of every schema file, the files it refused, the files it kept and
// which documents each one references.
type acrossGraph struct {
	g       *schemaGraph
	refused map[string]bool
	docs    map[string]*Schema
	refs    map[string][]string
}

// reach is the kept documents that the references of h (a graph of one
// inline document) lead to, directly or through other documents, except
// those in leave.
func (a *acrossGraph) reach(h *schemaGraph, leave map[string]bool) []*Schema {
	var queue []string
	for _, n := range h.nodes {
		for _, kw := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
			if ref, ok := n.obj[kw].(string); ok {
				if to, ok := a.g.resolve(n.base, ref); ok {
					queue = append(queue, a.g.nodes[to].doc)
				}
			}
		}
	}
	seen := map[string]bool{}
	var out []*Schema
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if seen[d] || leave[d] || a.docs[d] == nil {
			continue
		}
		seen[d] = true
		out = append(out, a.docs[d])
		queue = append(queue, a.refs[d]...)
	}
	return out
}

// checkInline refuses an inline blueprint schema over a load limit, the
// registry's schema files it references included. inlineID is the URI it
// is compiled under; its own absolute $id, when it declares one, is its
// base URI instead, and the registry documents of the same $id are left
// out, as its compiler does (see loader.inlineCompiler).
func (l *loader) checkInline(raw []byte, doc map[string]any, inlineID string) error {
	if len(raw) > MaxSchemaBytes {
		return fmt.Errorf("%w: %d bytes, over the limit of %d", ErrSchemaLimit, len(raw), MaxSchemaBytes)
	}
	id := inlineID
	if declared, _ := doc["$id"].(string); declared != "" && !strings.HasPrefix(declared, "#") {
		if u, err := url.Parse(declared); err == nil && u.IsAbs() {
			id = baseText(u)
		}
	}
	own := declaredIDs(doc)
	own[id] = true
	g := newGraph()
	if l.across != nil {
		for _, s := range l.across.reach(graphOf(doc, id), own) {
			g.add(s.Doc, s.ID)
		}
	}
	g.add(doc, id)
	g.link()
	return g.checkRoot(id, func(doc string) string { return l.idSource[doc] })
}
