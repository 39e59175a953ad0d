package schemas_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/schemas"
)

// wideSchema is a schema of n object properties, each with a few typed
// members: the shape of a large real-world output schema.
func wideSchema(n int) string {
	props := make([]string, n)
	for i := range props {
		props[i] = fmt.Sprintf(`"p%d": {"type": "object", "description": "member %d", "required": ["a"], "properties": {"a": {"type": "string", "minLength": 1}, "b": {"type": "integer", "minimum": 0}, "c": {"enum": ["x", "y", "z"]}}}`, i, i)
	}
	return `"type": "object", "properties": {` + strings.Join(props, ", ") + `}`
}

// BenchmarkLoad_memoryPerSchemaByte reports what loading a schema costs
// per byte of schema: allocated in all (alloc-B/schema-B) and still held
// once loaded (heap-B/schema-B). Run with -benchtime=3x.
func BenchmarkLoad_memoryPerSchemaByte(b *testing.B) {
	for _, n := range []int{100, 1000} {
		fsys := schemaFS(map[string]string{"wide": wideSchema(n)})
		size := len(fsys["schemas/wide.schema.json"].Data)
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			var before, after runtime.MemStats
			var held uint64
			var regs []*schemas.Registry
			runtime.GC()
			runtime.ReadMemStats(&before)
			for b.Loop() {
				var m0, m1 runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&m0)
				reg, err := schemas.LoadFS(fsys)
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				runtime.ReadMemStats(&m1)
				held += m1.HeapAlloc - min(m0.HeapAlloc, m1.HeapAlloc)
				regs = append(regs, reg)
			}
			runtime.ReadMemStats(&after)
			runs := float64(len(regs))
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/runs/float64(size), "alloc-B/schema-B")
			b.ReportMetric(float64(held)/runs/float64(size), "heap-B/schema-B")
			runtime.KeepAlive(regs)
		})
	}
}
