package schemas

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkCheckAcross measures the registry-wide limit pass alone (graph,
// cycle search, costs from every root) over files documents that each
// reference, through allOf, one shared schema of 1,000 object properties
// (about 4,000 subschemas) and the file before them. Run with
// -benchtime=20x.
func BenchmarkCheckAcross(b *testing.B) {
	props := make([]string, 1000)
	for i := range props {
		props[i] = fmt.Sprintf(`"p%d": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}`, i)
	}
	shared, err := decodeObject([]byte(`{"type": "object", "properties": {` + strings.Join(props, ", ") + `}}`))
	if err != nil {
		b.Fatal(err)
	}
	for _, files := range []int{10, 200} {
		loaded := []*Schema{{ID: "https://bench.test/shared/1.0.0", Doc: shared}}
		for i := range files {
			prev := "https://bench.test/shared/1.0.0"
			if i > 0 && i%8 != 0 {
				prev = fmt.Sprintf("https://bench.test/f%d/1.0.0", i-1)
			}
			doc, err := decodeObject(fmt.Appendf(nil, `{"allOf": [{"$ref": "https://bench.test/shared/1.0.0"}, {"$ref": %q}], "properties": {"x": {"type": "string"}}}`, prev))
			if err != nil {
				b.Fatal(err)
			}
			loaded = append(loaded, &Schema{ID: fmt.Sprintf("https://bench.test/f%d/1.0.0", i), Doc: doc})
		}
		b.Run(fmt.Sprintf("%dfiles", files), func(b *testing.B) {
			for b.Loop() {
				l := newLoader(nil, "")
				l.checkAcross(loaded)
				if len(l.errs) > 0 {
					b.Fatal(l.errs)
				}
			}
		})
	}
}
