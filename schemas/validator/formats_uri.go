package validator

import (
	"strings"

	"github.com/kaptinlin/jsonschema"
)

// kaptinlin v0.9.10 checks the URI and IRI formats against the character
// repertoires of RFC 3986 and RFC 3987, then with net/url (formats.go,
// parseResourceIdentifier), which takes the last "@" of an authority as
// the end of its userinfo and so accepts "https://a@b@c/": RFC 3986 allows
// no "@" in userinfo. These wrap its validators with that one check.

// isURI is the "uri" format: an absolute URI.
func isURI(v any) bool { return jsonschema.IsURI(v) && oneAt(v) }

// isURIReference is the "uri-reference" format: a URI or a relative reference.
func isURIReference(v any) bool { return jsonschema.IsURIReference(v) && oneAt(v) }

// isIRI is the "iri" format: an absolute IRI.
func isIRI(v any) bool { return jsonschema.IsIRI(v) && oneAt(v) }

// isIRIReference is the "iri-reference" format: an IRI or a relative reference.
func isIRIReference(v any) bool { return jsonschema.IsIRIReference(v) && oneAt(v) }

// oneAt reports whether the authority of the reference v, if it has one,
// holds at most one "@" (RFC 3986 section 3.2: userinfo has none).
func oneAt(v any) bool {
	s, ok := v.(string)
	if !ok {
		return true
	}
	s, _, _ = strings.Cut(s, "#")
	s, _, _ = strings.Cut(s, "?")
	if i := strings.IndexByte(s, ':'); i >= 0 && !strings.Contains(s[:i], "/") {
		s = s[i+1:] // the scheme
	}
	after, ok := strings.CutPrefix(s, "//")
	if !ok {
		return true
	}
	authority, _, _ := strings.Cut(after, "/")
	return strings.Count(authority, "@") <= 1
}

// isIPv4 is the "ipv4" format: four decimal octets, no leading zeros
// (RFC 2673 section 3.2). kaptinlin v0.9.10 reads octets with strconv.Atoi
// (formats.go, IsIPV4), which accepts "+1.2.3.4".
func isIPv4(v any) bool {
	s, ok := v.(string)
	if !ok {
		return true
	}
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 3 || len(p) > 1 && p[0] == '0' {
			return false
		}
		n := 0
		for i := 0; i < len(p); i++ {
			if p[i] < '0' || p[i] > '9' {
				return false
			}
			n = n*10 + int(p[i]-'0')
		}
		if n > 255 {
			return false
		}
	}
	return true
}
