package validator

import (
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kaptinlin/jsonschema"
	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"
)

// setupFormats registers, on a compiler that asserts formats, the validators
// kaptinlin v0.9.10 gets wrong (each checked by the official test suite's
// optional/format tests), and neutralises the non-standard names it
// asserts. Custom formats take precedence over kaptinlin's global Formats
// map (format.go, lookupFormat). Unknown format names are annotations
// there, as the specification says.
func setupFormats(c *jsonschema.Compiler) {
	// kaptinlin's IsIDNEmail refuses a domain that is not in Unicode NFC;
	// its IsIDNHostname applies neither the CONTEXTO rules nor the
	// DISALLOWED exceptions of RFC 5892 (its SPECS/02-format-vocabularies.md
	// says so).
	c.RegisterFormat("idn-email", isIDNEmail, "string")
	c.RegisterFormat("idn-hostname", isIDNHostname, "string")
	// kaptinlin's IsHostname accepts a trailing dot and does not decode
	// A-labels ("xn--..."), accepting invalid Punycode.
	c.RegisterFormat("hostname", isHostname, "string")
	// kaptinlin's IsRegex parses with Go's regexp/syntax; the specification
	// means ECMA-262. This also makes the meta-schema check accept a
	// "pattern" with lookahead, which correct then routes to the ECMA-262
	// engine.
	c.RegisterFormat("regex", isECMARegex, "string")
	// kaptinlin accepts a second "@" in an authority and a sign before an
	// IPv4 octet (formats_uri.go).
	c.RegisterFormat("uri", isURI, "string")
	c.RegisterFormat("uri-reference", isURIReference, "string")
	c.RegisterFormat("iri", isIRI, "string")
	c.RegisterFormat("iri-reference", isIRIReference, "string")
	c.RegisterFormat("ipv4", isIPv4, "string")
	// Names kaptinlin asserts that no current draft defines (its Formats
	// map, formats.go): ignore them, as any other unknown name.
	for _, name := range []string{"period", "ip-address", "uriref"} {
		c.RegisterFormat(name, anyValue)
	}
}

func anyValue(any) bool { return true }

// isHostname follows RFC 1123 section 2.1: dot-separated labels of 1 to 63
// ASCII letters, digits and hyphens, not starting or ending with a hyphen,
// 253 characters at most, no trailing dot. A label starting "xn--" is an
// A-label and must decode to a valid U-label (RFC 5890); any other label
// must not have "--" in its third and fourth positions (RFC 5891 section
// 4.2.3.1, reserved for such prefixes).
func isHostname(v any) bool {
	s, ok := v.(string)
	if !ok {
		return true
	}
	if s == "" || len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if !asciiLabel(label) {
			return false
		}
		if len(label) >= 4 && label[2:4] == "--" {
			if !strings.EqualFold(label[:2], "xn") || !validALabel(label) {
				return false
			}
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

// idnaProfile checks labels for registration under IDNA2008 (RFC 5891):
// the derived properties of RFC 5892, the CONTEXTJ rules, the Bidi rule of
// RFC 5893, hyphen placement and lengths. golang.org/x/net/idna does not
// apply the CONTEXTO rules nor the DISALLOWED exceptions of RFC 5892
// section 2.6 (its tables come from UTS #46): contextO and
// disallowedExceptions add them.
var idnaProfile = idna.New(idna.ValidateForRegistration(), idna.BidiRule(), idna.CheckJoiners(true),
	idna.CheckHyphens(true), idna.StrictDomainName(true), idna.Transitional(false))

// validALabel reports whether an "xn--" label decodes to a valid U-label
// that encodes back to the same label.
func validALabel(label string) bool {
	u, err := idnaProfile.ToUnicode(strings.ToLower(label))
	if err != nil || u == strings.ToLower(label) {
		return false
	}
	back, err := idnaProfile.ToASCII(u)
	return err == nil && back == strings.ToLower(label) && validULabel(u)
}

// validULabel applies the checks idnaProfile lacks to a decoded label: its
// non-ASCII characters must be LetterDigits (RFC 5892 section 2.1: Ll, Lu,
// Lo, Nd, Lm, Mn, Mc; UTS #46 also lets through punctuation and symbols
// such as U+00A1) or one of the exceptions and contextual rules, which must
// then hold.
func validULabel(u string) bool {
	for _, r := range u {
		if r < utf8.RuneSelf || pvalidException(r) || contextual(r) {
			continue
		}
		if disallowedException(r) || !unicode.In(r, unicode.Ll, unicode.Lu, unicode.Lo, unicode.Nd, unicode.Lm, unicode.Mn, unicode.Mc) {
			return false
		}
	}
	return contextO(u)
}

// pvalidException reports the code points RFC 5892 section 2.6 makes PVALID
// whatever their category.
func pvalidException(r rune) bool {
	switch r {
	case 0x00DF, 0x03C2, 0x06FD, 0x06FE, 0x0F0B, 0x3007:
		return true
	}
	return false
}

// contextual reports the CONTEXTJ and CONTEXTO code points of RFC 5892
// appendix A (idnaProfile checks the former, contextO the latter).
func contextual(r rune) bool {
	switch {
	case r == 0x200C, r == 0x200D, r == 0x00B7, r == 0x0375, r == 0x05F3, r == 0x05F4, r == 0x30FB,
		r >= 0x0660 && r <= 0x0669, r >= 0x06F0 && r <= 0x06F9:
		return true
	}
	return false
}

// isIDNHostname is the "idn-hostname" format (RFC 5890, 5891): labels
// separated by dots (or the other IDNA full stops, RFC 3490 section 3.1),
// each an ASCII label, an A-label or a U-label valid under IDNA2008, no
// trailing dot, 253 octets at most once encoded.
func isIDNHostname(v any) bool {
	s, ok := v.(string)
	if !ok {
		return true
	}
	s = strings.NewReplacer("\u3002", ".", "\uff0e", ".", "\uff61", ".").Replace(s)
	if s == "" || strings.HasSuffix(s, ".") {
		return false
	}
	ascii, err := idnaProfile.ToASCII(s)
	if err != nil || len(ascii) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		lower := strings.ToLower(label)
		switch {
		case strings.HasPrefix(lower, "xn--"):
			if !validALabel(label) {
				return false
			}
		case len(label) >= 4 && label[2:4] == "--":
			return false
		case !validULabel(label):
			return false
		}
	}
	return true
}

// disallowedException reports the code points RFC 5892 section 2.6 makes
// DISALLOWED whatever their category.
func disallowedException(r rune) bool {
	switch r {
	case 0x0640, 0x07FA, 0x302E, 0x302F, 0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x303B:
		return true
	}
	return false
}

// contextO applies the CONTEXTO rules of RFC 5892 appendix A.3 to A.9.
func contextO(label string) bool {
	rs := []rune(label)
	hasKatakanaDot, arabicIndic, extArabicIndic := false, false, false
	for i, r := range rs {
		switch {
		case r == 0x00B7: // MIDDLE DOT: between two l's
			if i == 0 || i == len(rs)-1 || rs[i-1] != 'l' || rs[i+1] != 'l' {
				return false
			}
		case r == 0x0375: // GREEK LOWER NUMERAL SIGN: followed by Greek
			if i == len(rs)-1 || !unicode.Is(unicode.Greek, rs[i+1]) {
				return false
			}
		case r == 0x05F3, r == 0x05F4: // HEBREW GERESH, GERSHAYIM: after Hebrew
			if i == 0 || !unicode.Is(unicode.Hebrew, rs[i-1]) {
				return false
			}
		case r == 0x30FB: // KATAKANA MIDDLE DOT
			hasKatakanaDot = true
		case r >= 0x0660 && r <= 0x0669:
			arabicIndic = true
		case r >= 0x06F0 && r <= 0x06F9:
			extArabicIndic = true
		}
	}
	if arabicIndic && extArabicIndic {
		return false
	}
	if hasKatakanaDot {
		// At least one Hiragana, Katakana or Han character (the dot itself
		// is Common).
		return strings.ContainsFunc(label, func(r rune) bool {
			return r != 0x30FB && (unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Han, r))
		})
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
	// The domain of an address is compared in NFC (RFC 6531 section 3.2
	// defers to RFC 5890, whose lookup normalises); the hostname format
	// itself takes only NFC labels.
	if !isIDNHostname(norm.NFC.String(domain)) {
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
