package jsonx

import (
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/kaptinlin/jsonpointer"
)

// Pointer evaluates JSON pointer ptr (RFC 6901: "" is the whole document,
// "/a/0/b~1c" a member, an item, a member named "b/c") against decoded
// document doc. ok is false when it points at nothing. ptr is the pointer
// itself, not a URI fragment: a caller holding "#/a%20b" unescapes it
// first.
func Pointer(doc any, ptr string) (v any, ok bool) {
	v, err := jsonpointer.Value(doc, ptr)
	if err != nil {
		return nil, false
	}
	return v, true
}

// Fragment evaluates the fragment of a URI reference, as written in a
// $ref (URI-escaped: "/$defs/a%20b"), against decoded document doc: a JSON
// pointer when it starts with "/", else the name of an anchor (see
// Anchor); "" is the whole document. nil when it names nothing.
func Fragment(doc any, escaped string) any {
	frag := escaped
	if unescaped, err := url.PathUnescape(escaped); err == nil {
		frag = unescaped
	}
	switch {
	case frag == "":
		return doc
	case strings.HasPrefix(frag, "/"):
		v, _ := Pointer(doc, frag)
		return v
	default:
		if m := Anchor(doc, frag); m != nil {
			return m
		}
		return nil
	}
}

// Anchor finds in doc the schema object that declares "$anchor": name, or
// draft-07's "$id": "#name", the first in document order with object
// members visited in sorted order (so that a document declaring an anchor
// twice resolves the same way every time); nil when there is none.
func Anchor(doc any, name string) map[string]any {
	switch t := doc.(type) {
	case map[string]any:
		if a, _ := t["$anchor"].(string); a == name {
			return t
		}
		if id, _ := t["$id"].(string); id == "#"+name {
			return t
		}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if found := Anchor(t[k], name); found != nil {
				return found
			}
		}
	case []any:
		for _, v := range t {
			if found := Anchor(v, name); found != nil {
				return found
			}
		}
	}
	return nil
}
