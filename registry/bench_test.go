package registry_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentgate/agentgate/registry"
)

// BenchmarkCompile_examples is what a registry change costs a gateway: the
// whole bundled example registry compiled anew.
func BenchmarkCompile_examples(b *testing.B) {
	var schemaDocs, agentDocs [][]byte
	for dir, into := range map[string]*[][]byte{"../examples/schemas": &schemaDocs, "../examples/agents": &agentDocs} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, f := range files {
			doc, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			*into = append(*into, doc)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := registry.Compile(schemaDocs, agentDocs); err != nil {
			b.Fatal(err)
		}
	}
}
