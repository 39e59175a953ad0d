package normalize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/internal/jsonx"
)

// maxCoercedText bounds the From and To of a coerce normalization.
const maxCoercedText = 64

// maxIntegerZeros bounds the zeros an integer coercion writes out ("1e20"
// becomes 100000000000000000000; "1e21" stays as written).
const maxIntegerZeros = 20

// coerce converts v where the schema leaves exactly one reading (contract
// section 3.1, op coerce). It reads first the conjunctive part of the
// schema (s holds no anyOf or oneOf branch), needs a known set (not
// partial) and acts only when v's JSON type is not one the schema's type
// allows:
//
//   - a string holding a JSON number, where type allows number ("string to
//     number", kept as written) or only integer and the value is integral
//     ("string to integer", written without fraction or exponent);
//   - "true" or "false" (any case, surrounding space) where type allows
//     boolean ("string to boolean");
//   - a non-array value other than null where type allows array: [v]
//     ("<type> to array");
//
// each only when it is the one conversion possible. A string of an allowed
// type that differs from exactly one enum (or const) string only in case or
// surrounding whitespace becomes that string ("string to enum value"). Then,
// under anyOf or oneOf, coerceBranches may convert v as one branch asks,
// when exactly one branch accepts the result (for an object, removing the
// null members that branch leaves optional and non-null). The removal of a
// null member the object's own schema declares is decided by walkObject,
// which knows whether the member is required.
func (n *normalizer) coerce(v any, s schemaSet, path string) any {
	if to, detail, ok := n.conversion(v, s); ok {
		n.ops = append(n.ops, contract.Normalization{
			Op: contract.OpCoerce, Path: path, From: shortJSON(v), To: shortJSON(to), Detail: detail,
		})
		v = to
	}
	return n.coerceBranches(v, s, path)
}

// conversion returns the one conversion of v that the conjunctive part s
// of the schema asks for (see coerce), without recording it.
func (n *normalizer) conversion(v any, s schemaSet) (any, string, bool) {
	if v == nil || s.partial || len(s.nodes) == 0 {
		return nil, "", false
	}
	types, typed := schemaTypes(s)
	if !typed || typeAllows(types, v) {
		return enumConversion(v, s)
	}
	type conversion struct {
		to     any
		detail string
	}
	var convs []conversion
	if str, ok := v.(string); ok {
		if num, detail, ok := stringToNumber(str, types); ok {
			convs = append(convs, conversion{num, detail})
		}
		if b, ok := stringToBool(str); ok && types.has(typeBoolean) {
			convs = append(convs, conversion{b, "string to boolean"})
		}
	}
	if _, isArray := v.([]any); types.has(typeArray) && !isArray {
		convs = append(convs, conversion{[]any{v}, jsonx.TypeName(v, jsonx.Number) + " to array"})
	}
	if len(convs) != 1 {
		return nil, "", false
	}
	return convs[0].to, convs[0].detail, true
}

// enumConversion maps a string to the one enum member it differs from only
// in case or surrounding whitespace. Every enum and const of s must hold
// the result.
func enumConversion(v any, s schemaSet) (any, string, bool) {
	str, ok := v.(string)
	if !ok || !hasEnum(s) {
		return nil, "", false
	}
	enums := schemaEnums(s)
	if len(enums) == 0 || inEveryEnum(enums, str) {
		return nil, "", false
	}
	key := strings.TrimSpace(str)
	match, count := "", 0
	for _, m := range enums[0] {
		if ms, ok := m.(string); ok && strings.EqualFold(ms, key) {
			match = ms
			count++
		}
	}
	if count != 1 || !inEveryEnum(enums, match) {
		return nil, "", false
	}
	return match, "string to enum value", true
}

// schemaTypes intersects the type keywords of s; typed is false when no
// node constrains the type. An integer-only node narrows number to integer.
func schemaTypes(s schemaSet) (types jsonTypes, typed bool) {
	for _, node := range s.nodes {
		raw, ok := node["type"]
		if !ok {
			continue
		}
		// A list holding a non-string counts for the names it does hold.
		cur, _ := typeKeyword(raw)
		if !typed {
			types, typed = cur, true
			continue
		}
		both := types & cur
		if types.has(typeInteger) && cur.has(typeNumber) || types.has(typeNumber) && cur.has(typeInteger) {
			both |= typeInteger
		}
		types = both
	}
	return types, typed
}

// hasEnum reports whether some node of s has an enum or a const.
func hasEnum(s schemaSet) bool {
	for _, node := range s.nodes {
		if _, ok := node["enum"]; ok {
			return true
		}
		if _, ok := node["const"]; ok {
			return true
		}
	}
	return false
}

// schemaEnums lists the enums of s, a const counting as a one-member enum.
func schemaEnums(s schemaSet) [][]any {
	var enums [][]any
	for _, node := range s.nodes {
		if e, ok := node["enum"].([]any); ok {
			enums = append(enums, e)
		}
		if c, ok := node["const"]; ok {
			enums = append(enums, []any{c})
		}
	}
	return enums
}

func inEveryEnum(enums [][]any, str string) bool {
	for _, e := range enums {
		found := false
		for _, m := range e {
			if ms, ok := m.(string); ok && ms == str {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// excludesNull reports whether a member under s can never be null: its
// types, an enum or a const leave null out.
func excludesNull(s schemaSet) bool {
	if s.partial || len(s.nodes) == 0 {
		return false
	}
	if types, typed := schemaTypes(s); typed && !types.has(typeNull) {
		return true
	}
	for _, e := range schemaEnums(s) {
		hasNull := false
		for _, m := range e {
			if m == nil {
				hasNull = true
				break
			}
		}
		if !hasNull {
			return true
		}
	}
	return false
}

// typeAllows reports whether v's JSON type is one of types. A value it
// cannot judge (a number too odd to tell integral, a Go type JSON does not
// produce) counts as allowed, so that nothing converts it.
func typeAllows(types jsonTypes, v any) bool {
	switch x := v.(type) {
	case nil:
		return types.has(typeNull)
	case bool:
		return types.has(typeBoolean)
	case string:
		return types.has(typeString)
	case []any:
		return types.has(typeArray)
	case map[string]any:
		return types.has(typeObject)
	case json.Number:
		if types.has(typeNumber) {
			return true
		}
		integral, ok := jsonx.Integral(string(x))
		return !ok || (types.has(typeInteger) && integral)
	case float64:
		return types.has(typeNumber) || (types.has(typeInteger) && x == math.Trunc(x))
	case float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return types.has(typeNumber) || types.has(typeInteger)
	default:
		return true
	}
}

// stringToNumber reads a string holding one JSON number (surrounding space
// allowed): as written where types allow number, as an integer without
// fraction or exponent where they allow only integer and it is integral.
func stringToNumber(str string, types jsonTypes) (json.Number, string, bool) {
	t := strings.TrimSpace(str)
	from := "string"
	if n, ok := fractionNumber(t); ok {
		t, from = n, "fraction" // repair keeps 1/3 as text for this
	}
	if t == "" || (t[0] != '-' && (t[0] < '0' || t[0] > '9')) || !json.Valid([]byte(t)) {
		return "", "", false
	}
	if types.has(typeNumber) {
		return json.Number(t), from + " to number", true
	}
	if types.has(typeInteger) {
		if it, ok := integerText(t); ok {
			return json.Number(it), from + " to integer", true
		}
	}
	return "", "", false
}

func stringToBool(str string) (bool, bool) {
	switch t := strings.TrimSpace(str); {
	case strings.EqualFold(t, "true"):
		return true, true
	case strings.EqualFold(t, "false"):
		return false, true
	default:
		return false, false
	}
}

// integerText writes integral JSON number text t as an integer: "42.0" and
// "4.2e1" become "42". Text already in that form is returned as is.
func integerText(t string) (string, bool) {
	if !strings.ContainsAny(t, ".eE") {
		return t, true
	}
	if integral, ok := jsonx.Integral(t); !ok || !integral {
		return "", false
	}
	neg, digits, exp, _ := jsonx.SplitNumber(t)
	switch {
	case exp > maxIntegerZeros:
		return t, true // integral, but too long to write out
	case exp >= 0:
		digits += strings.Repeat("0", exp)
	default:
		digits = digits[:max(len(digits)+exp, 0)]
	}
	digits = strings.TrimLeft(digits, "0")
	switch {
	case digits == "":
		return "0", true
	case neg:
		return "-" + digits, true
	default:
		return digits, true
	}
}

// shortJSON is v as JSON text, cut to maxCoercedText bytes with "..." when
// longer.
func shortJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	text := ""
	if err := enc.Encode(v); err != nil {
		text = fmt.Sprint(v)
	} else {
		text = strings.TrimSuffix(buf.String(), "\n")
	}
	if len(text) <= maxCoercedText {
		return text
	}
	cut := maxCoercedText - 3
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + "..."
}
