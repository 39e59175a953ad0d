package provider

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/agentgate/agentgate/contract"
)

// ErrUnknownProvider is returned by Export for a provider not in Names.
var ErrUnknownProvider = errors.New("unknown provider")

// Actions of a Finding.
const (
	// ActionDropped: the keyword is not sent; agentgate alone enforces it.
	ActionDropped = "dropped"
	// ActionRewritten: expressed another way the provider accepts (oneOf
	// as anyOf, allOf merged, an open object closed); the message says
	// what agentgate still checks.
	ActionRewritten = "rewritten"
	// ActionUnsupported: the provider refuses the exported schema as it
	// is (a root that is not an object, recursion, over a limit).
	ActionUnsupported = "unsupported"
)

// Finding is one keyword of the original schema that the export could not
// carry as it is.
type Finding struct {
	// Path is a JSONPath into the original schema document ($ for its
	// root); a node reached through $ref is named by where the ref is.
	Path    string `json:"path"`
	Keyword string `json:"keyword"`
	Action  string `json:"action"`
	Message string `json:"message"`
}

// Result is a schema exported to a provider's strict mode.
type Result struct {
	Provider Name `json:"provider"`
	// Schema is the schema to send.
	Schema map[string]any `json:"schema"`
	// Strict is false when some finding is ActionUnsupported: the
	// provider would refuse Schema in strict mode.
	Strict bool `json:"strict"`
	// OptionalAsNull lists (as JSONPaths into the original schema) the
	// optional properties exported as required unions with null; outputs
	// that hold null there are mapped back by the normalizer.
	OptionalAsNull []string `json:"optional_as_null"`
	// NotExpressed is every finding, sorted by path then keyword.
	NotExpressed []Finding `json:"not_expressed"`
}

// Resolver follows $ref (schemas.Schema.Resolve does): the target of the
// node's $ref, or nil when it resolves to nothing.
type Resolver interface {
	Resolve(node map[string]any) map[string]any
}

// Export rewrites the schema document doc into what provider p accepts in
// strict mode and reports what could not be expressed. $ref targets are
// exported once each, under $defs. It fails only for an unknown provider.
func Export(p Name, doc map[string]any, r Resolver) (*Result, error) {
	prof, ok := profiles[p]
	if !ok {
		return nil, fmt.Errorf("%w %q (want one of %v)", ErrUnknownProvider, p, Names)
	}
	e := &exporter{prof: prof, r: r, names: map[unsafe.Pointer]string{}, state: map[unsafe.Pointer]int{}, defs: map[string]any{}}
	if doc != nil {
		e.root = reflect.ValueOf(doc).UnsafePointer()
	}
	out := e.node(doc, "$", 0)
	if len(e.defs) > 0 {
		out["$defs"] = e.defs
	}
	if prof.rootObject {
		if t, _ := out["type"].(string); t != "object" {
			e.find("$", "type", ActionUnsupported, "the root must be an object (wrap the output in one)")
		}
		if _, ok := out["anyOf"]; ok {
			e.find("$", "anyOf", ActionUnsupported, "the root must not be an anyOf")
		}
	}
	e.checkLimits(out)
	x := &Result{Provider: p, Schema: out, Strict: true, OptionalAsNull: e.optional, NotExpressed: e.findings}
	if x.OptionalAsNull == nil {
		x.OptionalAsNull = []string{}
	}
	if x.NotExpressed == nil {
		x.NotExpressed = []Finding{}
	}
	slices.Sort(x.OptionalAsNull)
	slices.SortStableFunc(x.NotExpressed, func(a, b Finding) int {
		if c := contract.ComparePaths(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Keyword, b.Keyword)
	})
	for _, f := range x.NotExpressed {
		if f.Action == ActionUnsupported {
			x.Strict = false
		}
	}
	return x, nil
}

type exporter struct {
	prof     profile
	r        Resolver
	findings []Finding
	optional []string
	defs     map[string]any
	names    map[unsafe.Pointer]string
	state    map[unsafe.Pointer]int // 1: being exported, 2: done
	root     unsafe.Pointer
	inBranch int // anyOf/oneOf branches entered

	properties, depth, enumValues int
}

func (e *exporter) find(path, kw, action, msg string) {
	e.findings = append(e.findings, Finding{Path: path, Keyword: kw, Action: action, Message: msg})
}

// node exports one schema node found at path, objects nesting depth deep.
func (e *exporter) node(v any, path string, depth int) map[string]any {
	if b, ok := v.(bool); ok {
		e.find(path, "", ActionUnsupported, fmt.Sprintf("the boolean schema %v cannot be expressed", b))
		return map[string]any{}
	}
	node, _ := v.(map[string]any)
	if node == nil {
		return map[string]any{}
	}
	if _, ok := node["$ref"]; ok {
		return e.ref(node, path, depth)
	}
	out := map[string]any{}
	for _, kw := range slices.Sorted(maps.Keys(node)) {
		e.keyword(out, node, kw, path, depth)
	}
	if _, ok := node["properties"]; ok || hasType(node, "object") {
		e.object(out, node, path, depth)
		e.distribute(out, path)
	}
	return out
}

// distribute moves an object's own members into its anyOf branches when
// every branch is an inline object (a JTD discriminator's translation, an
// object with variants): closing the object itself, as strict mode asks,
// would refuse every member only a branch declares.
func (e *exporter) distribute(out map[string]any, path string) {
	branches, _ := out["anyOf"].([]any)
	if len(branches) == 0 {
		return
	}
	for _, b := range branches {
		m, _ := b.(map[string]any)
		if _, ok := m["properties"]; !ok {
			return
		}
	}
	props, _ := out["properties"].(map[string]any)
	req, _ := out["required"].([]any)
	for _, b := range branches {
		m := b.(map[string]any)
		bprops := m["properties"].(map[string]any)
		for k, v := range props {
			if _, has := bprops[k]; !has {
				bprops[k] = v
			}
		}
		breq, _ := m["required"].([]any)
		for _, r := range req {
			if !slices.Contains(breq, r) {
				breq = append(breq, r)
			}
		}
		slices.SortFunc(breq, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
		m["required"] = breq
	}
	for _, k := range []string{"properties", "required", "additionalProperties", "type"} {
		delete(out, k)
	}
	e.find(path, "anyOf", ActionRewritten, "the object's own members are moved into each of its anyOf branches, which are closed objects")
}

// ref exports a $ref as a ref to $defs, exporting its target once.
func (e *exporter) ref(node map[string]any, path string, depth int) map[string]any {
	target := e.r.Resolve(node)
	if target == nil {
		e.find(path, "$ref", ActionUnsupported, fmt.Sprintf("%v resolves to nothing", node["$ref"]))
		return map[string]any{}
	}
	key := reflect.ValueOf(target).UnsafePointer()
	if key == e.root {
		if !e.prof.recursion {
			e.find(path, "$ref", ActionUnsupported, "recursive schemas are not supported")
		}
		return map[string]any{"$ref": "#"}
	}
	name, ok := e.names[key]
	if !ok {
		name = e.defName(node["$ref"])
		e.names[key] = name
	}
	switch e.state[key] {
	case 0:
		e.state[key] = 1
		e.defs[name] = e.node(target, path, depth)
		e.state[key] = 2
	case 1:
		if !e.prof.recursion {
			e.find(path, "$ref", ActionUnsupported, "recursive schemas are not supported")
		}
	}
	out := map[string]any{"$ref": "#/$defs/" + name}
	for _, kw := range slices.Sorted(maps.Keys(node)) {
		switch {
		case kw == "$ref" || quiet[kw]:
		case kw == "description" || kw == "title":
			// Annotations beside $ref: the target's own win.
		default:
			e.find(path, kw, ActionDropped, "a keyword beside $ref is not exported")
		}
	}
	return out
}

// defName is a $defs name for a ref, from its last segment, made unique.
func (e *exporter) defName(ref any) string {
	s, _ := ref.(string)
	base := s[strings.LastIndexAny(s, "/#:")+1:]
	if base == "" {
		base = "root"
	}
	name := base
	for i := 2; e.defs[name] != nil || slices.Contains(slices.Collect(maps.Values(e.names)), name); i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	return name
}

// keyword carries one keyword of node into out, or reports it.
func (e *exporter) keyword(out, node map[string]any, kw, path string, depth int) {
	v := node[kw]
	p := e.prof
	drop := func(msg string) { e.find(path, kw, ActionDropped, msg) }
	switch kw {
	case "type", "title", "description":
		out[kw] = v
	case "pattern":
		if str, _ := v.(string); p.simplePatterns && unsupportedPattern.MatchString(str) {
			drop("the pattern uses a backreference, a lookaround or a word boundary, which the provider does not support")
		} else {
			out[kw] = v
		}
	case "properties", "required", "additionalProperties":
		// object() handles them.
	case "enum", "const":
		vals, _ := v.([]any)
		if kw == "const" {
			vals = []any{v}
		}
		e.enumValues += len(vals)
		for _, x := range vals {
			switch x.(type) {
			case map[string]any, []any:
				if p.scalarEnums {
					e.find(path, kw, ActionUnsupported, "enum and const values must be scalars")
					return
				}
			}
		}
		out[kw] = v
	case "format":
		if f, _ := v.(string); p.formats[f] {
			out[kw] = v
		} else {
			drop(fmt.Sprintf("format %v is not among the formats the provider enforces", v))
		}
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		if p.numeric {
			out[kw] = v
		} else {
			drop("numeric bounds are not supported")
		}
	case "minItems":
		if n, ok := intOf(v); ok && (p.minItemsMax < 0 || n <= p.minItemsMax) {
			out[kw] = v
		} else {
			drop(fmt.Sprintf("minItems %v is not supported (at most %d)", v, p.minItemsMax))
		}
	case "maxItems":
		if p.maxItems {
			out[kw] = v
		} else {
			drop("maxItems is not supported")
		}
	case "items":
		if _, tuple := v.([]any); tuple {
			drop("tuple items (draft-07) are not supported")
			return
		}
		out[kw] = e.node(v, path+".items", depth)
	case "anyOf":
		e.inBranch++
		out[kw] = e.branches(v, path+".anyOf", depth)
		e.inBranch--
	case "oneOf":
		e.inBranch++
		out["anyOf"] = e.branches(v, path+".oneOf", depth)
		e.inBranch--
		e.find(path, kw, ActionRewritten, "oneOf is exported as anyOf: that exactly one branch matches is checked by agentgate only")
	case "allOf":
		e.allOf(out, v, path, depth)
	case "x-rules":
		drop("business rules (CEL) are checked by agentgate only")
	default:
		if quiet[kw] {
			return
		}
		drop(fmt.Sprintf("%s is not supported in strict mode", kw))
	}
}

func (e *exporter) branches(v any, path string, depth int) []any {
	list, _ := v.([]any)
	out := make([]any, len(list))
	for i, b := range list {
		out[i] = e.node(b, contract.Index(path, i), depth)
	}
	return out
}

// allOf merges the branches into out: properties and required united,
// other keywords taken where out has none.
func (e *exporter) allOf(out map[string]any, v any, path string, depth int) {
	list, _ := v.([]any)
	e.find(path, "allOf", ActionRewritten, "allOf is not supported: its branches are merged into one schema (a keyword two branches both set keeps the first)")
	for i, b := range list {
		m, _ := b.(map[string]any)
		if m != nil && m["$ref"] != nil {
			if t := e.r.Resolve(m); t != nil {
				m = t
			}
		}
		x := e.node(m, contract.Index(path+".allOf", i), depth)
		for k, val := range x {
			switch k {
			case "properties":
				props, _ := out[k].(map[string]any)
				if props == nil {
					props = map[string]any{}
				}
				maps.Copy(props, val.(map[string]any))
				out[k] = props
			case "required":
				req, _ := out[k].([]any)
				for _, r := range val.([]any) {
					if !slices.Contains(req, r) {
						req = append(req, r)
					}
				}
				out[k] = req
			default:
				if _, has := out[k]; !has {
					out[k] = val
				}
			}
		}
	}
}

// object exports an object node's properties, required and
// additionalProperties.
func (e *exporter) object(out, node map[string]any, path string, depth int) {
	depth++
	e.depth = max(e.depth, depth)
	props, _ := node["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := node["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	outProps, _ := out["properties"].(map[string]any) // from a merged allOf
	if outProps == nil {
		outProps = map[string]any{}
	}
	var req []any
	if r, ok := out["required"].([]any); ok {
		req = r
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		e.properties++
		ppath := contract.Member(path+".properties", name)
		x := e.node(props[name], ppath, depth)
		switch {
		case required[name]:
			req = append(req, name)
		case e.prof.allRequired:
			x = nullable(x)
			req = append(req, name)
			e.optional = append(e.optional, ppath)
			if e.inBranch > 0 {
				e.find(ppath, "required", ActionRewritten, "an optional member inside an anyOf branch is exported as required and nullable, "+
					"and the normalizer removes its null when exactly one branch then accepts the object (as for a discriminator's branches)")
			}
		}
		outProps[name] = x
	}
	for _, name := range slices.Sorted(maps.Keys(required)) {
		if _, declared := props[name]; !declared && !slices.Contains(req, any(name)) {
			e.find(path, "required", ActionDropped, fmt.Sprintf("required %q names no property", name))
		}
	}
	out["properties"] = outProps
	slices.SortFunc(req, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
	req = slices.Compact(req)
	if len(req) > 0 || e.prof.allRequired {
		if req == nil {
			req = []any{}
		}
		out["required"] = req
	}
	switch ap := node["additionalProperties"].(type) {
	case bool:
		if ap {
			e.find(path, "additionalProperties", ActionRewritten, "the object is closed for the provider: members it does not declare are never produced")
		}
	case map[string]any:
		e.find(path, "additionalProperties", ActionDropped, "additionalProperties as a schema (a map of values) cannot be expressed: the provider produces only the declared members")
	default:
		if _, patterned := node["patternProperties"]; !patterned {
			e.find(path, "additionalProperties", ActionRewritten, "the object is closed for the provider: members it does not declare are never produced")
		}
	}
	out["additionalProperties"] = false
	if _, ok := out["type"]; !ok {
		out["type"] = "object"
	}
}

// nullable makes x also accept null.
func nullable(x map[string]any) map[string]any {
	switch t := x["type"].(type) {
	case string:
		if t != "null" {
			x["type"] = []any{t, "null"}
		}
		addNullEnum(x)
		return x
	case []any:
		if !slices.Contains(t, any("null")) {
			x["type"] = append(slices.Clone(t), "null")
		}
		addNullEnum(x)
		return x
	}
	return map[string]any{"anyOf": []any{x, map[string]any{"type": "null"}}}
}

func addNullEnum(x map[string]any) {
	if enum, ok := x["enum"].([]any); ok && !slices.Contains(enum, nil) {
		x["enum"] = append(slices.Clone(enum), nil)
	}
}

func hasType(node map[string]any, t string) bool {
	switch v := node["type"].(type) {
	case string:
		return v == t
	case []any:
		return slices.Contains(v, any(t))
	}
	return false
}

func intOf(v any) (int, bool) {
	var n int
	_, err := fmt.Sscan(fmt.Sprint(v), &n)
	return n, err == nil
}
