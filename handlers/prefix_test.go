package handlers_test

import (
	"strings"
	"testing"

	"github.com/agentgate/agentgate/handlers"
)

func TestPrefixViolations(t *testing.T) {
	t.Parallel()
	s := prReviewSchema(t)
	strip := handlers.CheckOptions{ExtraFields: "strip", Coerce: true}
	reject := handlers.CheckOptions{ExtraFields: "reject", Coerce: true}
	tests := []struct {
		name  string
		given string
		opts  handlers.CheckOptions
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
			vs := handlers.PrefixViolations([]byte(tt.given), s, tt.opts)
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
