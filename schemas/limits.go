package schemas

import (
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strings"
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

// schemaNode is one subschema of a document, at its JSON Pointer.
type schemaNode struct {
	ptr   string
	obj   map[string]any
	edges []schemaEdge
}

type schemaEdge struct {
	to      string // pointer of the target
	keyword string
	inPlace bool
}

// schemaGraph is a document's subschemas and how evaluation moves between
// them.
type schemaGraph struct {
	base    *url.URL
	nodes   map[string]*schemaNode
	anchors map[string]string // "#name" and absolute embedded $ids → pointer
	ids     []string          // every $id below the root, resolved
}

// checkLimits refuses a schema over a load limit, with a $ref cycle that
// consumes no input, or with an embedded $id that collides with another
// document's or with another of its own (taken maps every $id already
// declared to its file; the document's own are added).
func checkLimits(raw []byte, doc map[string]any, id, file string, taken map[string]string) error {
	if len(raw) > MaxSchemaBytes {
		return fmt.Errorf("%w: %d bytes, over the limit of %d", ErrSchemaLimit, len(raw), MaxSchemaBytes)
	}
	g := buildGraph(doc, id)
	for _, eid := range g.ids {
		if prev, dup := taken[eid]; dup {
			return fmt.Errorf("%w: embedded $id %q is also declared by %s", ErrDuplicateID, eid, prev)
		}
		taken[eid] = file
	}
	if cycle := g.inPlaceCycle(); cycle != nil {
		return fmt.Errorf("%w: %s (evaluation would loop on one value; such a schema accepts every document)",
			ErrRefCycle, strings.Join(cycle, " → "))
	}
	cost, depth := g.costAndDepth()
	if depth > MaxRefDepth {
		return fmt.Errorf("%w: a chain of %d $refs, over the limit of %d", ErrSchemaLimit, depth, MaxRefDepth)
	}
	if cost > MaxSchemaCost {
		return fmt.Errorf("%w: estimated evaluation cost %s subschemas per document, over the limit of %d ($ref fan-out)",
			ErrSchemaLimit, costText(cost), MaxSchemaCost)
	}
	return nil
}

func costText(c float64) string {
	if c > 1e15 || math.IsInf(c, 1) {
		return fmt.Sprintf("%.3g", c)
	}
	return fmt.Sprintf("%.0f", c)
}

func buildGraph(doc map[string]any, id string) *schemaGraph {
	g := &schemaGraph{nodes: map[string]*schemaNode{}, anchors: map[string]string{}}
	g.base, _ = url.Parse(id)
	g.collect(doc, "", g.base, true)
	for _, n := range g.nodes {
		g.link(n)
	}
	return g
}

// collect indexes every subschema under ptr.
func (g *schemaGraph) collect(v any, ptr string, base *url.URL, root bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	g.nodes[ptr] = &schemaNode{ptr: ptr, obj: obj}
	if s, ok := obj["$id"].(string); ok && !root && base != nil {
		if u, err := base.Parse(s); err == nil {
			base = u
			u2 := *u
			u2.Fragment = ""
			g.anchors[u2.String()] = ptr
			g.ids = append(g.ids, u2.String())
		}
	}
	if a, ok := obj["$anchor"].(string); ok {
		g.anchors["#"+a] = ptr
	}
	for _, kw := range subschemaKeywords {
		g.collect(obj[kw], ptr+"/"+escapePtr(kw), base, false)
	}
	for _, kw := range subschemaListKeywords {
		if list, ok := obj[kw].([]any); ok {
			for i, item := range list {
				g.collect(item, fmt.Sprintf("%s/%s/%d", ptr, kw, i), base, false)
			}
		}
	}
	for _, kw := range subschemaMapKeywords {
		if m, ok := obj[kw].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(m)) {
				g.collect(m[name], ptr+"/"+kw+"/"+escapePtr(name), base, false)
			}
		}
	}
}

// link records the evaluation edges of n: to its applicator subschemas
// ($defs and definitions are not evaluated in place) and to the local
// targets of its references.
func (g *schemaGraph) link(n *schemaNode) {
	add := func(to, kw string) {
		if _, ok := g.nodes[to]; ok {
			n.edges = append(n.edges, schemaEdge{to: to, keyword: kw, inPlace: inPlaceKeywords[kw]})
		}
	}
	for _, kw := range subschemaKeywords {
		add(n.ptr+"/"+escapePtr(kw), kw)
	}
	for _, kw := range subschemaListKeywords {
		if list, ok := n.obj[kw].([]any); ok {
			for i := range list {
				add(fmt.Sprintf("%s/%s/%d", n.ptr, kw, i), kw)
			}
		}
	}
	for _, kw := range subschemaMapKeywords {
		if kw == "$defs" || kw == "definitions" {
			continue
		}
		if m, ok := n.obj[kw].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(m)) {
				add(n.ptr+"/"+kw+"/"+escapePtr(name), kw)
			}
		}
	}
	for _, kw := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
		if ref, ok := n.obj[kw].(string); ok {
			if to, ok := g.resolve(ref); ok {
				add(to, kw)
			}
		}
	}
}

// resolve maps a reference to a pointer within the document, when it
// points there (references to other documents are leaves here: each
// document is checked on its own).
func (g *schemaGraph) resolve(ref string) (string, bool) {
	if ptr, ok := g.anchors[ref]; ok {
		return ptr, true
	}
	u, err := url.Parse(ref)
	if err != nil {
		return "", false
	}
	if g.base != nil {
		u = g.base.ResolveReference(u)
	}
	frag := u.Fragment
	u.Fragment, u.RawFragment = "", ""
	doc := u.String()
	start := ""
	switch {
	case g.base != nil && doc == strings.TrimSuffix(g.base.String(), "#"):
	case g.anchors[doc] != "":
		start = g.anchors[doc]
	default:
		return "", false
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		ptr, ok := g.anchors["#"+frag]
		return ptr, ok
	}
	return start + frag, true
}

// inPlaceCycle returns a cycle of in-place edges ($ref, allOf, ...), as
// the pointers it goes through, or nil.
func (g *schemaGraph) inPlaceCycle() []string {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(p string) []string
	visit = func(p string) []string {
		state[p] = open
		stack = append(stack, p)
		for _, e := range g.nodes[p].edges {
			if !e.inPlace {
				continue
			}
			switch state[e.to] {
			case open:
				i := slices.Index(stack, e.to)
				cycle := append(slices.Clone(stack[i:]), e.to)
				for j, c := range cycle {
					cycle[j] = "#" + c
				}
				return cycle
			case unseen:
				if c := visit(e.to); c != nil {
					return c
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[p] = done
		return nil
	}
	for _, p := range slices.Sorted(maps.Keys(g.nodes)) {
		if state[p] == unseen {
			if c := visit(p); c != nil {
				return c
			}
		}
	}
	return nil
}

// costAndDepth estimates the evaluation cost of the root (see
// MaxSchemaCost) and the longest chain of $ref hops from it. A recursion
// (through a consuming keyword: in-place cycles are refused first) is
// counted once.
func (g *schemaGraph) costAndDepth() (float64, int) {
	type result struct {
		cost  float64
		depth int
	}
	memo := map[string]result{}
	onPath := map[string]bool{}
	var visit func(p string) result
	visit = func(p string) result {
		if r, ok := memo[p]; ok {
			return r
		}
		onPath[p] = true
		r := result{cost: 1}
		for _, e := range g.nodes[p].edges {
			if onPath[e.to] {
				continue
			}
			c := visit(e.to)
			r.cost += c.cost
			hop := 0
			if e.keyword == "$ref" || e.keyword == "$dynamicRef" || e.keyword == "$recursiveRef" {
				hop = 1
			}
			r.depth = max(r.depth, c.depth+hop)
		}
		onPath[p] = false
		memo[p] = r
		return r
	}
	if _, ok := g.nodes[""]; !ok {
		return 0, 0
	}
	r := visit("")
	return r.cost, r.depth
}

// escapePtr escapes a JSON Pointer token.
func escapePtr(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
