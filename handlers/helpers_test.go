package handlers_test

import (
	"encoding/json"
	"testing"

	"github.com/agentgate/agentgate/contract"
)

// Helpers shared by the pipeline's tests. The stages' own tests (in
// jsontext and normalize) keep their copies: a test package cannot import
// another's helpers.

// compactJSON returns v as compact JSON (object members sorted).
func compactJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %#v: %v", v, err)
	}
	return string(b)
}

func opRepair(detail string) contract.Normalization {
	return contract.Normalization{Op: contract.OpRepair, Path: "$", Detail: detail}
}

func opLossy(path, detail string) contract.Normalization {
	return contract.Normalization{Op: contract.OpLossy, Path: path, Detail: detail}
}
