package normalize_test

import (
	"encoding/json"
	"testing"
)

// compactJSON returns v as compact JSON (object members sorted).
func compactJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %#v: %v", v, err)
	}
	return string(b)
}
