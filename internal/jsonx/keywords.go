package jsonx

// Annotation reports whether a JSON Schema keyword asserts nothing about
// an instance: identifiers and plain anchors (which a $ref resolves against
// where it is followed, not at the node that declares them), the containers
// of definitions, comments, the meta-data vocabulary and the content
// vocabulary (annotations only, as 2020-12 has them). Extension keywords
// ("x-...") are left to the caller, and so are $dynamicAnchor and
// $recursiveAnchor, whose place in the dynamic scope changes what a
// $dynamicRef or $recursiveRef resolves to during evaluation.
func Annotation(keyword string) bool { return annotations[keyword] }

var annotations = map[string]bool{
	"$schema": true, "$id": true, "$anchor": true, "$defs": true, "definitions": true, "$comment": true,
	"$vocabulary": true, "title": true, "description": true, "default": true, "examples": true,
	"deprecated": true, "readOnly": true, "writeOnly": true,
	"contentMediaType": true, "contentEncoding": true, "contentSchema": true,
}
