package schemas

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// decodeAny decodes JSON with UseNumber.
func decodeAny(b []byte) (any, error) {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// jsonType names the JSON type of a decoded value, telling integers from
// other numbers as JSON Schema does.
func jsonType(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(t)); ok && r.IsInt() {
			return "integer"
		}
		return "number"
	case float64:
		if t == float64(int64(t)) {
			return "integer"
		}
		return "number"
	case int, int64, int32:
		return "integer"
	}
	return fmt.Sprintf("%T", v)
}

// quote renders s as a JSON string.
func quote(s string) string { return compactJSON(s) }
