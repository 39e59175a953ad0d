package jsontext_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentgate/agentgate/handlers/jsontext"
)

// fuzzSlow is how long one input may take before a fuzz target fails it;
// fuzz inputs are small, so anything near this is a complexity bug.
const fuzzSlow = 2 * time.Second

// addFileSeeds adds the raw outputs under testdata/outputs and the inputs
// of the jsonrepair corpus (when the shared folder is there) as seeds.
func addFileSeeds(f *testing.F) {
	f.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "outputs", "*", "*"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	if raw, err := os.ReadFile(jsonrepairCasesPath); err == nil {
		var file struct {
			Cases []jsonrepairCase `json:"cases"`
		}
		if json.Unmarshal(raw, &file) == nil {
			for _, c := range file.Cases {
				f.Add([]byte(c.Input))
			}
		}
	}
	for _, s := range []string{
		"", "{", "[", `"`, `{"a":`, "```json\n{'a': 1,}\n```", "<tool_call>\n{'name': 'x'", "\\\"a\\\"",
		`{"a": "b" "c"}`, `["(", "x") y"]`, `"a" + "b" + `, "callback({a: 1});", "1\n2\n3", "{\"a\": [1, 2, ...]}",
	} {
		f.Add([]byte(s))
	}
}

// FuzzRepair checks that Repair never panics, returns only valid JSON,
// leaves valid JSON alone, is idempotent and stays fast.
func FuzzRepair(f *testing.F) {
	addFileSeeds(f)
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
