package jsonx

// Annotation reports whether a JSON Schema keyword asserts nothing about
// an instance and names nothing another keyword resolves against at
// evaluation time: identifiers and plain anchors, the containers of
// definitions, comments, the meta-data vocabulary and the content
// vocabulary (annotations only, as 2020-12 has them). Extension keywords
// ("x-...") are left to the caller, and so are $dynamicAnchor and
// $recursiveAnchor, which change what a $dynamicRef or $recursiveRef
// elsewhere resolves to.
func Annotation(keyword string) bool { return annotations[keyword] }

var annotations = map[string]bool{
	"$schema": true, "$id": true, "$anchor": true, "$defs": true, "definitions": true, "$comment": true,
	"$vocabulary": true, "title": true, "description": true, "default": true, "examples": true,
	"deprecated": true, "readOnly": true, "writeOnly": true,
	"contentMediaType": true, "contentEncoding": true, "contentSchema": true,
}
