package handlers_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/handlers/jsontext"
	"github.com/agentgate/agentgate/internal/pipelinetest"
)

// fuzzSlow is how long one input may take before a fuzz target fails it;
// fuzz inputs are small, so anything near this is a complexity bug.
const fuzzSlow = 2 * time.Second

// FuzzExtract checks that Extract and Check never panic, that every
// candidate is a JSON document, and that a valid verdict has no violation.
func FuzzExtract(f *testing.F) {
	pipelinetest.AddFuzzSeeds(f)
	schema := prReviewSchema(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		start := time.Now()
		cands, bad := jsontext.Extract(in, 0)
		if bad == nil && (len(cands) == 0 || len(cands) > 16) {
			t.Fatalf("Extract = %d candidates and no violation", len(cands))
		}
		for _, c := range cands {
			if _, err := json.Marshal(c.Doc); err != nil {
				t.Fatalf("candidate %#v does not marshal: %v", c.Doc, err)
			}
		}
		v := handlers.Check(in, schema, checkStrict)
		if v.Valid != (len(v.Violations) == 0) || v.Normalizations == nil {
			t.Fatalf("Check = %+v", v)
		}
		if v.Valid {
			if _, err := json.Marshal(v.Data); err != nil {
				t.Fatalf("valid data does not marshal: %v", err)
			}
		}
		if d := time.Since(start); d > fuzzSlow {
			t.Fatalf("Extract and Check took %v on %d bytes", d, len(in))
		}
	})
}
