package schemas

import (
	"net/netip"
	"strings"
	"unicode/utf8"
)

// The URI and IRI formats follow the grammars of RFC 3986 (URI) and RFC
// 3987 (IRI). kaptinlin v0.9.8 checks them with net/url (formats.go), which
// accepts spaces, backslashes, quotes, braces, non-ASCII characters and
// brackets in paths.

// isURI is the "uri" format: an absolute URI.
func isURI(v any) bool { return checkRef(v, false, false) }

// isURIReference is the "uri-reference" format: a URI or a relative reference.
func isURIReference(v any) bool { return checkRef(v, false, true) }

// isIRI is the "iri" format: an absolute IRI.
func isIRI(v any) bool { return checkRef(v, true, false) }

// isIRIReference is the "iri-reference" format: an IRI or a relative reference.
func isIRIReference(v any) bool { return checkRef(v, true, true) }

func checkRef(v any, iri, relative bool) bool {
	s, ok := v.(string)
	if !ok {
		return true
	}
	return parseRef(s, iri, relative)
}

// parseRef parses s as an absolute URI (or, with relative, a URI reference);
// iri admits the non-ASCII characters of RFC 3987.
func parseRef(s string, iri, relative bool) bool {
	if !utf8.ValidString(s) {
		return false
	}
	rest := s
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		if !validChars(rest[i+1:], "/?", iri) {
			return false
		}
		rest = rest[:i]
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		if !validChars(rest[i+1:], "/?", iri) {
			return false
		}
		rest = rest[:i]
	}
	scheme, hier, hasScheme := splitScheme(rest)
	if !hasScheme {
		if !relative {
			return false
		}
		hier = rest
		// path-noscheme: no ":" in the first segment.
		first, _, _ := strings.Cut(hier, "/")
		if !strings.HasPrefix(hier, "/") && strings.Contains(first, ":") {
			return false
		}
	} else if !validScheme(scheme) {
		return false
	}
	path := hier
	if after, ok := strings.CutPrefix(hier, "//"); ok {
		authority := after
		path = ""
		if i := strings.IndexByte(after, '/'); i >= 0 {
			authority, path = after[:i], after[i:]
		}
		if !validAuthority(authority, iri) {
			return false
		}
	}
	return validChars(path, "/", iri)
}

// splitScheme splits "scheme:rest" where the part before the first ":"
// has no "/" (else the colon is in a path).
func splitScheme(s string) (scheme, rest string, ok bool) {
	i := strings.IndexByte(s, ':')
	if i < 0 || strings.ContainsRune(s[:i], '/') {
		return "", s, false
	}
	return s[:i], s[i+1:], true
}

// validScheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
func validScheme(s string) bool {
	if s == "" || !isASCIILetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(isASCIILetter(c) || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// validAuthority: [ userinfo "@" ] host [ ":" port ].
func validAuthority(a string, iri bool) bool {
	if i := strings.LastIndexByte(a, '@'); i >= 0 {
		if !validChars(a[:i], ":", iri) || strings.Contains(a[:i], "@") {
			return false
		}
		a = a[i+1:]
	}
	host := a
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 || !validIPLiteral(a[1:end]) {
			return false
		}
		host, a = "", a[end+1:]
		if a != "" && !strings.HasPrefix(a, ":") {
			return false
		}
	} else if i := strings.LastIndexByte(a, ':'); i >= 0 {
		host, a = a[:i], a[i:]
	} else {
		a = ""
	}
	if port, ok := strings.CutPrefix(a, ":"); ok {
		for i := 0; i < len(port); i++ {
			if port[i] < '0' || port[i] > '9' {
				return false
			}
		}
	}
	// reg-name (an IPv4 address is one too).
	return !strings.ContainsAny(host, ":[]") && validChars(host, "", iri)
}

// validIPLiteral: IPv6address / IPvFuture (RFC 3986 section 3.2.2).
func validIPLiteral(s string) bool {
	if len(s) > 0 && (s[0] == 'v' || s[0] == 'V') {
		dot := strings.IndexByte(s, '.')
		if dot < 2 || dot == len(s)-1 {
			return false
		}
		for i := 1; i < dot; i++ {
			if !isHex(s[i]) {
				return false
			}
		}
		for i := dot + 1; i < len(s); i++ {
			c := s[i]
			if !(isUnreserved(c) || isSubDelim(c) || c == ':') {
				return false
			}
		}
		return true
	}
	addr, err := netip.ParseAddr(s)
	return err == nil && addr.Is6() && addr.Zone() == ""
}

// validChars checks that s holds only pchar (unreserved, pct-encoded,
// sub-delims, ":" and "@"), the characters in extra and, for an IRI, the
// non-ASCII characters RFC 3987 allows (ucschar; iprivate is allowed
// everywhere, which RFC 3987 limits to the query).
func validChars(s, extra string, iri bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 3
			continue
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !iri || !isUCSChar(r) {
				return false
			}
			i += size
			continue
		case isUnreserved(c), isSubDelim(c), c == ':', c == '@', strings.IndexByte(extra, c) >= 0:
		default:
			return false
		}
		i++
	}
	return true
}

func isUnreserved(c byte) bool {
	return isASCIILetter(c) || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func isSubDelim(c byte) bool { return strings.IndexByte("!$&'()*+,;=", c) >= 0 }

// isUCSChar: the ucschar and iprivate ranges of RFC 3987.
func isUCSChar(r rune) bool {
	switch {
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xF900 && r <= 0xFDCF, r >= 0xFDF0 && r <= 0xFFEF,
		r >= 0xE000 && r <= 0xF8FF:
		return true
	case r >= 0x10000 && r <= 0x10FFFD:
		return r&0xFFFF < 0xFFFE // not a non-character
	}
	return false
}

// isURITemplate is the "uri-template" format (RFC 6570, level 4).
func isURITemplate(v any) bool {
	s, ok := v.(string)
	if !ok {
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 || !validExpression(s[i+1:i+end]) {
				return false
			}
			i += end + 1
			continue
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 3
			continue
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !isUCSChar(r) {
				return false
			}
			i += size
			continue
		case c <= ' ', c == 0x7f, strings.IndexByte("\"<>\\^`{|}", c) >= 0:
			return false
		}
		i++
	}
	return true
}

// validExpression: [ operator ] varspec *( "," varspec ).
func validExpression(e string) bool {
	if e != "" && strings.IndexByte("+#./;?&", e[0]) >= 0 {
		e = e[1:]
	}
	if e == "" {
		return false
	}
	for spec := range strings.SplitSeq(e, ",") {
		name, modifier := spec, ""
		if i := strings.IndexAny(spec, ":*"); i >= 0 {
			name, modifier = spec[:i], spec[i:]
		}
		if !validVarname(name) {
			return false
		}
		switch {
		case modifier == "", modifier == "*":
		case modifier[0] == ':':
			n := modifier[1:]
			if len(n) < 1 || len(n) > 4 || n[0] < '1' || n[0] > '9' {
				return false
			}
			for i := 1; i < len(n); i++ {
				if n[i] < '0' || n[i] > '9' {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// validVarname: varchar *( ["."] varchar ), varchar = ALPHA / DIGIT / "_" / pct-encoded.
func validVarname(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		case isASCIILetter(c), c >= '0' && c <= '9', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}

// isIPv4 is the "ipv4" format: four decimal octets, no leading zeros
// (RFC 2673 section 3.2). kaptinlin v0.9.8 accepts "+1.2.3.4".
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
