package jsontext_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/agentgate/agentgate/handlers/jsontext"
	"github.com/agentgate/agentgate/internal/pipelinetest"
)

// fuzzSlow is how long one input may take before a fuzz target fails it;
// fuzz inputs are small, so anything near this is a complexity bug.
const fuzzSlow = 2 * time.Second

// FuzzRepair checks that Repair never panics, returns only valid JSON,
// leaves valid JSON alone, is idempotent and stays fast.
func FuzzRepair(f *testing.F) {
	pipelinetest.AddFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		start := time.Now()
		out, ops, err := jsontext.Repair(in, 0)
		if d := time.Since(start); d > fuzzSlow {
			t.Fatalf("Repair took %v on %d bytes", d, len(in))
		}
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("Repair(%q) = %q: not valid JSON", in, out)
		}
		if json.Valid(in) && (!bytes.Equal(out, in) || len(ops) != 0) {
			t.Fatalf("Repair changed valid JSON %q to %q (%v)", in, out, ops)
		}
		again, ops2, err := jsontext.Repair(out, 0)
		if err != nil || !bytes.Equal(again, out) || len(ops2) != 0 {
			t.Fatalf("Repair of its own output %q = %q, %v, %v", out, again, ops2, err)
		}
	})
}
