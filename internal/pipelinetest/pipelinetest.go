// Package pipelinetest holds what the pipeline's tests share (handlers,
// handlers/jsontext, handlers/normalize): decoding schemas and documents as
// the pipeline does, a resolver of local $refs, the normalizations the
// tests expect, and the output fixtures, read from the module wherever the
// test runs.
//
// It is for tests only: no non-test file may import it, and it imports
// nothing of agentgate's but contract and internal/jsonx.
package pipelinetest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/internal/jsonx"
)

// CompactJSON returns v as compact JSON (object members sorted).
func CompactJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %#v: %v", v, err)
	}
	return string(b)
}

// The normalizations tests expect, one constructor per op.

func Repair(detail string) contract.Normalization {
	return contract.Normalization{Op: contract.OpRepair, Path: "$", Detail: detail}
}

func Lossy(path, detail string) contract.Normalization {
	return contract.Normalization{Op: contract.OpLossy, Path: path, Detail: detail}
}

func Rename(path, from, to string) contract.Normalization {
	return contract.Normalization{Op: contract.OpRename, Path: path, From: from, To: to}
}

func Drop(path, from, to string) contract.Normalization {
	return contract.Normalization{Op: contract.OpDrop, Path: path, From: from, To: to}
}

func Strip(path string) contract.Normalization {
	return contract.Normalization{Op: contract.OpStrip, Path: path}
}

func Coerce(path, from, to, detail string) contract.Normalization {
	return contract.Normalization{Op: contract.OpCoerce, Path: path, From: from, To: to, Detail: detail}
}

func NullRemoved(path string) contract.Normalization {
	return contract.Normalization{Op: contract.OpCoerce, Path: path, From: "null", Detail: "null in optional member removed"}
}

// FormatNormalizations writes ops one JSON line each, for failure output.
func FormatNormalizations(ops []contract.Normalization) string {
	var b strings.Builder
	for _, op := range ops {
		line, _ := json.Marshal(op)
		fmt.Fprintf(&b, "  %s\n", line)
	}
	return b.String()
}

// LocalRefs resolves local JSON pointers ("#", "#/$defs/x",
// "#/definitions/x", "#/allOf/0") against one root schema; anything else is
// unresolvable. The real resolver is schemas.Schema.Resolve.
type LocalRefs struct{ Root map[string]any }

// Resolve implements normalize.Resolver.
func (r LocalRefs) Resolve(node map[string]any) map[string]any {
	ref, ok := node["$ref"].(string)
	if !ok {
		return node
	}
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	v, ok := jsonx.Pointer(r.Root, ptr)
	if !ok {
		return nil
	}
	m, _ := v.(map[string]any)
	return m
}

// DecodeSchema decodes a schema document.
func DecodeSchema(t testing.TB, text string) map[string]any {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		t.Fatalf("schema %s: %v", text, err)
	}
	return s
}

// DecodeDoc decodes a document as extraction does (numbers as json.Number).
func DecodeDoc(t testing.TB, text string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("doc %s: %v", text, err)
	}
	return v
}

// ExampleSchema is the bundled examples/schemas/<name>.schema.json.
func ExampleSchema(t testing.TB, name string) map[string]any {
	t.Helper()
	return DecodeSchema(t, string(ReadFile(t, filepath.Join("examples", "schemas", name+".schema.json"))))
}

// OutputsDir is where the raw output fixtures are, from the module's root.
const OutputsDir = "handlers/testdata/outputs"

// OutputFixture is the raw output fixture name (a path below OutputsDir).
func OutputFixture(t testing.TB, name string) []byte {
	t.Helper()
	return ReadFile(t, filepath.Join(OutputsDir, name))
}

// OutputFixtures lists the raw output fixtures (golden files left out),
// as names for OutputFixture.
func OutputFixtures(t testing.TB) []string {
	t.Helper()
	dir := filepath.Join(Root(t), OutputsDir)
	files, err := filepath.Glob(filepath.Join(dir, "*", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no output fixtures in %s: %v", dir, err)
	}
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, ".golden.json") {
			continue
		}
		rel, _ := filepath.Rel(dir, f)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// ReadFile reads path: relative to the module's root, or absolute.
func ReadFile(t testing.TB, path string) []byte {
	t.Helper()
	full := path
	if !filepath.IsAbs(path) {
		full = filepath.Join(Root(t), path)
	}
	b, err := os.ReadFile(full)
	if err != nil {
		t.Fatalf("reading %s: %v", full, err)
	}
	return b
}

// Root is the module's root: the nearest directory above the test's that
// holds go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// JSONRepairCases is the jsonrepair corpus (docs/repair.md), in the shared
// folder beside the module: absent on a clone without it.
func JSONRepairCases(t testing.TB) string {
	t.Helper()
	return filepath.Join(filepath.Dir(Root(t)), "shared", "testdata", "jsonrepair", "jsonrepair_cases.json")
}

// AddFuzzSeeds adds as seeds the raw output fixtures, the inputs of the
// jsonrepair corpus when the shared folder is there, and a few shapes that
// have broken a repairer before.
func AddFuzzSeeds(f *testing.F) {
	f.Helper()
	files, _ := filepath.Glob(filepath.Join(Root(f), OutputsDir, "*", "*"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	if raw, err := os.ReadFile(JSONRepairCases(f)); err == nil {
		var file struct {
			Cases []struct {
				Input string `json:"input"`
			} `json:"cases"`
		}
		if json.Unmarshal(raw, &file) == nil {
			for _, c := range file.Cases {
				f.Add([]byte(c.Input))
			}
		}
	}
	for _, s := range []string{
		"", "{", "[", `"`, `{"a":`, "```json\n{'a': 1,}\n```", "<tool_call>\n{'name': 'x'", "\\\"a\\\"",
		`{"a": "b" "c"}`, `["(", "x") y"]`, `"a" + "b" + `, "callback({a: 1});", "1\n2\n3", "{\"a\": [1, 2, ...]}",
	} {
		f.Add([]byte(s))
	}
}
