package schemas

import (
	"fmt"
	"net/url"
	"strings"
)

// checkAcross runs the analysis of checkLimits over every loaded schema
// file together, following $refs from one document into another: a cycle
// that consumes no input, a chain of $refs or an evaluation cost over the
// limits that only appears across files is refused, naming the files.
// Each file was checked on its own before it was compiled; the documents
// it keeps (JSON Schema files within the limits) serve inline schemas
// (see checkInline).
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
	for _, id := range ids {
		if refused[id] {
			continue
		}
		if err := g.limitError(g.costAndDepth(id, refused), file); err != nil {
			l.fail(file(id), err)
			refused[id] = true
		}
	}
	for _, s := range loaded {
		if s.jtd == nil && s.Doc != nil && !refused[s.ID] {
			l.graphDocs = append(l.graphDocs, s)
		}
	}
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
	g := newGraph()
	for _, s := range l.graphDocs {
		if !own[s.ID] && s.ID != id {
			g.add(s.Doc, s.ID)
		}
	}
	g.add(doc, id)
	g.link()
	return g.checkRoot(id, func(doc string) string { return l.idSource[doc] })
}
