package handlers_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/handlers/jsontext"
)

// jsonrepairCasesPath is the shared jsonrepair corpus, beside the repo:
// its inputs seed the fuzz targets when it is there.
var jsonrepairCasesPath = filepath.Join("..", "..", "shared", "testdata", "jsonrepair", "jsonrepair_cases.json")

// fuzzSlow is how long one input may take before a fuzz target fails it;
// fuzz inputs are small, so anything near this is a complexity bug.
const fuzzSlow = 2 * time.Second

// addFileSeeds adds the raw outputs under testdata/outputs and the inputs
// of the jsonrepair corpus (when the shared folder is there) as seeds.
func addFileSeeds(f *testing.F) {
	f.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "outputs", "*", "*"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	if raw, err := os.ReadFile(jsonrepairCasesPath); err == nil {
		var file struct {
			Cases []struct {
				Input string `json:"input"`
			} `json:"cases"`
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

// FuzzExtract checks that Extract and Check never panic, that every
// candidate is a JSON document, and that a valid verdict has no violation.
func FuzzExtract(f *testing.F) {
	addFileSeeds(f)
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
