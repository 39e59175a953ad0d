package validator

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// errECMASyntax is returned by checkECMA.
var errECMASyntax = errors.New("not ECMA-262 syntax")

// checkECMA checks the escapes and group openings of an ECMA-262 pattern
// read with the "u" flag, which regexp2's ECMAScript mode does not: it
// takes "(?i)", "(?#...)" and `\a`. It returns the pattern with its
// General_Category and Script property names spelled as regexp2 wants them
// (`\p{Letter}` as `\p{L}`, `\p{Script=Greek}` as `\p{Greek}`). The rest of
// the syntax (balance, quantifiers, ranges) is left to the compilers.
func checkECMA(p string) (string, error) {
	var out strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\':
			if i+1 == len(p) {
				return "", fmt.Errorf(`%w: %q ends with \`, errECMASyntax, p)
			}
			n := p[i+1]
			switch {
			case strings.IndexByte(`fnrtvdDsSwWbB0123456789^$\.*+?()[]{}|/`, n) >= 0, n == '-' && inClass:
			case n == 'c':
				if i+2 >= len(p) || !isASCIILetter(p[i+2]) {
					return "", fmt.Errorf(`%w: \c must be followed by a letter`, errECMASyntax)
				}
			case n == 'x':
				if i+3 >= len(p) || !isHex(p[i+2]) || !isHex(p[i+3]) {
					return "", fmt.Errorf(`%w: \x needs two hex digits`, errECMASyntax)
				}
			case n == 'u', n == 'k':
				// \uXXXX, \u{X...}, \k<name>: left to regexp2.
			case n == 'p', n == 'P':
				end := strings.IndexByte(p[i:], '}')
				if i+2 >= len(p) || p[i+2] != '{' || end < 0 {
					return "", fmt.Errorf(`%w: \%c needs {name}`, errECMASyntax, n)
				}
				out.WriteString(p[i:i+3] + unicodeProperty(p[i+3:i+end]) + "}")
				i += end
				continue
			default:
				return "", fmt.Errorf(`%w: \%c is not an escape`, errECMASyntax, n)
			}
			out.WriteString(p[i : i+2])
			i++
			continue
		case c == '[' && !inClass:
			inClass = true
		case c == ']' && inClass:
			inClass = false
		case c == '(' && !inClass && strings.HasPrefix(p[i:], "(?"):
			rest := p[i+2:]
			ok := strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "!") ||
				strings.HasPrefix(rest, "<=") || strings.HasPrefix(rest, "<!") || groupName(rest)
			if !ok {
				return "", fmt.Errorf("%w: %q opens a group ECMA-262 does not have", errECMASyntax, "(?"+rest[:min(len(rest), 2)])
			}
		}
		out.WriteByte(c)
	}
	return out.String(), nil
}

// groupName reports whether s starts with "<name>".
func groupName(s string) bool {
	end := strings.IndexByte(s, '>')
	if !strings.HasPrefix(s, "<") || end < 2 {
		return false
	}
	for i, r := range s[1:end] {
		if !(r == '_' || r == '$' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

// generalCategories maps the long General_Category names of ECMA-262 to
// the short ones regexp2 knows.
var generalCategories = map[string]string{
	"Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll",
	"Titlecase_Letter": "Lt", "Modifier_Letter": "Lm", "Other_Letter": "Lo",
	"Mark": "M", "Combining_Mark": "M", "Nonspacing_Mark": "Mn", "Spacing_Mark": "Mc", "Enclosing_Mark": "Me",
	"Number": "N", "Decimal_Number": "Nd", "digit": "Nd", "Letter_Number": "Nl", "Other_Number": "No",
	"Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd",
	"Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi",
	"Final_Punctuation": "Pf", "Other_Punctuation": "Po",
	"Symbol": "S", "Math_Symbol": "Sm", "Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Other_Symbol": "So",
	"Separator": "Z", "Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp",
	"Other": "C", "Control": "Cc", "cntrl": "Cc", "Format": "Cf", "Surrogate": "Cs",
	"Private_Use": "Co", "Unassigned": "Cn",
}

// unicodeProperty spells an ECMA-262 property name for regexp2.
func unicodeProperty(name string) string {
	if k, v, ok := strings.Cut(name, "="); ok {
		switch k {
		case "General_Category", "gc":
			name = v
		case "Script", "sc", "Script_Extensions", "scx":
			return v
		}
	}
	if short, ok := generalCategories[name]; ok {
		return short
	}
	return name
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
