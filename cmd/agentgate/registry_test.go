package main

import (
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/natstest"
)

func thingSchema(version, required string) string {
	return `{"$id": "https://t.dev/thing/` + version + `", "title": "Thing", "description": "A thing.", "type": "object",
	"properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "required": [` + required + `]}`
}

func TestRegistryCommands(t *testing.T) {
	srv := natstest.Server(t)
	g, _ := natstest.Gateway(t, srv, examples)
	api := []string{"--api", "http://" + g.HTTPAddr()}
	dir := writeConfig(t, map[string]string{
		"v1/schemas/thing.schema.json": thingSchema("1.0.0", `"a"`),
		"v1/agents/worker.json":        `{"name": "worker", "output_schema": "https://t.dev/thing/1.0.0", "system_prompt": "Answer."}`,
		"breaking.schema.json":         thingSchema("1.1.0", `"a", "b"`),
		"compatible.schema.json":       thingSchema("1.1.0", ``),
	})
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string
	}{
		{"push the examples (seeded already)", []string{"schema", "push", examples}, 0, []string{"pr-review.schema.json: unchanged", "pr-reviewer.json: applied"}},
		{"push a folder", []string{"schema", "push", dir + "/v1"}, 0, []string{"thing.schema.json: registered", "worker.json: applied"}},
		{"compat breaking", []string{"schema", "compat", "--json", dir + "/breaking.schema.json"}, 1, []string{`"compatible": false`, `"keyword": "required"`}},
		{"compat compatible", []string{"schema", "compat", dir + "/compatible.schema.json"}, 0, []string{"1.1.0 would be registered"}},
		{"push breaking", []string{"schema", "push", dir + "/breaking.schema.json"}, 1, []string{"refused", "without a major version bump", "$.b required: optional member made required"}},
		{"push breaking --json", []string{"schema", "push", "--json", dir + "/breaking.schema.json"}, 1, []string{`"status": "refused"`, `"error": "incompatible"`}},
		{"versions", []string{"schema", "versions", "https://t.dev/thing"}, 0, []string{"compatibility BACKWARD", "1.0.0", "api"}},
		{"versions --json", []string{"schema", "versions", "--json", "https://t.dev/thing"}, 0, []string{`"version": "1.0.0"`}},
		{"get by id", []string{"schema", "get", "https://t.dev/thing/1.0.0"}, 0, []string{`"$id": "https://t.dev/thing/1.0.0"`}},
		{"get unknown", []string{"schema", "get", "https://t.dev/thing/7.0.0"}, 1, nil},
		{"agent get", []string{"agent", "get", "worker"}, 0, []string{`"output_schema": "https://t.dev/thing/1.0.0"`}},
		{"agent apply", []string{"agent", "apply", dir + "/v1/agents/worker.json"}, 0, []string{"agent worker updated"}},
		{"agent delete", []string{"agent", "delete", "worker"}, 0, []string{"agent worker deleted"}},
		{"agent delete again --json", []string{"agent", "delete", "--json", "worker"}, 1, []string{`"error": "not_found"`}},
		{"missing file", []string{"schema", "push", dir + "/nope.json"}, 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := run(t, "", append(tt.args, api...)...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; output:\n%s", code, tt.wantCode, out)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
	if _, code := run(t, "", "schema", "versions", "x", "--api", "http://127.0.0.1:1"); code != exitUnreachable {
		t.Fatalf("unreachable gateway: exit %d, want %d", code, exitUnreachable)
	}
}
