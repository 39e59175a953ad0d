package jsontext_test

import (
	"slices"
	"testing"

	"github.com/agentgate/agentgate/handlers/jsontext"
	"github.com/agentgate/agentgate/internal/pipelinetest"
)

// TestExtract_wrapperDetails checks the Detail of a document found inside
// a wrapper (see wrappers.go).
func TestExtract_wrapperDetails(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		given string
		want  []extracted
	}{
		{name: "Llama custom function tag", given: `<function=get_weather>{"city": "Paris"}</function>`,
			want: []extracted{{doc: `{"city":"Paris"}`, from: []string{"<function> tag"}}}},
		{name: "closing tag is no wrapper", given: `<b>bold</b> {"a": 1}`,
			want: []extracted{{doc: `{"a":1}`, from: []string{"surrounding text"}}}},
		{name: "comment is no wrapper", given: `<!-- note --> {"a": 1}`,
			want: []extracted{{doc: `{"a":1}`, from: []string{"surrounding text"}}}},
		{name: "a sentence is no function name", given: "Here it is\n{\"a\": 1}",
			want: []extracted{{doc: `{"a":1}`, from: []string{"surrounding text"}}}},
		{name: "name on the same line is no function name line", given: `get_weather {"a": 1}`,
			want: []extracted{{doc: `{"a":1}`, from: []string{"surrounding text"}}}},
		{name: "Mistral array", given: `[TOOL_CALLS] [{"name": "search", "arguments": {}}]`,
			want: []extracted{{doc: `[{"arguments":{},"name":"search"}]`, from: []string{"surrounding text"}}}},
		{name: "answer tag around a scalar list", given: "<answer>\n[1, 2, 3]\n</answer>",
			want: []extracted{{doc: `[1,2,3]`, from: []string{"<answer> tag"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, bad := jsontext.Extract([]byte(tt.given), 0)
			if bad != nil {
				t.Fatal(bad.Message)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("Extract() = %d candidates %s, want %d", len(got), describeCandidates(got), len(tt.want))
			}
			for i, c := range got {
				if doc := pipelinetest.CompactJSON(t, c.Doc); doc != tt.want[i].doc {
					t.Errorf("candidate %d = %s, want %s", i, doc, tt.want[i].doc)
				}
				var from []string
				for _, n := range c.Normalizations {
					from = append(from, n.Detail)
				}
				if !slices.Equal(from, tt.want[i].from) {
					t.Errorf("candidate %d from %q, want %q", i, from, tt.want[i].from)
				}
			}
		})
	}
}
