package handlers_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/schemas"
)

func TestViolationLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 100)
	tests := []struct {
		name  string
		given contract.Violation
		want  string
	}{
		{"enum", contract.Violation{Path: "$.priority", Keyword: "enum", Expected: []any{"low", "medium", "high", "urgent"},
			Received: "critical", HasReceived: true, Message: "value must be one of ..."},
			`$.priority: got "critical", expected one of "low", "medium", "high", "urgent"`},
		{"type", contract.Violation{Path: "$.line", Keyword: "type", Expected: "integer", Received: "3", HasReceived: true, Message: "expected integer, got string"},
			`$.line: got "3", expected integer`},
		{"type list", contract.Violation{Path: "$.x", Keyword: "type", Expected: []string{"string", "null"}, Received: json.Number("1"), HasReceived: true, Message: "m"},
			`$.x: got 1, expected string or null`},
		{"minimum", contract.Violation{Path: "$.n", Keyword: "minimum", Expected: json.Number("1"), Received: json.Number("0"), HasReceived: true, Message: "value must be >= 1"},
			`$.n: got 0, expected >= 1`},
		{"const null", contract.Violation{Path: "$.c", Keyword: "const", Expected: nil, HasExpected: true, Received: "x", HasReceived: true, Message: "value must be null"},
			`$.c: got "x", expected null`},
		{"received cut", contract.Violation{Path: "$.s", Keyword: "maxLength", Received: long, HasReceived: true, Message: "string must be at most 5 characters long"},
			`$.s: got "` + strings.Repeat("é", 79) + `…, expected a string that must be at most 5 characters long`},
		{"required", contract.Violation{Path: "$.summary", Keyword: "required", Message: "required member \"summary\" is missing"},
			`$.summary: required member "summary" is missing`},
		{"not allowed", contract.Violation{Path: "$.note", Keyword: "additionalProperties", Received: "x", HasReceived: true, Message: `member "note" is not allowed`},
			`$.note: member "note" is not allowed (got "x")`},
		{"no JSON", contract.Violation{Path: "$", Keyword: "json", Message: "no JSON document found"}, `$: no JSON document found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := handlers.ViolationLine(tt.given); got != tt.want {
				t.Errorf("ViolationLine = %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestAgentPrompt(t *testing.T) {
	t.Parallel()
	reg, err := schemas.LoadFS(fstest.MapFS{
		"schemas/common.schema.json": {Data: []byte(`{"$id": "https://t.dev/common/1.0.0", "$defs": {"person": {"type": "object", "properties": {"name": {"type": "string", "x-aliases": ["full_name"]}}}}}`)},
		"agents/plain.json": {Data: []byte(`{"name": "plain", "system_prompt": "Review it.", "output_schema": {"$id": "https://t.dev/own", "type": "object",
			"properties": {"author": {"$ref": "https://t.dev/common/1.0.0#/$defs/person"}}}}`)},
		"agents/templated.json": {Data: []byte(`{"name": "templated", "description": "d", "system_prompt": "Review it.",
			"output_schema": {"type": "object"}, "prompt_template": "[{{.Agent}}] {{.SystemPrompt}}\nSchema:\n{{.Schema}}"}`)},
		"agents/free.json": {Data: []byte(`{"name": "free", "system_prompt": "Chat."}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := reg.Blueprint("plain")
	got := handlers.AgentPrompt(plain)
	for _, want := range []string{"Review it.\n\n## Required Output Format", `"$ref": "#/$defs/person"`, `"person": {`} {
		if !strings.Contains(got, want) {
			t.Errorf("prompt lacks %s:\n%s", want, got)
		}
	}
	for _, gone := range []string{"x-aliases", "https://t.dev"} {
		if strings.Contains(got, gone) {
			t.Errorf("prompt shows %s:\n%s", gone, got)
		}
	}
	templated, _ := reg.Blueprint("templated")
	if got, want := handlers.AgentPrompt(templated), "[templated] Review it.\nSchema:\n{\n  \"type\": \"object\"\n}"; got != want {
		t.Errorf("templated prompt = %q, want %q", got, want)
	}
	free, _ := reg.Blueprint("free")
	if got := handlers.AgentPrompt(free); got != "Chat." {
		t.Errorf("free-text prompt = %q", got)
	}
}

// A plain-text refusal through the gate: a refusal outcome for an agent
// that owes JSON, unless its blueprint turns detection off.
func TestGate_plainTextRefusal(t *testing.T) {
	t.Parallel()
	reg, err := schemas.LoadFS(fstest.MapFS{
		"agents/a.json":    {Data: []byte(`{"name": "a", "output_schema": {"type": "object"}}`)},
		"agents/off.json":  {Data: []byte(`{"name": "off", "output_schema": {"type": "object"}, "refusal_detection": false}`)},
		"agents/own.json":  {Data: []byte(`{"name": "own", "output_schema": {"type": "object"}, "refusal_patterns": ["(?i)^out of scope"]}`)},
		"agents/free.json": {Data: []byte(`{"name": "free"}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	g, err := handlers.NewGate(handlers.GateConfig{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		agent, payload string
		want           contract.Outcome
		wantDetection  string
	}{
		{"a", "I'm sorry, but I can't help with that.", contract.OutcomeRefused, handlers.RefusalByText},
		{"a", "I can't find any issues: ```json\n{\"issues\": []}\n```", contract.OutcomeValid, ""},
		{"a", "Sorry for the delay, here it is.", contract.OutcomeRetry, ""},
		{"off", "I'm sorry, but I can't help with that.", contract.OutcomeRetry, ""},
		{"own", "Out of scope for this agent.", contract.OutcomeRefused, handlers.RefusalByPattern},
		{"free", "I'm sorry, but I can't help with that.", contract.OutcomeValid, ""},
		{"a", `{"refusal": "no"}`, contract.OutcomeRefused, handlers.RefusalByObject},
	}
	for _, tt := range tests {
		d := g.Decide(env("agent.output.raw."+tt.agent, tt.payload, "Run-Id", "r"), nil)
		if d.Outcome != tt.want || d.Refusal != tt.wantDetection {
			t.Errorf("%s %q: %s (%q), want %s (%q)", tt.agent, tt.payload, d.Outcome, d.Refusal, tt.want, tt.wantDetection)
			continue
		}
		if tt.want == contract.OutcomeRefused {
			var ev contract.RefusalEvent
			decodeEvent(t, d.Payload, &ev)
			if ev.Detection != tt.wantDetection || ev.Refusal == "" {
				t.Errorf("refusal event %+v", ev)
			}
		}
	}
}

// A JSON Type Definition reaches the model as its JSON Schema translation
// (contract 5.2): JSON Schema keywords, none of RFC 8927's forms.
func TestAgentPrompt_jsonTypeDefinition(t *testing.T) {
	t.Parallel()
	reg, err := schemas.Load("../examples")
	if err != nil {
		t.Fatal(err)
	}
	bp, ok := reg.Blueprint("incident-reporter")
	if !ok {
		t.Fatal("no incident-reporter")
	}
	for name, got := range map[string]string{
		"system prompt": handlers.AgentPrompt(bp),
		"gated twin":    handlers.WithOutputFormat("Report it.", bp),
	} {
		for _, want := range []string{"matches this JSON Schema", `"type": "object"`, `"required": [`, `"anyOf": [`} {
			if !strings.Contains(got, want) {
				t.Errorf("%s lacks %s:\n%s", name, want, got)
			}
		}
		for _, gone := range []string{`"optionalProperties"`, `"discriminator"`, `"mapping"`, `"aliases"`} {
			if strings.Contains(got, gone) {
				t.Errorf("%s shows the JTD form %s:\n%s", name, gone, got)
			}
		}
	}
}
