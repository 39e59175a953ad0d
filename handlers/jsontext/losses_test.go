package jsontext_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/handlers/jsontext"
)

// Losses are recorded one by one up to 16; the last counts the rest.
func TestRepairText_lossesBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("{")
	for i := range 20 {
		fmt.Fprintf(&b, `"k%d": , `, i)
	}
	b.WriteString(`"end": 1}`)
	rep, err := jsontext.RepairText([]byte(b.String()), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Losses) != 16 || rep.Losses[0].Path != "$.k0" || !strings.HasSuffix(rep.Losses[15].Detail, "(and 4 more lossy repairs)") {
		t.Errorf("losses = %+v", rep.Losses)
	}
}

// TestRepairText_losses lists which repairs are lossy, and where.
func TestRepairText_losses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		given string
		want  []string // "path keyword detail"
	}{
		{"lossless: a trailing comma", `{"a": [1, 2,],}`, nil},
		{"lossless: the bracket found closes the parent", `[{"a": 1]`, nil},
		{"lossless: the bracket found closes the parent object", `{"a": [1, 2}`, nil},
		{"cut in an array", `{"a": [1, 2`, []string{"$.a truncated " + jsontext.RepairTruncated}},
		{"cut in a key", `{"a": 1, "b`, []string{"$ truncated " + jsontext.RepairTruncated}},
		{"cut after a colon", `{"a": {"b":`, []string{"$.a.b truncated " + jsontext.RepairTruncated}},
		{"a wrong closing bracket inside an object", `{"a": {"b": 1]}`, []string{"$.a repair missing closing bracket guessed before more content"}},
		{"a value written inside the braces moves out", `[{"a": 1, [2]}]`, []string{"$[0] repair missing closing bracket guessed before more content"}},
		{"a placeholder", `{"a": , "b": 1}`, []string{"$.a repair missing value replaced by a placeholder"}},
		{"an exponent without digits", `[2e, 3]`, []string{"$[0] repair incomplete number completed with 0"}},
		{"an empty call", `{"n": NumberLong()}`, []string{"$.n repair empty function call replaced by null"}},
		{"an ellipsis", `{"a": [1, ...]}`, []string{"$.a repair ellipsis removed: content the model left out"}},
		{"members after the bracket", `{"a": 1}, "b": 2, "c": 3}`, []string{"$.b repair member written after its object's closing bracket moved into it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := jsontext.RepairText([]byte(tt.given), 0)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range rep.Losses {
				got = append(got, l.Path+" "+l.Keyword+" "+l.Detail)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("losses %q, want %q", got, tt.want)
			}
		})
	}
}

func ExampleRepairText() {
	rep, err := jsontext.RepairText([]byte(`{"category": "other", "tags": ["pricing",`), 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(rep.JSON))
	for _, l := range rep.Losses {
		fmt.Printf("%s at %s: %s (after %q)\n", l.Keyword, l.Path, l.Detail, l.Text)
	}
	// Output:
	// {"category":"other","tags":["pricing"]}
	// truncated at $.tags: closed truncated document (after "{\"category\": \"other\", \"tags\": [\"pricing\",")
}
