package normalize_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/handlers/normalize"
	"github.com/agentgate/agentgate/schemas"
)

func TestPrefixViolations(t *testing.T) {
	t.Parallel()
	s := prReviewSchema(t)
	strip := normalize.Options{ExtraFields: "strip", Coerce: true}
	reject := normalize.Options{ExtraFields: "reject", Coerce: true}
	tests := []struct {
		name  string
		given string
		opts  normalize.Options
		want  string // "path keyword", "" for none
	}{
		{"nothing yet", ``, strip, ""},
		{"prose first: cannot judge", `Here is my review: [`, strip, ""},
		{"wrong root type", `[{"summary":`, strip, "$ type"},
		{"wrong root type in a fence", "```json\n[1,", strip, "$ type"},
		{"finished string outside its enum", `{"summary":"ok","approval":"lgtm"`, strip, "$.approval enum"},
		{"enum string unfinished", `{"summary":"ok","approval":"lg`, strip, ""},
		{"enum value differing in case is coerced", `{"approval":" Approve ",`, strip, ""},
		{"nested enum", `{"comments":[{"file":"a","line":1,"severity":"critical"`, strip, "$.comments[0].severity enum"},
		{"extra member stripped: harmless", `{"summary":"ok","mood":"great"`, strip, ""},
		{"extra member rejected", `{"summary":"ok","mood":"great"`, reject, "$.mood additionalProperties"},
		{"alias is no extra member", `{"review_comments":[`, reject, ""},
		{"valid so far", `{"summary":"ok","approval":"approve","comments":[{"file":"a.go","line":3`, strip, ""},
		{"syntax error: repair may mend it", `{"summary":"ok",,"approval":"lgtm"`, strip, ""},
		{"bracketed prose is no array", `[Review] {"summary":`, strip, ""},
		{"a lone bracket is not judged yet", `[`, strip, ""},
		{"under an alias nothing is judged", `{"comments":[],"review_comments":[{"severity":"critical"`, strip, ""},
		{"maybe a refusal", `{"refusal":"I can`, reject, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			vs := normalize.PrefixViolations([]byte(tt.given), s.Doc, s, tt.opts)
			var got []string
			for _, v := range vs {
				got = append(got, v.Path+" "+v.Keyword)
			}
			if strings.Join(got, ",") != tt.want {
				t.Errorf("violations %v, want %q", got, tt.want)
			}
		})
	}
}

// prReviewSchema is the bundled example's pr-review schema, compiled as
// the gateway compiles it (its Resolve and Memo are the real ones).
func prReviewSchema(t testing.TB) *schemas.Schema {
	t.Helper()
	reg, err := schemas.Load(filepath.Join("..", "..", "examples"))
	if err != nil {
		t.Fatalf("loading examples: %v", err)
	}
	s, ok := reg.Schema("https://agentgate.dev/schemas/pr-review/1.0.0")
	if !ok {
		t.Fatal("pr-review schema not found")
	}
	return s
}
