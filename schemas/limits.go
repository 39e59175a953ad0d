package schemas

import (
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/schemas/validator"
)

// Load limits (contract section 13). A schema over any of them is refused
// at load, by `schema lint` and at start-up alike, before it is compiled:
// each bounds a way a schema that validates against its meta-schema can
// still stall the gateway or exhaust its memory.
const (
	// MaxSchemaBytes bounds a schema file. Loading one (meta-schema check,
	// compile, warm-up) allocates about 870 bytes per schema byte and
	// keeps about 35, and takes about 19 ms per KiB on one core (see
	// BenchmarkLoad_memoryPerSchemaByte): 256 KiB is about 220 MB
	// allocated and 5 s at start-up. Schemas written for model output are
	// a few KiB.
	MaxSchemaBytes = 256 << 10
	// MaxRefDepth bounds the longest chain of $ref hops from the root (a
	// 10,000-link chain took 12 s and 2.4 GB to load).
	MaxRefDepth = 32
	// MaxSchemaCost bounds the schema's estimated evaluation cost: the
	// subschemas evaluated for a document with one value at every
	// location the schema describes, each recursion through a consuming
	// keyword counted once. It catches $ref fan-out (allOf of two refs,
	// 20 levels deep, is 2^20 evaluations per value: 5.2 s and 1 GB).
	MaxSchemaCost = 100_000
)

// Keywords that evaluate a subschema against the same value, which no
// cycle may go through without consuming input.
var inPlaceKeywords = map[string]bool{
	"allOf": true, "anyOf": true, "oneOf": true, "not": true, "if": true, "then": true, "else": true,
	"dependentSchemas": true, "dependencies": true, "$ref": true, "$dynamicRef": true, "$recursiveRef": true,
}

// schemaNode is one subschema of a loaded document. Its key is the
// document's URI, "#" and the subschema's JSON Pointer in the document.
type schemaNode struct {
	key   string
	doc   string   // the document's URI (its root $id, without fragment)
	base  *url.URL // the base URI its references resolve against
	obj   map[string]any
	edges []schemaEdge
}

type schemaEdge struct {
	to      string // key of the target
	keyword string
	inPlace bool
}

// schemaGraph is the subschemas of one or more documents and how
// evaluation moves between them, references from one document into
// another included. References to documents not in the graph are leaves.
type schemaGraph struct {
	nodes map[string]*schemaNode
	// resources maps the absolute URI (without fragment) of every document
	// and embedded resource ($id) to the key of its root.
	resources map[string]string
	// anchors maps base URI + "#" + $anchor to a key: anchors are per
	// resource, so two documents' "#foo" never collide.
	anchors map[string]string
	ids     map[string][]string // document → the embedded $ids it declares, resolved
}

func newGraph() *schemaGraph {
	return &schemaGraph{
		nodes:     map[string]*schemaNode{},
		resources: map[string]string{},
		anchors:   map[string]string{},
		ids:       map[string][]string{},
	}
}

// graphOf is the graph of doc alone, under the URI id.
func graphOf(doc map[string]any, id string) *schemaGraph {
	g := newGraph()
	g.add(doc, id)
	g.link()
	return g
}

// checkLimits refuses a schema over a load limit, with a $ref cycle that
// consumes no input, or with an embedded $id that collides with another
// document's or with another of its own (taken maps every $id already
// declared to its file; the document's own are added). References to other
// documents are leaves here; checkAcross follows them once every document
// is loaded.
func checkLimits(raw []byte, doc map[string]any, id, file string, taken map[string]string) error {
	if len(raw) > MaxSchemaBytes {
		return fmt.Errorf("%w: %d bytes, over the limit of %d", ErrSchemaLimit, len(raw), MaxSchemaBytes)
	}
	g := graphOf(doc, id)
	for _, eid := range g.ids[id] {
		if prev, dup := taken[eid]; dup {
			return fmt.Errorf("%w: embedded $id %q is also declared by %s", ErrDuplicateID, eid, prev)
		}
		taken[eid] = file
	}
	return g.checkRoot(id, nil)
}

// checkRoot refuses a cycle of in-place edges anywhere in g, then a chain
// of $refs or an evaluation cost over the limits from the root of document
// id. file names the file of a document in the messages (nil: the
// documents are not named).
func (g *schemaGraph) checkRoot(id string, file func(doc string) string) error {
	if cycle := g.inPlaceCycle(nil); cycle != nil {
		return g.cycleError(cycle, file)
	}
	r := g.costAndDepth(id)
	return g.limitError(r, file)
}

// cycleError describes a cycle of node keys: as pointers ("#/$defs/a")
// when it stays in one document, else as absolute URIs, with the files it
// goes through.
func (g *schemaGraph) cycleError(cycle []string, file func(doc string) string) error {
	docs := g.docsOf(cycle)
	shown := slices.Clone(cycle)
	across := ""
	if len(docs) == 1 {
		for i, k := range shown {
			shown[i] = k[len(g.nodes[k].doc):]
		}
	} else {
		across = fmt.Sprintf(" across %s", namedDocs(docs, file))
	}
	return fmt.Errorf("%w: %s%s (evaluation would loop on one value; such a schema accepts every document)",
		ErrRefCycle, strings.Join(shown, " → "), across)
}

// limitError refuses a chain of $refs over MaxRefDepth or a cost over
// MaxSchemaCost, naming the documents involved when there are several.
func (g *schemaGraph) limitError(r costResult, file func(doc string) string) error {
	if r.depth > MaxRefDepth {
		across := ""
		if docs := g.docsOf(r.chain); len(docs) > 1 {
			across = fmt.Sprintf(" through %s", namedDocs(docs, file))
		}
		return fmt.Errorf("%w: a chain of %d $refs%s, over the limit of %d", ErrSchemaLimit, r.depth, across, MaxRefDepth)
	}
	if r.cost > MaxSchemaCost {
		across := ""
		if len(r.docs) > 1 {
			across = fmt.Sprintf(" across %s", namedDocs(r.docs, file))
		}
		return fmt.Errorf("%w: estimated evaluation cost %s subschemas per document%s, over the limit of %d ($ref fan-out)",
			ErrSchemaLimit, costText(r.cost), across, MaxSchemaCost)
	}
	return nil
}

// docsOf is the documents of keys, in order of first appearance.
func (g *schemaGraph) docsOf(keys []string) []string {
	var docs []string
	for _, k := range keys {
		if n := g.nodes[k]; n != nil && !slices.Contains(docs, n.doc) {
			docs = append(docs, n.doc)
		}
	}
	return docs
}

// namedDocs lists documents with their files: "a (schemas/a.schema.json), b (...)".
func namedDocs(docs []string, file func(doc string) string) string {
	parts := make([]string, len(docs))
	for i, d := range docs {
		parts[i] = d
		if file != nil {
			if f := file(d); f != "" {
				parts[i] = fmt.Sprintf("%s (%s)", d, f)
			}
		}
	}
	return strings.Join(parts, ", ")
}

func costText(c float64) string {
	if c > 1e15 || math.IsInf(c, 1) {
		return fmt.Sprintf("%.3g", c)
	}
	return fmt.Sprintf("%.0f", c)
}

// add indexes the subschemas of doc, whose URI is id. Call link once every
// document is added.
func (g *schemaGraph) add(doc map[string]any, id string) {
	base, _ := url.Parse(id)
	g.resources[id] = id + "#"
	g.collect(doc, id, "", base, true)
}

// collect indexes every subschema of document docID under ptr.
func (g *schemaGraph) collect(v any, docID, ptr string, base *url.URL, root bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	key := docID + "#" + ptr
	if s, ok := obj["$id"].(string); ok && !root && base != nil {
		if u, err := base.Parse(s); err == nil {
			u.Fragment, u.RawFragment = "", ""
			base = u
			g.resources[u.String()] = key
			g.ids[docID] = append(g.ids[docID], u.String())
		}
	}
	g.nodes[key] = &schemaNode{key: key, doc: docID, base: base, obj: obj}
	if a, ok := obj["$anchor"].(string); ok {
		g.anchors[baseText(base)+"#"+a] = key
	}
	for _, kw := range validator.SubschemaKeywords {
		g.collect(obj[kw], docID, ptr+"/"+escapePtr(kw), base, false)
	}
	for _, kw := range validator.SubschemaListKeywords {
		if list, ok := obj[kw].([]any); ok {
			for i, item := range list {
				g.collect(item, docID, fmt.Sprintf("%s/%s/%d", ptr, kw, i), base, false)
			}
		}
	}
	for _, kw := range validator.SubschemaMapKeywords {
		if m, ok := obj[kw].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(m)) {
				g.collect(m[name], docID, ptr+"/"+kw+"/"+escapePtr(name), base, false)
			}
		}
	}
}

// baseText is u without fragment, "" for nil.
func baseText(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}

// link records the evaluation edges of every node.
func (g *schemaGraph) link() {
	for _, n := range g.nodes {
		g.linkNode(n)
	}
}

// linkNode records the evaluation edges of n: to its applicator
// subschemas ($defs and definitions are not evaluated in place) and to the
// targets of its references in the graph.
func (g *schemaGraph) linkNode(n *schemaNode) {
	n.edges = n.edges[:0]
	prefix := n.doc + "#"
	ptr := n.key[len(prefix):]
	add := func(to, kw string) {
		if _, ok := g.nodes[to]; ok {
			n.edges = append(n.edges, schemaEdge{to: to, keyword: kw, inPlace: inPlaceKeywords[kw]})
		}
	}
	for _, kw := range validator.SubschemaKeywords {
		add(prefix+ptr+"/"+escapePtr(kw), kw)
	}
	for _, kw := range validator.SubschemaListKeywords {
		if list, ok := n.obj[kw].([]any); ok {
			for i := range list {
				add(fmt.Sprintf("%s%s/%s/%d", prefix, ptr, kw, i), kw)
			}
		}
	}
	for _, kw := range validator.SubschemaMapKeywords {
		if kw == "$defs" || kw == "definitions" {
			continue
		}
		if m, ok := n.obj[kw].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(m)) {
				add(prefix+ptr+"/"+kw+"/"+escapePtr(name), kw)
			}
		}
	}
	for _, kw := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
		if ref, ok := n.obj[kw].(string); ok {
			if to, ok := g.resolve(n.base, ref); ok {
				add(to, kw)
			}
		}
	}
}

// resolve maps a reference, made where base is the base URI, to the key
// of its target, when the target is in the graph.
func (g *schemaGraph) resolve(base *url.URL, ref string) (string, bool) {
	u, err := url.Parse(ref)
	if err != nil {
		return "", false
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	frag := u.Fragment
	u.Fragment, u.RawFragment = "", ""
	doc := u.String()
	if frag != "" && !strings.HasPrefix(frag, "/") {
		key, ok := g.anchors[doc+"#"+frag]
		return key, ok
	}
	start, ok := g.resources[doc]
	if !ok {
		return "", false
	}
	return start + frag, true
}

// inPlaceCycle returns a cycle of in-place edges ($ref, allOf, ...), as
// the keys of the nodes it goes through, or nil. Nodes of the documents in
// skip are left out.
func (g *schemaGraph) inPlaceCycle(skip map[string]bool) []string {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(k string) []string
	visit = func(k string) []string {
		state[k] = open
		stack = append(stack, k)
		for _, e := range g.nodes[k].edges {
			if !e.inPlace || skip[g.nodes[e.to].doc] {
				continue
			}
			switch state[e.to] {
			case open:
				i := slices.Index(stack, e.to)
				return append(slices.Clone(stack[i:]), e.to)
			case unseen:
				if c := visit(e.to); c != nil {
					return c
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[k] = done
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(g.nodes)) {
		if state[k] == unseen && !skip[g.nodes[k].doc] {
			if c := visit(k); c != nil {
				return c
			}
		}
	}
	return nil
}

// costResult is what costAndDepth finds from a root.
type costResult struct {
	cost  float64
	depth int
	chain []string // the nodes of the longest chain of $ref hops
	docs  []string // when the cost is over the limit, the documents evaluation reaches, the root's first
}

// costAndDepth estimates the evaluation cost of the root of document id
// (see MaxSchemaCost) and the longest chain of $ref hops from it.
func (g *schemaGraph) costAndDepth(id string) costResult {
	return g.costWalker(nil).from(id)
}

// costWalker estimates costs and chains from one root after another,
// following references into the other documents of the graph except those
// in skip; what it finds for a subschema serves every root that reaches
// it, so a registry costs one walk, not one per document.
type costWalker struct {
	g      *schemaGraph
	skip   map[string]bool
	memo   map[string]costMemo
	onPath map[string]bool
}

type costMemo struct {
	cost  float64
	depth int
	next  string // the child on the longest chain
}

func (g *schemaGraph) costWalker(skip map[string]bool) *costWalker {
	return &costWalker{g: g, skip: skip, memo: map[string]costMemo{}, onPath: map[string]bool{}}
}

// from walks from the root of document id. A recursion (through a
// consuming keyword: in-place cycles are refused first) is counted once.
func (w *costWalker) from(id string) costResult {
	root, ok := w.g.resources[id]
	if _, inGraph := w.g.nodes[root]; !ok || !inGraph {
		return costResult{}
	}
	r := w.visit(root)
	out := costResult{cost: r.cost, depth: r.depth}
	seen := map[string]bool{}
	for k := root; k != "" && !seen[k]; k = w.memo[k].next {
		seen[k] = true
		out.chain = append(out.chain, k)
	}
	if out.cost > MaxSchemaCost {
		out.docs = w.reached(root)
	}
	return out
}

func (w *costWalker) visit(k string) costMemo {
	if r, ok := w.memo[k]; ok {
		return r
	}
	w.onPath[k] = true
	r := costMemo{cost: 1}
	for _, e := range w.g.nodes[k].edges {
		if w.onPath[e.to] || w.skip[w.g.nodes[e.to].doc] {
			continue
		}
		c := w.visit(e.to)
		r.cost += c.cost
		hop := 0
		if e.keyword == "$ref" || e.keyword == "$dynamicRef" || e.keyword == "$recursiveRef" {
			hop = 1
		}
		if c.depth+hop > r.depth {
			r.depth, r.next = c.depth+hop, e.to
		}
	}
	w.onPath[k] = false
	w.memo[k] = r
	return r
}

// reached is the documents whose subschemas evaluation reaches from root,
// root's first.
func (w *costWalker) reached(root string) []string {
	var docs []string
	seen := map[string]bool{}
	stack := []string{root}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[k] {
			continue
		}
		seen[k] = true
		if d := w.g.nodes[k].doc; !slices.Contains(docs, d) {
			docs = append(docs, d)
		}
		for _, e := range w.g.nodes[k].edges {
			if !w.skip[w.g.nodes[e.to].doc] {
				stack = append(stack, e.to)
			}
		}
	}
	return docs
}

// escapePtr escapes a JSON Pointer token.
func escapePtr(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
