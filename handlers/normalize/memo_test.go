package normalize_test

import (
	"reflect"
	"sync"
	"testing"

	"github.com/agentgate/agentgate/handlers/normalize"
	"github.com/agentgate/agentgate/internal/pipelinetest"
	"github.com/agentgate/agentgate/schemas"
)

// plainResolver hides the schema's memo, so every call derives afresh.
type plainResolver struct{ s *schemas.Schema }

func (p plainResolver) Resolve(node map[string]any) map[string]any { return p.s.Resolve(node) }

// What the normalizer keeps in a schema's memo changes nothing: outputs
// normalized concurrently with the shared memo equal those normalized with
// none.
func TestNormalize_memoIsTransparentAndSafe(t *testing.T) {
	t.Parallel()
	reg, err := schemas.Load("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	bp, _ := reg.Blueprint("pr-reviewer")
	s := bp.OutputSchema
	docs := []string{
		`{"summary":"s","approval":"Approve","review_comments":[{"path":"a.go","line":"3","severity":"NIT","body":"m","x":1},{"file":"b.go","line":2,"severity":"concern","message":"m"}]}`,
		`{"overview":"s","verdict":"comment","comments":[],"metrics":{"files_reviewed":"2","extra":true}}`,
		`{"summary":"s","approval":"approve","comments":"not a list","odd key":null}`,
	}
	opts := normalize.Options{Coerce: true}
	for _, d := range docs {
		want, wantOps := normalize.Normalize(pipelinetest.DecodeDoc(t, d), s.Doc, plainResolver{s}, opts)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 20 {
					got, ops := normalize.Normalize(pipelinetest.DecodeDoc(t, d), s.Doc, s, opts)
					if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(ops, wantOps) {
						t.Errorf("memoized normalize differs for %s:\n%v %v\nwant\n%v %v", d, got, ops, want, wantOps)
						return
					}
				}
			}()
		}
		wg.Wait()
	}
}
