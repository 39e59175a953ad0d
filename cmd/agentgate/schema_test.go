package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeConfig writes a configuration folder from file name to content.
func writeConfig(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const goodSchema = `{"$id": "https://t.dev/x/1.0.0", "title": "X", "description": "An x.", "type": "object",
	"additionalProperties": false, "properties": {"a": {"type": "string"}}}`

func TestSchemaLint(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string
		args     []string
		wantCode int
		wantOut  []string
	}{
		{"clean", map[string]string{"schemas/x.schema.json": goodSchema}, nil, 0,
			[]string{"schemas/x.schema.json: ok\n", "1 file: 0 errors, 0 warnings\n"}},
		{"warnings only", map[string]string{"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0"}`}, nil, 0,
			[]string{"schemas/x.schema.json:\n  warning: $: no description", "  warning: $: no title", "1 file: 0 errors, 2 warnings\n"}},
		{"warnings with --strict", map[string]string{"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0"}`}, []string{"--strict"}, 1, nil},
		{"errors", map[string]string{
			"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0", "title": "X", "description": "D", "properties": {"a": {"x-aliases": ["b"]}, "b": {}}}`,
			"agents/a.json":         `{"name": "a", "output_schema": "https://t.dev/none/1.0.0"}`,
		}, nil, 1, []string{
			"agents/a.json:\n  error: output_schema: unknown schema: no schema file declares $id \"https://t.dev/none/1.0.0\"",
			"schemas/x.schema.json:\n  error: invalid x-aliases: $.properties.a['x-aliases']: \"b\" collides with the property $.properties.b",
			"2 files: 2 errors, 0 warnings\n",
		}},
		{"json", map[string]string{"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0", "title": "X", "description": "D", "enum": ["A", "a"]}`},
			[]string{"--json"}, 0, []string{`"severity": "warning"`, `"path": "$.enum"`, `"errors": 0`, `"warnings": 1`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeConfig(t, tt.files)
			out, code := run(t, "", append(append([]string{"schema", "lint"}, tt.args...), dir)...)
			out = strings.ReplaceAll(out, dir+string(filepath.Separator), "")
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d; output:\n%s", code, tt.wantCode, out)
			}
			for _, want := range tt.wantOut {
				if !strings.Contains(out, want) {
					t.Errorf("output:\n%s\nwant it to contain %q", out, want)
				}
			}
			if slicesContain(tt.args, "--json") && !json.Valid([]byte(out)) {
				t.Errorf("--json output is not JSON:\n%s", out)
			}
		})
	}
	if _, code := run(t, "", "schema", "lint", "no-such-dir"); code != 2 {
		t.Errorf("missing folder: exit %d, want 2", code)
	}
	if out, code := run(t, "", "schema", "lint", examples); code != 0 {
		t.Errorf("examples: exit %d:\n%s", code, out)
	}
}

// TestSchemaLint_serveAgrees checks that the configuration lint refuses is
// the one the gateway refuses to start with, with the same message.
func TestSchemaLint_serveAgrees(t *testing.T) {
	dir := writeConfig(t, map[string]string{
		"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0", "properties": {"a": {"x-aliases": ["a"]}}}`,
	})
	out, code := run(t, "", "schema", "lint", dir)
	if code != 1 {
		t.Fatalf("lint: exit %d", code)
	}
	cmd := newRootCmd()
	cmd.SetArgs([]string{"serve", "--config", dir, "--nats-url", "nats://127.0.0.1:1", "--http", "127.0.0.1:0"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.ExecuteContext(context.Background())
	var ec exitCode
	if !errors.As(err, &ec) || ec.code != 2 {
		t.Fatalf("serve: error %v, want exit status 2", err)
	}
	const msg = `invalid x-aliases: $.properties.a['x-aliases']: "a" is the property's own name`
	if !strings.Contains(err.Error(), filepath.Join(dir, "schemas", "x.schema.json")+": "+msg) {
		t.Errorf("serve error %q does not hold the lint message", err)
	}
	if !strings.Contains(out, "  error: "+msg) {
		t.Errorf("lint output:\n%s", out)
	}
}

func TestSchemaDiff(t *testing.T) {
	const v1 = `{"$id": "https://t.dev/s/1.0.0", "type": "object", "properties": {"a": {"type": "string"}, "b": {"enum": ["x", "y"]}}}`
	tests := []struct {
		name     string
		newDoc   string
		args     []string
		wantCode int
		wantOut  []string
	}{
		{"compatible minor", `{"$id": "https://t.dev/s/1.1.0", "type": "object", "properties": {"a": {"type": "string"}, "b": {"enum": ["x", "y", "z"]}, "c": {}}}`,
			nil, 0, []string{"https://t.dev/s/1.0.0 -> https://t.dev/s/1.1.0\n", "compatible  $.b", `enum widened: "z" now allowed`, "2 changes: 0 breaking, 2 compatible\n"}},
		{"breaking minor", `{"$id": "https://t.dev/s/1.1.0", "type": "object", "required": ["a"], "properties": {"a": {"type": "string"}, "b": {"enum": ["x"]}}}`,
			nil, 1, []string{"breaking  $.a", "optional member made required", `enum narrowed: "y" no longer allowed`, "2 changes: 2 breaking, 0 compatible\n"}},
		{"breaking major", `{"$id": "https://t.dev/s/2.0.0", "type": "object", "properties": {"a": {"type": "string"}}}`,
			nil, 0, []string{"property removed", "1.0.0 -> 2.0.0 is a major bump"}},
		{"json", `{"$id": "https://t.dev/s/1.0.1", "type": "object", "additionalProperties": false, "properties": {"a": {"type": "string"}, "b": {"enum": ["x", "y"]}}}`,
			[]string{"--json"}, 1, []string{`"keyword": "additionalProperties"`, `"breaking": true`, `"major_bump": false`, `"ok": false`}},
		{"no change", v1, nil, 0, []string{"0 changes: 0 breaking, 0 compatible\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeConfig(t, map[string]string{"old.json": v1, "new.json": tt.newDoc})
			args := append(append([]string{"schema", "diff"}, tt.args...), filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json"))
			out, code := run(t, "", args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d; output:\n%s", code, tt.wantCode, out)
			}
			for _, want := range tt.wantOut {
				if !strings.Contains(out, want) {
					t.Errorf("output:\n%s\nwant it to contain %q", out, want)
				}
			}
		})
	}
	dir := writeConfig(t, map[string]string{"bad.json": `[1]`, "ok.json": v1})
	if _, code := run(t, "", "schema", "diff", filepath.Join(dir, "bad.json"), filepath.Join(dir, "ok.json")); code != 2 {
		t.Errorf("not a schema: exit %d, want 2", code)
	}
	if _, code := run(t, "", "schema", "diff", filepath.Join(dir, "missing.json"), filepath.Join(dir, "ok.json")); code != 2 {
		t.Errorf("missing file: exit %d, want 2", code)
	}
}

func slicesContain(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
