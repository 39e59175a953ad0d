package schemas_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentgate/agentgate/schemas"
)

// TestValidate_concurrent validates from many goroutines at once (run with
// -race) with schemas no one has validated with before, through $ref,
// pattern and patternProperties, which the validator caches lazily. The
// expected answers come from a separate load.
func TestValidate_concurrent(t *testing.T) {
	t.Parallel()
	load := func() []*schemas.Schema {
		pr, _ := loadGood(t).Schema(prReviewID)
		return []*schemas.Schema{
			pr,
			pr,
			compileSchema(t, `{
				"patternProperties": {"^x-": {"type": "string", "pattern": "^[a-z]+$"}},
				"additionalProperties": {"$ref": "#/$defs/n"},
				"$defs": {"n": {"type": "integer", "format": "int32"}}
			}`),
			compileSchema(t, `{"properties": {"slug": {"type": "string", "pattern": "^[a-z-]+$"}}}`),
		}
	}
	docs := []string{
		`{"summary": "ok", "approval": "nope", "comments": [{"file": "a", "line": 0, "severity": "x", "body": "b"}]}`,
		`{"summary": "ok", "approval": "approve", "comments": []}`,
		`{"x-a": "ABC", "x-b": "abc", "n": "1", "m": 2}`,
		`{"slug": "Not A Slug"}`,
	}
	reference, cold := load(), load()
	want := make([]string, len(docs))
	for i, d := range docs {
		want[i] = fmt.Sprint(reference[i].Validate(decode(t, d)))
	}

	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				k := (g + i) % len(docs)
				// A fresh decode per call, as the gateway would.
				dec := json.NewDecoder(strings.NewReader(docs[k]))
				dec.UseNumber()
				var doc any
				if err := dec.Decode(&doc); err != nil {
					errs <- err.Error()
					return
				}
				if got := fmt.Sprint(cold[k].Validate(doc)); got != want[k] {
					errs <- fmt.Sprintf("doc %d: %s, want %s", k, got, want[k])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
