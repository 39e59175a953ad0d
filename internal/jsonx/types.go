package jsonx

import (
	"encoding/json"
	"fmt"
	"math"
)

// Numbers says how TypeName names a number: JSON has one number type,
// JSON Schema's "type" keyword tells integers apart.
type Numbers int8

const (
	// Number names every number "number", as JSON does (the normalizer's
	// details: "number to array").
	Number Numbers = iota
	// IntegerApart names an integral number "integer" and any other
	// "number", as JSON Schema's type keyword does (the validator's and
	// the loader's messages: "expected string, got integer"). 1.0 is an
	// integer, as JSON Schema 2020-12 says.
	IntegerApart
)

// TypeName names the JSON type of decoded value v: "null", "boolean",
// "string", "array", "object", or for a number "number" or "integer" as
// numbers says. A json.Number whose integrality cannot be told (an exponent
// past MaxExponent) is a "number"; a Go value JSON does not decode to is
// named by its Go type ("map[string]string").
func TypeName(v any, numbers Numbers) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if numbers == IntegerApart {
			if integral, ok := Integral(string(x)); ok && integral {
				return "integer"
			}
		}
		return "number"
	case float64:
		return floatType(x, numbers)
	case float32:
		return floatType(float64(x), numbers)
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		if numbers == IntegerApart {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func floatType(f float64, numbers Numbers) string {
	if numbers == IntegerApart && f == math.Trunc(f) && !math.IsInf(f, 0) {
		return "integer"
	}
	return "number"
}
