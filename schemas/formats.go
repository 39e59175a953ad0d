package schemas

import (
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kaptinlin/jsonschema"
)

// specFormats are the formats draft 2020-12 defines (draft-07 defines the
// same set less duration and uuid). They are asserted; any other format name
// is an annotation and is ignored.
var specFormats = map[string]bool{
	"date-time": true, "date": true, "time": true, "duration": true,
	"email": true, "idn-email": true, "hostname": true, "idn-hostname": true,
	"ipv4": true, "ipv6": true, "uri": true, "uri-reference": true,
	"iri": true, "iri-reference": true, "uri-template": true, "uuid": true,
	"regex": true, "json-pointer": true, "relative-json-pointer": true,
}

// setupFormats registers, on a compiler that asserts formats, the validators
// kaptinlin lacks or gets wrong, and neutralises the non-standard names it
// asserts. Custom formats take precedence over kaptinlin's global Formats map
// (format.go, evaluateFormat).
func setupFormats(c *jsonschema.Compiler) {
	// Missing from kaptinlin's Formats map (formats.go): with assertion on
	// they would fail every value as "unknown format".
	c.RegisterFormat("idn-email", isIDNEmail, "string")
	c.RegisterFormat("idn-hostname", isIDNHostname, "string")
	// kaptinlin's IsHostname checks the first character of the whole name
	// instead of each label (formats.go:288), accepting "a.-b".
	c.RegisterFormat("hostname", isHostname, "string")
	// Names kaptinlin asserts that no current draft defines: ignore them.
	for _, name := range []string{"period", "ip-address", "uriref", "unknown"} {
		c.RegisterFormat(name, anyValue)
	}
}

// registerUnknownFormats registers a no-op validator for every format name
// used in doc that the specification does not define: with assertion on,
// kaptinlin fails a value whose format it does not know (format.go,
// "unknown_format"), where the specification says to ignore the keyword.
// Strings under "format" inside enum, const or default values are registered
// too, which is harmless.
func registerUnknownFormats(c *jsonschema.Compiler, doc any) {
	walkJSON(doc, func(m map[string]any) {
		if name, ok := m["format"].(string); ok && !specFormats[name] {
			c.RegisterFormat(name, anyValue)
		}
	})
}

func anyValue(any) bool { return true }

// isHostname follows RFC 1123 section 2.1: dot-separated labels of 1 to 63
// ASCII letters, digits and hyphens, not starting or ending with a hyphen,
// 253 characters at most.
func isHostname(v any) bool {
	s, ok := v.(string)
	if !ok {
		return true
	}
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if !asciiLabel(label) {
			return false
		}
	}
	return true
}

func asciiLabel(label string) bool {
	if len(label) < 1 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
		return false
	}
	for i := 0; i < len(label); i++ {
		c := label[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// isIDNHostname accepts a hostname whose labels are ASCII labels (including
// A-labels, "xn--...") or U-labels made of letters, marks, digits and
// hyphens. It does not apply the full IDNA2008 tables (RFC 5892).
func isIDNHostname(v any) bool {
	s, ok := v.(string)
	if !ok {
		return true
	}
	// IDNA label separators besides the full stop (RFC 3490 section 3.1).
	s = strings.NewReplacer("\u3002", ".", "\uff0e", ".", "\uff61", ".").Replace(s)
	s = strings.TrimSuffix(s, ".")
	if s == "" || utf8.RuneCountInString(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if !unicodeLabel(label) {
			return false
		}
	}
	return true
}

func unicodeLabel(label string) bool {
	n := utf8.RuneCountInString(label)
	if n < 1 || n > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
		return false
	}
	for i, r := range label {
		switch {
		case r < utf8.RuneSelf:
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		case unicode.IsMark(r):
			if i == 0 {
				return false // a label cannot start with a combining mark
			}
		case unicode.IsLetter(r), unicode.IsDigit(r):
		default:
			return false
		}
	}
	return true
}

// isIDNEmail follows RFC 6531: an RFC 5322 address whose local part may
// also hold non-ASCII characters and whose domain is an IDN hostname (or an
// address literal).
func isIDNEmail(v any) bool {
	s, ok := v.(string)
	if !ok {
		return true
	}
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if utf8.RuneCountInString(local) > 64 {
		return false
	}
	if strings.HasPrefix(domain, "[") {
		return jsonschema.IsEmail("a@" + domain)
	}
	if !isIDNHostname(domain) {
		return false
	}
	// Check the local part's syntax with net/mail, standing an ASCII letter
	// in for each non-ASCII character (UTF-8 is atext under RFC 6532).
	ascii := strings.Map(func(r rune) rune {
		if r >= utf8.RuneSelf {
			return 'a'
		}
		return r
	}, local)
	addr, err := mail.ParseAddress(ascii + "@example.com")
	return err == nil && addr.Name == ""
}

// walkJSON calls fn for every object in a decoded JSON document.
func walkJSON(v any, fn func(map[string]any)) {
	switch t := v.(type) {
	case map[string]any:
		fn(t)
		for _, c := range t {
			walkJSON(c, fn)
		}
	case []any:
		for _, c := range t {
			walkJSON(c, fn)
		}
	}
}
