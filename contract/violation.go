package contract

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// Violation is one reason an output failed validation (section 4).
type Violation struct {
	// Path is a JSONPath into the normalized document: $ for the root,
	// .name for a member (['odd key'] when not an identifier), [i] for an
	// array index.
	Path string `json:"path"`
	// Keyword is the JSON Schema keyword that failed, or "json" when no JSON
	// could be found or parsed.
	Keyword string `json:"keyword"`
	// Expected is what the schema allows, where that applies. HasExpected
	// tells an expected null (a const null) apart from none; a non-nil
	// Expected is written without it.
	Expected    any  `json:"-"`
	HasExpected bool `json:"-"`
	// Received is what was there, where that applies. HasReceived tells an
	// explicit null apart from an absent value.
	Received    any    `json:"-"`
	HasReceived bool   `json:"-"`
	Message     string `json:"message"`
	// Rule names the business rule that failed (keyword "rule"), else "".
	Rule string `json:"rule,omitempty"`
}

// violationWire is Violation as it travels: received is a raw value so that
// an explicit null survives and an absent one stays absent.
type violationWire struct {
	Path     string          `json:"path"`
	Keyword  string          `json:"keyword"`
	Expected json.RawMessage `json:"expected,omitempty"`
	Received json.RawMessage `json:"received,omitempty"`
	Message  string          `json:"message"`
	Rule     string          `json:"rule,omitempty"`
}

// MarshalJSON writes received when HasReceived is set, null included.
func (v Violation) MarshalJSON() ([]byte, error) {
	w := violationWire{Path: v.Path, Keyword: v.Keyword, Message: v.Message, Rule: v.Rule}
	if v.HasExpected || v.Expected != nil {
		b, err := json.Marshal(v.Expected)
		if err != nil {
			return nil, err
		}
		w.Expected = b
	}
	if v.HasReceived {
		b, err := json.Marshal(v.Received)
		if err != nil {
			return nil, err
		}
		w.Received = b
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (v *Violation) UnmarshalJSON(b []byte) error {
	var w violationWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*v = Violation{Path: w.Path, Keyword: w.Keyword, Message: w.Message, Rule: w.Rule}
	if w.Expected != nil {
		v.HasExpected = true
		if err := json.Unmarshal(w.Expected, &v.Expected); err != nil {
			return err
		}
	}
	if w.Received != nil {
		v.HasReceived = true
		if err := json.Unmarshal(w.Received, &v.Received); err != nil {
			return err
		}
	}
	return nil
}

// KeywordJSON is the keyword of a violation raised because no JSON document
// could be found or parsed, or because it nests deeper than the limit.
const KeywordJSON = "json"

// KeywordTruncated is the keyword of a violation raised because the output
// was cut off: repair would have to close the document where its text
// ends.
const KeywordTruncated = "truncated"

// KeywordRepair is the keyword of a violation raised because repair would
// lose, invent or move content (a placeholder for a missing value, elided
// content, a member moved across a bracket).
const KeywordRepair = "repair"

// SortViolations sorts by path (array indices compared as numbers), then by
// keyword, then by message, so that the order is stable across runs.
func SortViolations(vs []Violation) {
	slices.SortStableFunc(vs, func(a, b Violation) int {
		if c := ComparePaths(a.Path, b.Path); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Keyword, b.Keyword); c != 0 {
			return c
		}
		return cmp.Compare(a.Message, b.Message)
	})
}

// ComparePaths orders two JSONPaths segment by segment, comparing array
// indices as numbers ($.a[2] before $.a[10]) and a parent before its
// children.
func ComparePaths(a, b string) int {
	sa, sb := SplitPath(a), SplitPath(b)
	for i := 0; i < len(sa) && i < len(sb); i++ {
		x, y := sa[i], sb[i]
		xi, xIdx := indexSegment(x)
		yi, yIdx := indexSegment(y)
		switch {
		case xIdx && yIdx:
			if c := cmp.Compare(xi, yi); c != 0 {
				return c
			}
		case xIdx != yIdx:
			// Members before indices: only happens when one path is malformed.
			if xIdx {
				return 1
			}
			return -1
		default:
			if c := cmp.Compare(x, y); c != 0 {
				return c
			}
		}
	}
	return cmp.Compare(len(sa), len(sb))
}

func indexSegment(s string) (int, bool) {
	if !strings.HasPrefix(s, "[") || strings.HasPrefix(s, "['") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	return n, err == nil
}

// SplitPath splits a JSONPath built by [PathBuilder] into its segments
// (".name", "['odd key']", "[3]"), dropping the leading $.
func SplitPath(p string) []string {
	p = strings.TrimPrefix(p, "$")
	var segs []string
	for len(p) > 0 {
		end := len(p)
		switch {
		case strings.HasPrefix(p, "['"):
			// Quoted member: ends at the first unescaped "']".
			for i := 2; i < len(p)-1; i++ {
				if p[i] == '\\' {
					i++
					continue
				}
				if p[i] == '\'' && p[i+1] == ']' {
					end = i + 2
					break
				}
			}
		case p[0] == '[':
			if i := strings.IndexByte(p, ']'); i >= 0 {
				end = i + 1
			}
		default:
			// .name: up to the next . or [
			if i := strings.IndexAny(p[1:], ".["); i >= 0 {
				end = i + 1
			}
		}
		segs = append(segs, p[:end])
		p = p[end:]
	}
	return segs
}

// Member appends a member name to a JSONPath: .name when the name is an
// identifier, ['odd key'] otherwise.
func Member(path, name string) string {
	if isIdentifier(name) {
		return path + "." + name
	}
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
	return path + "['" + r.Replace(name) + "']"
}

// Index appends an array index to a JSONPath.
func Index(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// isIdentifier follows RFC 9535's member-name-shorthand.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || r >= 0x80:
		case i > 0 && r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return true
}
