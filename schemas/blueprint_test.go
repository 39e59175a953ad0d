package schemas_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/schemas"
)

func TestBlueprints_loaded(t *testing.T) {
	t.Parallel()
	r := loadGood(t)
	var names []string
	for _, b := range r.Blueprints() {
		names = append(names, b.Name)
	}
	if want := []string{"chat", "pr-reviewer", "summarizer", "tooler"}; !equalStrings(names, want) {
		t.Errorf("Blueprints() = %v, want %v", names, want)
	}

	pr, _ := r.Blueprint("pr-reviewer")
	if pr.OutputSchema == nil || pr.OutputSchema.ID != prReviewID {
		t.Errorf("pr-reviewer output schema = %v", pr.OutputSchema)
	}
	if pr.Description != "Reviews pull requests" || pr.MaxRetries != 2 || pr.MaxAttempts() != 3 ||
		pr.ExtraFields != schemas.ExtraFieldsReject || pr.Coerce || pr.SystemPrompt != "You are a thorough code reviewer." ||
		string(pr.ParametersSchema) != `{"type": "object"}` ||
		pr.Source != filepath.Join("testdata", "good", "agents", "pr-reviewer.json") {
		t.Errorf("pr-reviewer = %+v", pr)
	}

	chat, _ := r.Blueprint("chat")
	if chat.OutputSchema != nil || chat.ParametersSchema != nil || chat.MaxRetries != 1 || chat.MaxAttempts() != 2 ||
		chat.ExtraFields != schemas.ExtraFieldsStrip || !chat.Coerce || chat.Reply != "" || chat.Tools != nil {
		t.Errorf("chat defaults = %+v", chat)
	}

	sum, _ := r.Blueprint("summarizer")
	if sum.OutputSchema == nil || sum.OutputSchema.ID != "urn:agentgate:inline:summarizer" || sum.OutputSchema.Source != "inline:summarizer" {
		t.Fatalf("summarizer output schema = %+v", sum.OutputSchema)
	}
	// The inline schema refers to a registry schema.
	equalJSON(t, sum.OutputSchema.Validate(decode(t, `{"summary": "s", "author": {}}`)),
		`[{"path": "$.author.name", "keyword": "required", "message": "missing required member \"name\""}]`)

	tool, _ := r.Blueprint("tooler")
	if tool.Reply != schemas.ReplyToolOrAnswer || !equalStrings(tool.ToolNames(), []string{"search"}) {
		t.Fatalf("tooler = %+v", tool)
	}
	if s := tool.Tools["search"]; s.ID != "urn:agentgate:inline:tooler/tools/search" || s.Validate(decode(t, `{"query": 1}`)) == nil {
		t.Errorf("tooler search schema = %+v", s)
	}

	if _, ok := r.Blueprint("nobody"); ok {
		t.Error("Blueprint(unknown) found")
	}
}

func TestBlueprint_toolByID(t *testing.T) {
	t.Parallel()
	r, err := loadFS(t, map[string]string{
		"schemas/args.schema.json": `{"$id": "https://t.dev/args/1.0.0", "type": "object"}`,
		"agents/a.json":            `{"name": "a", "reply": "tool_or_answer", "tools": {"lookup": "https://t.dev/args/1.0.0", "echo": {"type": "string"}}}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := r.Blueprint("a")
	if !equalStrings(b.ToolNames(), []string{"echo", "lookup"}) || b.Tools["lookup"].ID != "https://t.dev/args/1.0.0" {
		t.Fatalf("tools = %+v", b.Tools)
	}
	got, _ := json.Marshal(b)
	want := `{"name":"a","description":"","max_retries":1,"extra_fields":"strip","coerce":true,"system_prompt":"","reply":"tool_or_answer","tools":{"echo":{"type":"string"},"lookup":"https://t.dev/args/1.0.0"},"refusal_detection":true,"retry":"full"}`
	if string(got) != want {
		t.Errorf("MarshalJSON = %s\nwant %s", got, want)
	}
}

func TestBlueprint_MarshalJSON(t *testing.T) {
	t.Parallel()
	r := loadGood(t)
	tests := []struct {
		name string
		want string
	}{
		{"pr-reviewer", `{"name": "pr-reviewer", "description": "Reviews pull requests",
			"output_schema": "https://agentgate.dev/schemas/pr-review/1.0.0", "parameters_schema": {"type": "object"},
			"max_retries": 2, "extra_fields": "reject", "coerce": false, "system_prompt": "You are a thorough code reviewer.",
			"refusal_detection": true, "retry": "full"}`},
		{"chat", `{"name": "chat", "description": "", "max_retries": 1, "extra_fields": "strip", "coerce": true, "system_prompt": "Be brief.", "refusal_detection": true, "retry": "full"}`},
		{"summarizer", `{"name": "summarizer", "description": "", "max_retries": 1, "extra_fields": "strip", "coerce": true, "system_prompt": "",
			"output_schema": {"type": "object", "required": ["summary"],
				"properties": {"summary": {"type": "string"}, "author": {"$ref": "https://agentgate.dev/schemas/common/1.0.0#/definitions/person"}}}, "refusal_detection": true, "retry": "full"}`},
		{"tooler", `{"name": "tooler", "description": "", "max_retries": 1, "extra_fields": "strip", "coerce": true, "system_prompt": "",
			"reply": "tool_or_answer", "tools": {"search": {"type": "object", "required": ["query"], "properties": {"query": {"type": "string"}}}}, "refusal_detection": true, "retry": "full"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, _ := r.Blueprint(tt.name)
			got, err := json.Marshal(b)
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			_ = json.Unmarshal(got, &g)
			_ = json.Unmarshal([]byte(tt.want), &w)
			if !jsonEqual(g, w) {
				t.Errorf("MarshalJSON = %s\nwant %s", got, tt.want)
			}

			// What MarshalJSON writes loads back as the same blueprint.
			files := map[string]string{"agents/" + tt.name + ".json": string(got)}
			for i, s := range r.Schemas() {
				if s.Version != "" {
					files[fmt.Sprintf("schemas/%d.schema.json", i)] = string(s.Raw)
				}
			}
			r2, err := loadFS(t, files)
			if err != nil {
				t.Fatalf("loading the marshalled blueprint: %v", err)
			}
			b2, _ := r2.Blueprint(tt.name)
			again, _ := json.Marshal(b2)
			if string(again) != string(got) {
				t.Errorf("round trip: %s\nthen %s", got, again)
			}
		})
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestBlueprint_promptFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fields  string
		wantErr string
	}{
		{name: "all set", fields: `"refusal_detection": false, "refusal_patterns": ["(?i)^no thanks"], "retry": "partial",
			"prompt_template": "{{.SystemPrompt}}\n{{.Schema}}", "retry_template": "{{range .Violations}}{{.Line}}\n{{end}}{{if .Partial}}{{range .Members}}{{.Path}}{{end}}{{end}}"`},
		{name: "template that does not parse", fields: `"retry_template": "{{range .Violations}"`, wantErr: "retry_template"},
		{name: "template naming no field", fields: `"prompt_template": "{{.Nope}}"`, wantErr: "prompt_template"},
		{name: "bad pattern", fields: `"refusal_patterns": ["(unclosed"]`, wantErr: "refusal_patterns[0]"},
		{name: "bad retry", fields: `"retry": "some"`, wantErr: `retry is "some"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := loadFS(t, map[string]string{"agents/a.json": `{"name": "a", "output_schema": {"type": "object"}, ` + tt.fields + `}`})
			if tt.wantErr != "" {
				if !errors.Is(err, schemas.ErrBadBlueprint) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want ErrBadBlueprint about %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := r.Blueprint("a")
			p, rt := b.Templates()
			if b.RefusalDetection || len(b.RefusalPatterns) != 1 || b.Retry != schemas.RetryPartial || p == nil || rt == nil {
				t.Errorf("blueprint = %+v", b)
			}
			// MarshalJSON writes them back, and loading that gives the same.
			again, err := json.Marshal(b)
			if err != nil {
				t.Fatal(err)
			}
			r2, err := loadFS(t, map[string]string{"agents/a.json": string(again)})
			if err != nil {
				t.Fatalf("reloading %s: %v", again, err)
			}
			b2, _ := r2.Blueprint("a")
			if b2.Retry != b.Retry || b2.RetryTemplate != b.RetryTemplate || b2.RefusalPatterns[0].String() != "(?i)^no thanks" {
				t.Errorf("round trip lost fields: %s", again)
			}
		})
	}
}
