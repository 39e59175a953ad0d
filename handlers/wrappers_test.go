package handlers_test

import (
	"slices"
	"testing"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/internal/pipelinetest"
)

// toolCallSchema is a tool call as the function-calling models emit it;
// Llama's "parameters" is an alias of "arguments".
const toolCallSchema = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"$id": "https://agentgate.dev/schemas/tool-call/1.0.0",
	"title": "Tool call", "description": "One call of a tool.",
	"type": "object", "required": ["name", "arguments"], "additionalProperties": false,
	"properties": {
		"name": {"type": "string", "enum": ["get_weather", "search"]},
		"arguments": {"type": "object", "x-aliases": ["parameters"]}
	}
}`

const weatherCall = `{"name": "get_weather", "arguments": {"city": "Paris"}}`

// TestCheck_wrappers runs outputs shaped like real models' tool calls and
// answers through the pipeline.
func TestCheck_wrappers(t *testing.T) {
	t.Parallel()
	s := testSchema(t, "https://agentgate.dev/schemas/tool-call/1.0.0", toolCallSchema)
	want := `{"arguments":{"city":"Paris"},"name":"get_weather"}`
	tests := []struct {
		name  string
		given string
		want  string // compact JSON; "" when the verdict must be invalid
		ops   []contract.Normalization
	}{
		{
			name:  "Hermes / Qwen <tool_call> tag",
			given: "<tool_call>\n" + weatherCall + "\n</tool_call>",
			want:  want, ops: []contract.Normalization{opExtract("<tool_call> tag")},
		},
		{
			name:  "Qwen with a <think> block holding braces",
			given: "<think>\nThe user wants the weather, so I call {get_weather} with the city.\n</think>\n\n<tool_call>\n" + weatherCall + "\n</tool_call>",
			want:  want, ops: []contract.Normalization{opExtract("<tool_call> tag")},
		},
		{
			name:  "<function_call> tag with attributes",
			given: `<function_call type="json">` + weatherCall + `</function_call>`,
			want:  want, ops: []contract.Normalization{opExtract("<function_call> tag")},
		},
		{
			name:  "Llama 3.1 <|python_tag|> with parameters",
			given: `<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}<|eom_id|>`,
			want:  want,
			ops:   []contract.Normalization{opExtract("<|python_tag|> token"), pipelinetest.Rename("$", "parameters", "arguments")},
		},
		{
			name:  "gpt-oss harmony tokens",
			given: `<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>` + weatherCall + `<|call|>`,
			want:  want, ops: []contract.Normalization{opExtract("<|message|> token")},
		},
		{
			name:  "function name on the line before",
			given: "get_weather\n" + weatherCall,
			want:  want, ops: []contract.Normalization{opExtract("function name get_weather")},
		},
		{
			name:  "functions.name: label",
			given: "functions.get_weather:\n" + weatherCall,
			want:  want, ops: []contract.Normalization{opExtract("function name get_weather")},
		},
		{
			name:  "two documents: the first that validates",
			given: "{\"name\": \"lookup\", \"arguments\": {}}\n" + weatherCall,
			want:  want, ops: []contract.Normalization{opExtract("surrounding text")},
		},
		{
			name:  "two documents in tags: the first that validates",
			given: "<tool_call>{\"name\": \"search\"}</tool_call>\n<tool_call>" + weatherCall + "</tool_call>",
			want:  want, ops: []contract.Normalization{opExtract("<tool_call> tag")},
		},
		{
			name:  "JSON in a string",
			given: `"{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}"`,
			want:  want, ops: []contract.Normalization{opExtract("json string")},
		},
		{
			name:  "Python dict in a <tool_call> tag",
			given: "<tool_call>\n{'name': 'get_weather', 'arguments': {'city': 'Paris'}}\n</tool_call>",
			want:  want,
			ops: []contract.Normalization{
				opExtract("<tool_call> tag"),
				pipelinetest.Repair("single or typographic quotes replaced by double quotes (5 times)"),
			},
		},
		{
			name:  "tool call cut short inside its tag: never valid (lossy, see TestCheck_lossy)",
			given: "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"",
		},
		{
			name:  "JSON fence inside a tag",
			given: "<tool_call>\n```json\n" + weatherCall + "\n```\n</tool_call>",
			want:  want, ops: []contract.Normalization{opExtract("code fence")},
		},
		{
			name:  "DeepSeek tool call tokens around a fence",
			given: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
			want:  want, ops: []contract.Normalization{opExtract("surrounding text")},
		},
		{
			name:  "Mistral [TOOL_CALLS] prefix",
			given: `[TOOL_CALLS] ` + weatherCall,
			want:  want, ops: []contract.Normalization{opExtract("surrounding text")},
		},
		{
			name:  "XML-only tool call: no JSON",
			given: `<function_calls><invoke name="get_weather"><parameter name="city">Paris</parameter></invoke></function_calls>`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := handlers.Check([]byte(tt.given), s, checkStrict)
			if tt.want == "" {
				if v.Valid {
					t.Fatalf("valid %s, want invalid", pipelinetest.CompactJSON(t, v.Data))
				}
				return
			}
			if !v.Valid {
				t.Fatalf("invalid: %+v", v.Violations)
			}
			if got := pipelinetest.CompactJSON(t, v.Data); got != tt.want {
				t.Errorf("Data = %s, want %s", got, tt.want)
			}
			if !slices.Equal(v.Normalizations, tt.ops) {
				t.Errorf("normalizations =\n%s\nwant\n%s", pipelinetest.FormatNormalizations(v.Normalizations), pipelinetest.FormatNormalizations(tt.ops))
			}
		})
	}
}
