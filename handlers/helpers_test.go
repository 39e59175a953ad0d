package handlers_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers/normalize"
)

// Helpers shared by the pipeline's tests. The stages' own tests (in
// jsontext and normalize) keep their copies: a test package cannot import
// another's helpers.

// compactJSON returns v as compact JSON (object members sorted).
func compactJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %#v: %v", v, err)
	}
	return string(b)
}

func opRepair(detail string) contract.Normalization {
	return contract.Normalization{Op: contract.OpRepair, Path: "$", Detail: detail}
}

func opLossy(path, detail string) contract.Normalization {
	return contract.Normalization{Op: contract.OpLossy, Path: path, Detail: detail}
}

func opRename(path, from, to string) contract.Normalization {
	return contract.Normalization{Op: contract.OpRename, Path: path, From: from, To: to}
}

func opDrop(path, from, to string) contract.Normalization {
	return contract.Normalization{Op: contract.OpDrop, Path: path, From: from, To: to}
}

func opStrip(path string) contract.Normalization {
	return contract.Normalization{Op: contract.OpStrip, Path: path}
}

func opCoerce(path, from, to, detail string) contract.Normalization {
	return contract.Normalization{Op: contract.OpCoerce, Path: path, From: from, To: to, Detail: detail}
}

func opNullRemoved(path string) contract.Normalization {
	return contract.Normalization{Op: contract.OpCoerce, Path: path, From: "null", Detail: "null in optional member removed"}
}

var stripAndCoerce = normalize.Options{ExtraFields: "strip", Coerce: true}

// localRefs resolves local JSON pointers ("#", "#/$defs/x",
// "#/definitions/x", "#/allOf/0") against one root schema; anything else is
// unresolvable. The real resolver is schemas.Schema.Resolve.
type localRefs struct{ root map[string]any }

func (r localRefs) Resolve(node map[string]any) map[string]any {
	ref, ok := node["$ref"].(string)
	if !ok {
		return node
	}
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	var cur any = r.root
	if ptr != "" {
		unescape := strings.NewReplacer("~1", "/", "~0", "~")
		for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
			tok = unescape.Replace(tok)
			switch c := cur.(type) {
			case map[string]any:
				cur = c[tok]
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(c) {
					return nil
				}
				cur = c[i]
			default:
				return nil
			}
		}
	}
	m, _ := cur.(map[string]any)
	return m
}

func decodeTestSchema(t *testing.T, text string) map[string]any {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		t.Fatalf("schema %s: %v", text, err)
	}
	return s
}

// decodeTestDoc decodes a document as Extract does (numbers as json.Number).
func decodeTestDoc(t *testing.T, text string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("doc %s: %v", text, err)
	}
	return v
}

func loadExampleSchema(t *testing.T, name string) map[string]any {
	t.Helper()
	return decodeTestSchema(t, string(readTestFile(t, filepath.Join("..", "examples", "schemas", name+".schema.json"))))
}

func readOutputFixture(t testing.TB, name string) []byte {
	t.Helper()
	return readTestFile(t, filepath.Join("testdata", "outputs", name))
}

func readTestFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return b
}

func formatNormalizations(ops []contract.Normalization) string {
	var b strings.Builder
	for _, op := range ops {
		line, _ := json.Marshal(op)
		fmt.Fprintf(&b, "  %s\n", line)
	}
	return b.String()
}
