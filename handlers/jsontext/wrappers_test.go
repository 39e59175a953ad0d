package jsontext_test

import "testing"

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
			checkExtracted(t, tt.given, tt.want)
		})
	}
}
