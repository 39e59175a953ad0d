package handlers

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/contract"
)

// Numbers that break consumers (contract section 4): a value beyond the
// range of an IEEE 754 double (1e400 is Infinity to JavaScript, and Go's
// float64 refuses it), and an integer beyond ±2^53, which a double cannot
// hold exactly, are violations at their path, keyword "type", whatever
// the schema says: they pass the validator, which reads numbers as exact
// rationals. A schema opts in to larger integers with the root keyword
// "x-big-integers": true.

// BigIntegersKeyword is the root schema keyword that lets integers beyond
// ±2^53 (of any size) through.
const BigIntegersKeyword = "x-big-integers"

// maxSafeInteger is 2^53, the largest magnitude up to which a double holds
// every integer, in decimal.
const maxSafeInteger = "9007199254740992"

// safeInteger reports whether the integer literal s is within ±2^53,
// comparing digits: as a double, 2^53 + 1 is 2^53.
func safeInteger(s string) bool {
	digits := strings.TrimLeft(strings.TrimPrefix(s, "-"), "0")
	return len(digits) < len(maxSafeInteger) || len(digits) == len(maxSafeInteger) && digits <= maxSafeInteger
}

// withNumberViolations adds nvs to the validator's violations vs, in
// place of the validator's own type violation at the same path (it reads
// 1e400 and 1e999999999 differently): one violation per number.
func withNumberViolations(vs, nvs []contract.Violation) []contract.Violation {
	if len(nvs) == 0 {
		return vs
	}
	at := make(map[string]bool, len(nvs))
	for _, v := range nvs {
		at[v.Path] = true
	}
	out := vs[:0:0]
	for _, v := range vs {
		if !(v.Keyword == "type" && at[v.Path]) {
			out = append(out, v)
		}
	}
	return append(out, nvs...)
}

// numberViolations reports every number of doc (decoded with UseNumber)
// that consumers cannot decode faithfully, at most limit of them.
func numberViolations(doc any, bigIntegers bool, limit int) []contract.Violation {
	var out []contract.Violation
	var walk func(v any, path string)
	walk = func(v any, path string) {
		if len(out) >= limit {
			return
		}
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				walk(x, contract.Member(path, k))
			}
		case []any:
			for i, x := range t {
				walk(x, contract.Index(path, i))
			}
		case json.Number:
			if msg := badNumber(string(t), bigIntegers); msg != "" {
				out = append(out, contract.Violation{Path: path, Keyword: "type", Expected: "number", HasExpected: true, Message: msg})
			}
		}
	}
	walk(doc, "$")
	return out
}

// badNumber says what is wrong with the JSON number s, or "".
func badNumber(s string, bigIntegers bool) string {
	integer := !strings.ContainsAny(s, ".eE")
	if integer && bigIntegers {
		return ""
	}
	shown := s
	if len(shown) > 40 {
		shown = shown[:20] + "..." + shown[len(shown)-10:] + " (" + strconv.Itoa(len(s)) + " characters)"
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0) {
		return "number " + shown + " is beyond the range of an IEEE 754 double (about ±1.8e308)"
	}
	if integer && !safeInteger(s) {
		return "integer " + shown + " is beyond ±2^53 and cannot be held exactly by a double (the schema may allow it with \"" + BigIntegersKeyword + "\": true)"
	}
	return ""
}
