package validator

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/dlclark/regexp2"
	"github.com/kaptinlin/jsonschema"

	"github.com/agentgate/agentgate/contract"
)

// PatternMatchTimeout bounds one match of a pattern that runs on the
// ECMA-262 engine (see correct): a match that takes longer fails, so a
// pattern with catastrophic backtracking cannot stall the gateway.
const PatternMatchTimeout = 100 * time.Millisecond

// Format names our corrections give kaptinlin. They start with a prefix no
// real format has; the violation mapper turns them back into the keyword
// they stand for.
const (
	// ecmaPatternFormat + p asserts that a string matches the ECMA-262
	// pattern p.
	ecmaPatternFormat = "agentgate:ecma-pattern:"
	// emptyEnumFormat fails every value.
	emptyEnumFormat = "agentgate:empty-enum"
)

// ecmaOptions are the regexp2 options of ECMA-262 with the "u" flag, as
// JSON Schema reads patterns.
const ecmaOptions = regexp2.ECMAScript | regexp2.Unicode

// compileECMA compiles an ECMA-262 pattern, with PatternMatchTimeout. It
// refuses what ECMA-262 (with the "u" flag) does not define even where
// regexp2's ECMAScript mode is lenient, and spells Unicode property names
// the way regexp2 knows them (see checkECMA).
func compileECMA(p string) (*regexp2.Regexp, error) {
	translated, err := checkECMA(p)
	if err != nil {
		return nil, err
	}
	re, err := regexp2.Compile(translated, ecmaOptions)
	if err != nil {
		return nil, err
	}
	re.MatchTimeout = PatternMatchTimeout
	return re, nil
}

// isECMARegex is the "regex" format: a valid ECMA-262 regular expression.
// kaptinlin's IsRegex (formats.go) asks Go's regexp/syntax instead, which refuses
// lookahead, lookbehind and backreferences and accepts Go-only syntax such
// as (?i) or \z. A pattern passes when it is ECMA-262 syntax and one of the
// two engines compiles it (RE2 knows a few Unicode property names regexp2
// does not).
func isECMARegex(v any) bool {
	s, ok := v.(string)
	if !ok {
		return true
	}
	if _, err := compileECMA(s); err == nil {
		return true
	}
	_, err := checkECMA(s)
	return err == nil && re2Compatible(s)
}

// ecmaMatcher returns the format validator of an ECMA-262 pattern. A match
// that errs (it ran past PatternMatchTimeout) fails.
func ecmaMatcher(re *regexp2.Regexp) func(any) bool {
	return func(v any) bool {
		s, ok := v.(string)
		if !ok {
			return true
		}
		m, err := re.MatchString(s)
		return err == nil && m
	}
}

// re2Compatible reports whether Go's regexp compiles p, as kaptinlin does
// for pattern and patternProperties (schema.go, compilePattern).
func re2Compatible(p string) bool {
	_, err := regexp.Compile(p)
	return err == nil
}

// correct returns the document kaptinlin should compile in place of doc,
// or nil when doc needs no correction, with the formats the corrections
// use (to register on the compiler that compiles it). doc is not modified.
// Corrections, each where kaptinlin v0.9.10 is wrong:
//
//   - a "pattern" that is valid ECMA-262 but that Go's RE2 cannot compile
//     (lookahead, lookbehind, backreferences): kaptinlin would refuse the
//     schema (schema.go, compilePattern). The pattern moves to an
//     allOf branch {"format": ecmaPatternFormat + pattern} that matches with
//     regexp2 in ECMAScript mode, within PatternMatchTimeout. Patterns RE2
//     compiles stay with kaptinlin (linear time, no timeout needed).
//   - "enum": [] (allowed by 2020-12, where it rejects every value):
//     kaptinlin accepts everything (enum.go, evaluateEnum: "if len(schema.Enum) == 0
//     return nil"). An allOf branch {"format": emptyEnumFormat} fails every
//     value.
//
// A patternProperties name that RE2 cannot compile is an error
// (ErrUnsupportedPattern): kaptinlin matches member names with Go's regexp
// in several places (pattern_properties.go, additional_properties.go),
// with no hook for another engine.
func correct(doc any) (fixed any, formats map[string]*jsonschema.FormatDef, err error) {
	var errs []string
	needed := false
	WalkSchema(doc, "$", func(node map[string]any, path, _ string) bool {
		if p, ok := node["pattern"].(string); ok && !re2Compatible(p) {
			needed = true
		}
		if e, ok := node["enum"].([]any); ok && len(e) == 0 {
			needed = true
		}
		if pp, ok := node["patternProperties"].(map[string]any); ok {
			for p := range pp {
				if !re2Compatible(p) {
					errs = append(errs, fmt.Sprintf("%s: %q", contract.Member(path, "patternProperties"), p))
				}
			}
		}
		return true
	})
	if len(errs) > 0 {
		return nil, nil, fmt.Errorf("%w: patternProperties names must be patterns Go's RE2 engine can run (no lookaround or backreferences): %s",
			ErrUnsupportedPattern, strings.Join(errs, ", "))
	}
	if !needed {
		return nil, nil, nil
	}
	if fixed, err = deepCopy(doc); err != nil {
		return nil, nil, err
	}
	formats = make(map[string]*jsonschema.FormatDef)
	WalkSchema(fixed, "$", func(node map[string]any, path, _ string) bool {
		if p, ok := node["pattern"].(string); ok && !re2Compatible(p) {
			re, err := compileECMA(p)
			if err != nil {
				// The meta-schema check ("format": "regex") has let it
				// through, so this does not happen.
				errs = append(errs, fmt.Sprintf("%s: %q: %v", contract.Member(path, "pattern"), p, err))
				return true
			}
			formats[ecmaPatternFormat+p] = &jsonschema.FormatDef{Type: "string", Validate: ecmaMatcher(re)}
			delete(node, "pattern")
			appendAllOf(node, map[string]any{"format": ecmaPatternFormat + p})
		}
		if e, ok := node["enum"].([]any); ok && len(e) == 0 {
			formats[emptyEnumFormat] = &jsonschema.FormatDef{Validate: func(any) bool { return false }}
			appendAllOf(node, map[string]any{"format": emptyEnumFormat})
		}
		return true
	})
	if len(errs) > 0 {
		return nil, nil, fmt.Errorf("%w: %s", ErrUnsupportedPattern, strings.Join(errs, ", "))
	}
	return fixed, formats, nil
}

// appendAllOf adds branch to node's allOf.
func appendAllOf(node map[string]any, branch map[string]any) {
	list, _ := node["allOf"].([]any)
	node["allOf"] = append(list, branch)
}

// deepCopy copies a decoded JSON document through its encoding.
func deepCopy(doc any) (any, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return decodeAny(b)
}

// ecmaTimedOut reports whether matching s against the ECMA-262 pattern p
// runs past PatternMatchTimeout (as opposed to not matching).
func ecmaTimedOut(p, s string) bool {
	re, err := compileECMA(p)
	if err != nil {
		return false
	}
	_, err = re.MatchString(s)
	return err != nil
}
