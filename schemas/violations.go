package schemas

import (
	"encoding/json"
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

// quote renders s as a JSON string.
func quote(s string) string { return compactJSON(s) }
