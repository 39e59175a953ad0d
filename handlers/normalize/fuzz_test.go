package normalize_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentgate/agentgate/handlers/jsontext"
	"github.com/agentgate/agentgate/handlers/normalize"
	"github.com/agentgate/agentgate/internal/pipelinetest"
)

// fuzzSlow is how long one input may take before a fuzz target fails it.
const fuzzSlow = 2 * time.Second

// FuzzNormalize checks that Normalize never panics, produces JSON and is
// idempotent on its own output, whatever the schema and document.
func FuzzNormalize(f *testing.F) {
	for _, set := range [][]normCase{aliasCases, stripCases, coerceCases} {
		for _, c := range set {
			f.Add(c.schema, c.given, true)
			f.Add(c.schema, c.given, false)
		}
	}
	pr, err := os.ReadFile(filepath.Join("..", "..", "examples", "schemas", "pr-review.schema.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range []string{"pr-reviewer/drifted_prose.txt", "pr-reviewer/valid.json", "pr-reviewer/invalid.txt"} {
		if cands, bad := jsontext.Extract(pipelinetest.OutputFixture(f, name), 0); bad == nil {
			doc, _ := json.Marshal(cands[0].Doc)
			f.Add(string(pr), string(doc), true)
		}
	}
	f.Fuzz(func(t *testing.T, schemaText, docText string, strip bool) {
		schema, ok := decodeFuzzJSON(schemaText).(map[string]any)
		if !ok {
			return
		}
		doc := decodeFuzzJSON(docText)
		if doc == nil && docText != "null" {
			return
		}
		opts := normalize.Options{Coerce: true}
		if !strip {
			opts.ExtraFields = "reject"
		}
		r := pipelinetest.LocalRefs{Root: schema}
		start := time.Now()
		once, onceOps := normalize.Normalize(doc, schema, r, opts)
		first, err := json.Marshal(once)
		if err != nil {
			t.Fatalf("normalized doc does not marshal: %v", err)
		}
		copied, copiedOps := normalize.NormalizeCopy(doc, schema, r, opts)
		if c, _ := json.Marshal(copied); !bytes.Equal(c, first) || !slices.Equal(onceOps, copiedOps) {
			t.Fatalf("Normalize gave %s %s; without its first pass %s %s", first, pipelinetest.FormatNormalizations(onceOps), c, pipelinetest.FormatNormalizations(copiedOps))
		}
		twice, ops := normalize.Normalize(once, schema, r, opts)
		if len(ops) != 0 {
			t.Fatalf("not idempotent on %s under %s: second pass %s", first, schemaText, pipelinetest.FormatNormalizations(ops))
		}
		if second, _ := json.Marshal(twice); !bytes.Equal(first, second) {
			t.Fatalf("second pass changed %s to %s", first, second)
		}
		if d := time.Since(start); d > fuzzSlow {
			t.Fatalf("Normalize took %v", d)
		}
	})
}

// decodeFuzzJSON decodes s as the pipeline does (UseNumber); nil when it
// is not one JSON value.
func decodeFuzzJSON(s string) any {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil
	}
	return v
}
