package schemas

import (
	"encoding/json"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unsafe"

	"github.com/agentgate/agentgate/internal/jsonx"
)

// modelViewKey keys the memo of ForModel.
type modelViewKey struct{}

// ForModel returns the schema as a model should see it, in the system
// prompt and in retry prompts: every keyword starting with "x-" removed
// (x-aliases would tell the model that the wrong names exist), $id,
// $schema and $comment dropped, and every $ref that leaves the root
// document's own JSON pointers (an anchor, a relative or absolute $id,
// another registry schema) bundled: its target is copied under the
// root's $defs (definitions for draft-07) and the $ref points there. The
// registry keeps the original. Computed once per schema; safe for
// concurrent use. A $ref that does not resolve within the registry (a
// $dynamicRef, say) is left as written.
func (s *Schema) ForModel() any {
	if s == nil {
		return nil
	}
	if v, ok := s.memo.Load(modelViewKey{}); ok {
		return v
	}
	var view any
	if s.Doc == nil {
		var b bool
		_ = json.Unmarshal(s.Raw, &b)
		view = b
	} else {
		view = newBundler(s).bundle()
	}
	v, _ := s.memo.LoadOrStore(modelViewKey{}, view)
	return v
}

// SubSchemaForModel returns, as ForModel shows it, the schema a member at
// path (a JSONPath of members only, "$.a.b") must match: the root's
// properties followed through $ref. Nil when the schema does not name the
// member (an additional member, or one under a combinator).
func (s *Schema) SubSchemaForModel(path string) any {
	view, _ := s.ForModel().(map[string]any)
	node := view
	for _, name := range MemberNames(path) {
		if node == nil {
			return nil
		}
		node = resolveLocal(view, node)
		props, _ := node["properties"].(map[string]any)
		next, _ := props[name].(map[string]any)
		node = next
	}
	if node == nil {
		return nil
	}
	return withDefs(view, resolveLocal(view, node))
}

// pointerToken undoes the escapes of one JSON pointer token (RFC 6901).
var pointerToken = strings.NewReplacer("~1", "/", "~0", "~")

// withDefs returns node with the root definitions it refers to, directly
// or through each other ("#/$defs/name", "#/definitions/name"), attached
// under the same keys, so that it reads on its own.
func withDefs(root, node map[string]any) map[string]any {
	needed := map[string]map[string]bool{}
	var visit func(v any)
	visit = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			ref, _ := t["$ref"].(string)
			if frag, local := strings.CutPrefix(ref, "#"); local {
				if unescaped, err := url.PathUnescape(frag); err == nil {
					frag = unescaped
				}
				for _, key := range []string{"$defs", "definitions"} {
					name, ok := strings.CutPrefix(frag, "/"+key+"/")
					if !ok || strings.Contains(name, "/") {
						continue
					}
					if name = pointerToken.Replace(name); needed[key][name] {
						continue
					}
					defs, _ := root[key].(map[string]any)
					if def, ok := defs[name]; ok {
						if needed[key] == nil {
							needed[key] = map[string]bool{}
						}
						needed[key][name] = true
						visit(def)
					}
				}
			}
			for k, c := range t {
				if !valueKeywords[k] {
					visit(c)
				}
			}
		case []any:
			for _, c := range t {
				visit(c)
			}
		}
	}
	visit(node)
	if len(needed) == 0 {
		return node
	}
	out := make(map[string]any, len(node)+len(needed))
	for k, v := range node {
		out[k] = v
	}
	for key, names := range needed {
		defs, _ := root[key].(map[string]any)
		attached := make(map[string]any, len(names))
		for name := range names {
			attached[name] = defs[name]
		}
		out[key] = attached
	}
	return out
}

// MemberNames splits "$.a['b c'].d" into its member names; nil for "$".
func MemberNames(path string) []string {
	var names []string
	rest := strings.TrimPrefix(path, "$")
	for rest != "" {
		switch {
		case strings.HasPrefix(rest, "['"):
			end := strings.Index(rest, "']")
			if end < 0 {
				return names
			}
			names = append(names, strings.ReplaceAll(rest[2:end], `\'`, "'"))
			rest = rest[end+2:]
		case strings.HasPrefix(rest, "."):
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			names = append(names, rest[:end])
			rest = rest[end:]
		default:
			return names
		}
	}
	return names
}

// resolveLocal follows local "#/..." $refs (at most maxRefHops) within
// root.
func resolveLocal(root, node map[string]any) map[string]any {
	for range maxRefHops {
		ref, ok := node["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#") {
			return node
		}
		m, _ := jsonx.Fragment(root, strings.TrimPrefix(ref, "#")).(map[string]any)
		if m == nil {
			return node
		}
		node = m
	}
	return node
}

// bundler builds ForModel's view of one schema.
type bundler struct {
	root    *Schema
	defsKey string                    // "$defs", or "definitions" for draft-07
	defs    map[string]any            // bundled definitions by name
	byNode  map[unsafe.Pointer]string // the name of each bundled target node
	taken   map[string]bool
}

func newBundler(s *Schema) *bundler {
	b := &bundler{root: s, defsKey: "$defs", defs: map[string]any{}, byNode: map[unsafe.Pointer]string{}, taken: map[string]bool{}}
	if s.Draft == Draft07 {
		b.defsKey = "definitions"
	}
	if existing, ok := s.Doc[b.defsKey].(map[string]any); ok {
		for name := range existing {
			b.taken[name] = true
		}
	}
	return b
}

func (b *bundler) bundle() any {
	out, _ := b.clean(b.root.Doc, b.root).(map[string]any)
	if len(b.defs) > 0 {
		defs, _ := out[b.defsKey].(map[string]any)
		if defs == nil {
			defs = map[string]any{}
		}
		for name, d := range b.defs {
			defs[name] = d
		}
		out[b.defsKey] = defs
	}
	return out
}

// valueKeywords hold instances, not schemas: copied as they are.
var valueKeywords = map[string]bool{"enum": true, "const": true, "default": true, "examples": true}

// clean copies a schema node of owner's document without the keywords a
// model should not see, bundling its $refs.
func (b *bundler) clean(v any, owner *Schema) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, c := range t {
			switch {
			case strings.HasPrefix(k, "x-"), k == "$id", k == "$schema", k == "$comment":
			case valueKeywords[k]:
				out[k] = c
			case k == "$ref":
				ref, _ := c.(string)
				out[k] = b.ref(ref, owner)
			case k == "properties" || k == "patternProperties" || k == "$defs" || k == "definitions" || k == "dependentSchemas":
				// Member names here are names, not keywords: keep "x-..."
				// properties.
				if m, ok := c.(map[string]any); ok {
					cm := make(map[string]any, len(m))
					for name, sub := range m {
						cm[name] = b.clean(sub, owner)
					}
					out[k] = cm
				} else {
					out[k] = c
				}
			default:
				out[k] = b.clean(c, owner)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, c := range t {
			out[i] = b.clean(c, owner)
		}
		return out
	}
	return v
}

// ref rewrites one $ref of owner's document: a JSON pointer into the root
// document stays; anything else points at a bundled copy of its target.
func (b *bundler) ref(ref string, owner *Schema) string {
	if owner == b.root && (ref == "#" || strings.HasPrefix(ref, "#/")) {
		return ref
	}
	target, towner := owner.resolveRef(ref)
	if target == nil {
		return ref
	}
	if towner == b.root && sameMap(target, b.root.Doc) {
		return "#"
	}
	key := mapPointer(target)
	if name, ok := b.byNode[key]; ok {
		return "#/" + b.defsKey + "/" + name
	}
	name := b.name(ref, towner)
	b.byNode[key] = name
	b.defs[name] = nil // reserved before cleaning: the target may refer to itself
	b.defs[name] = b.clean(target, towner)
	return "#/" + b.defsKey + "/" + name
}

// name picks a $defs name for a bundled target from its ref: the last
// pointer segment or anchor, else the schema's title or the last segment
// of its id, made unique.
func (b *bundler) name(ref string, owner *Schema) string {
	base := ref
	if i := strings.LastIndexAny(base, "/#"); i >= 0 && i < len(base)-1 {
		base = base[i+1:]
	}
	if !strings.Contains(ref, "#") || strings.HasSuffix(ref, "#") {
		id := strings.TrimSuffix(owner.ID, "/"+owner.Version)
		if i := strings.LastIndexAny(id, "/:"); i >= 0 {
			base = id[i+1:]
		}
	}
	if unescaped, err := url.PathUnescape(base); err == nil {
		base = pointerToken.Replace(unescaped)
	}
	// A name that needs no escaping, in a pointer or a URI: the view's
	// $refs are read by other people's tools.
	base = strings.Map(func(r rune) rune {
		if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.') {
			return r
		}
		return '_'
	}, base)
	if base == "" {
		base = "def"
	}
	name := base
	for i := 2; b.taken[name]; i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	b.taken[name] = true
	return name
}

// sameMap reports whether a and b are the same map (not equal ones).
func sameMap(a, b map[string]any) bool {
	if a == nil || b == nil {
		return false
	}
	return mapPointer(a) == mapPointer(b)
}

func mapPointer(m map[string]any) unsafe.Pointer { return reflect.ValueOf(m).UnsafePointer() }

// keyOrder is the order ModelJSON writes a schema object's keywords in:
// what a reader needs first (title, description, type), then the
// structure, $defs and definitions last; other keys sorted after the known
// ones.
var keyOrder = func() map[string]int {
	order := []string{"title", "description", "type", "const", "enum", "format", "pattern",
		"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf",
		"minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
		"$ref", "$dynamicRef", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
		"properties", "required", "patternProperties", "additionalProperties", "unevaluatedProperties",
		"propertyNames", "dependentRequired", "dependentSchemas",
		"prefixItems", "items", "additionalItems", "contains", "minContains", "maxContains", "unevaluatedItems",
		"default", "examples"}
	m := make(map[string]int, len(order))
	for i, k := range order {
		m[k] = i + 1
	}
	m["$defs"], m["definitions"] = 1000, 1001
	return m
}()

// ModelJSON writes a view of ForModel (or any value decoded from JSON) as
// JSON with a schema's keywords in a reading order (keyOrder), indented
// with indent ("" for compact). Member names under properties, $defs and
// the like keep the order of their names.
func ModelJSON(v any, indent string) string {
	var b strings.Builder
	writeModelJSON(&b, v, indent, "", false)
	return b.String()
}

func writeModelJSON(b *strings.Builder, v any, indent, prefix string, names bool) {
	nl := func(p string) {
		if indent != "" {
			b.WriteByte('\n')
			b.WriteString(p)
		}
	}
	sep := ":"
	if indent != "" {
		sep = ": "
	}
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			b.WriteString("{}")
			return
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(x, y string) int {
			if !names {
				ox, oy := keyOrder[x], keyOrder[y]
				if ox == 0 {
					ox = 500
				}
				if oy == 0 {
					oy = 500
				}
				if ox != oy {
					return ox - oy
				}
			}
			return strings.Compare(x, y)
		})
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(prefix + indent)
			b.WriteString(jsonString(k))
			b.WriteString(sep)
			childNames := !names && (k == "properties" || k == "patternProperties" || k == "$defs" || k == "definitions" || k == "dependentSchemas")
			if !names && valueKeywords[k] {
				writeValueJSON(b, t[k])
				continue
			}
			writeModelJSON(b, t[k], indent, prefix+indent, childNames)
		}
		nl(prefix)
		b.WriteByte('}')
	case []any:
		if len(t) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, c := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(prefix + indent)
			writeModelJSON(b, c, indent, prefix+indent, false)
		}
		nl(prefix)
		b.WriteByte(']')
	default:
		writeValueJSON(b, v)
	}
}

// writeValueJSON writes an instance value compactly, HTML characters left
// as they are.
func writeValueJSON(b *strings.Builder, v any) {
	b.WriteString(compactJSON(v))
}

func jsonString(s string) string { return compactJSON(s) }
