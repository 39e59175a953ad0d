package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSchemaExport(t *testing.T) {
	out, code := run(t, "", "schema", "export", "--provider", "openai", "pr-reviewer")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if doc["provider"] != "openai" || doc["strict"] != true || doc["agent"] != "pr-reviewer" || doc["request"] == nil {
		t.Errorf("export = %s", out)
	}
	recursive := `{"$id": "https://t.dev/tree/1.0.0", "title": "T", "description": "A tree.", "type": "object",
		"additionalProperties": false, "required": ["children"], "properties": {"children": {"type": "array", "items": {"$ref": "#"}}}}`
	dir := writeConfig(t, map[string]string{
		"schemas/tree.schema.json": recursive,
		"agents/t.json":            `{"name": "t", "output_schema": "https://t.dev/tree/1.0.0", "system_prompt": ""}`,
	})
	if out, code := run(t, "", "schema", "export", "--provider", "anthropic", "--config", dir, "t"); code != 1 || !strings.Contains(out, "recursive schemas are not supported") {
		t.Errorf("recursive schema for anthropic: exit %d: %s", code, out)
	}
	if out, code := run(t, "", "schema", "export", "--provider", "openai", "--config", dir, "--schema-only", "t"); code != 0 || !strings.Contains(out, `"$ref": "#"`) {
		t.Errorf("recursive schema for openai: exit %d: %s", code, out)
	}
	if _, code := run(t, "", "schema", "export", "--provider", "gemini", "pr-reviewer"); code != 2 {
		t.Errorf("unknown provider: exit %d", code)
	}
	if _, code := run(t, "", "schema", "export", "--provider", "openai", "nobody"); code != 2 {
		t.Errorf("unknown agent: exit %d", code)
	}

	out, code = run(t, "", "schema", "lint", "--provider", "anthropic", dir)
	if code != 0 || !strings.Contains(out, "t: $ref unsupported for anthropic: recursive schemas are not supported") {
		t.Errorf("lint --provider: exit %d: %s", code, out)
	}
	if _, code := run(t, "", "schema", "lint", "--provider", "gemini", dir); code != 2 {
		t.Errorf("lint --provider gemini: exit %d", code)
	}
}
