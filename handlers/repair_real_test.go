package handlers_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/internal/pipelinetest"
)

// realSchema is the schema of the shapes real models write (issue 11,
// section 5).
const realSchema = `{
	"$id": "https://agentgate.dev/schemas/real/1.0.0", "title": "t", "description": "d",
	"type": "object",
	"properties": {
		"content": {"type": "string"}, "note": {"type": "string"}, "label": {"type": "string"},
		"ratio": {"type": "number"}, "count": {"type": "integer"},
		"tags": {"type": "array", "items": {"type": "string"}},
		"flag": {"type": "boolean"}, "extra": {"type": ["string", "null"]}
	}
}`

// TestCheck_realModelRepairs runs the shapes of section 5 that gave a
// retry although one reading is clear, and their ambiguous neighbours,
// which still do.
func TestCheck_realModelRepairs(t *testing.T) {
	t.Parallel()
	s := testSchema(t, "https://agentgate.dev/schemas/real/1.0.0", realSchema)
	tests := []struct {
		name  string
		given string
		want  string // compact JSON; "" when the verdict must stay invalid
	}{
		{"a quote inside a string, not escaped", `{"content": "[LINK]("https://example.com")"}`, `{"content":"[LINK](\"https://example.com\")"}`},
		{"quoted words inside a string", `{"content": "He said "no" twice", "label": "x"}`, `{"content":"He said \"no\" twice","label":"x"}`},
		{"unquoted prose with commas and periods", `{"note": ipsum, sic, datum.}`, `{"note":"ipsum, sic, datum."}`},
		{"unquoted prose, then another member", `{"note": ipsum, sic, datum., "label": "x"}`, `{"label":"x","note":"ipsum, sic, datum."}`},
		{"unquoted words are members where a colon follows", `{note: ipsum, label: datum}`, `{"label":"datum","note":"ipsum"}`},
		{"a fraction where a number is wanted", `{"ratio": 1/3}`, `{"ratio":0.3333333333333333}`},
		{"a fraction that is an integer", `{"count": 6/3}`, `{"count":2}`},
		{"a fraction where a string is wanted stays text", `{"label": 12/2024}`, `{"label":"12/2024"}`},
		{"a division by zero is no number", `{"ratio": 1/0}`, ""},
		{"a date is no fraction", `{"ratio": 1/2/2024}`, ""},
		{"a stray word between members", `{"note": "a", stray "label": "b"}`, `{"label":"b","note":"a"}`},
		{"stray words before the first member", `{Here it is "note": "a"}`, `{"note":"a"}`},
		{"a Python set of strings", `{"tags": {'pricing', 'refund'}}`, `{"tags":["pricing","refund"]}`},
		{"a one-element set is ambiguous (a key without its value)", `{"tags": {'pricing'}}`, ""},
		{"TRUE and Null", `{"flag": TRUE, "extra": Null}`, `{"extra":null,"flag":true}`},
		{"FALSE and NULL", `{"flag": FALSE, "extra": NULL}`, `{"extra":null,"flag":false}`},
		{"a word that only starts like a literal", `{"note": Nullable}`, `{"note":"Nullable"}`},
		{"# as a colour is a value, not a comment", `{"label": #fff}`, `{"label":"#fff"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := handlers.Check([]byte(tt.given), s, checkStrict)
			if tt.want == "" {
				if v.Valid {
					t.Fatalf("valid %s (%s), want a retry", pipelinetest.CompactJSON(t, v.Data), pipelinetest.FormatNormalizations(v.Normalizations))
				}
				return
			}
			if !v.Valid {
				t.Fatalf("invalid %+v", v.Violations)
			}
			if got := pipelinetest.CompactJSON(t, v.Data); got != tt.want {
				t.Errorf("data %s, want %s", got, tt.want)
			}
			for _, n := range v.Normalizations {
				if n.Op == "lossy" {
					t.Errorf("a lossless repair recorded as lossy: %+v", n)
				}
			}
		})
	}
}

// FuzzCheck_fraction checks that a fraction where a number is wanted,
// which repair keeps as its text, validates as the number it denotes.
func FuzzCheck_fraction(f *testing.F) {
	f.Add(uint32(1), uint32(3), false)
	f.Add(uint32(6), uint32(3), true)
	s := testSchema(f, "https://agentgate.dev/schemas/real/1.0.0", realSchema)
	f.Fuzz(func(t *testing.T, a, b uint32, neg bool) {
		if b == 0 {
			return
		}
		num := strconv.FormatUint(uint64(a), 10)
		want := float64(a) / float64(b)
		if neg {
			num, want = "-"+num, -want
		}
		in := fmt.Sprintf(`{"ratio": %s/%d}`, num, b)
		v := handlers.Check([]byte(in), s, checkStrict)
		if !v.Valid {
			t.Fatalf("Check(%s): %+v", in, v.Violations)
		}
		n, _ := v.Data.(map[string]any)["ratio"].(json.Number)
		if got, err := n.Float64(); err != nil || got != want {
			t.Fatalf("Check(%s) ratio = %v, want %v", in, n, want)
		}
	})
}
