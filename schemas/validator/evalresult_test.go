package validator

import (
	"reflect"
	"testing"

	"github.com/kaptinlin/jsonschema"
)

// TestResultSchemaLayout fails when kaptinlin's EvaluationResult no longer
// has the unexported field resultSchema reads (a *Schema named schema), or
// when what resultSchema reads there is not the node that produced the
// result: after an upgrade that moves it, violations would silently lose
// their expected values.
func TestResultSchemaLayout(t *testing.T) {
	typ := reflect.TypeFor[jsonschema.EvaluationResult]()
	f, ok := typ.FieldByName("schema")
	if !ok {
		t.Fatalf("%v has no field schema: update resultSchema (evalresult.go)", typ)
	}
	if f.Type != reflect.TypeFor[*jsonschema.Schema]() || f.IsExported() {
		t.Fatalf("%v.schema is %v (exported %v), want an unexported *jsonschema.Schema: update resultSchema", typ, f.Type, f.IsExported())
	}
	if resultSchemaOffset != int(f.Offset) {
		t.Fatalf("resultSchemaOffset = %d, want %d", resultSchemaOffset, f.Offset)
	}

	compiled, err := newCompiler().Compile([]byte(`{"properties": {"a": {"enum": [1, 2]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	res := compiled.Validate(map[string]any{"a": 3})
	if got := resultSchema(res); got != compiled {
		t.Fatalf("resultSchema(root result) = %p, want the root %p", got, compiled)
	}
	var child *jsonschema.Schema
	for _, d := range res.Details {
		if d.InstanceLocation == "/a" {
			child = resultSchema(d)
		}
	}
	if want := (*compiled.Properties)["a"]; child != want {
		t.Fatalf("resultSchema(result at /a) = %p, want the node of a %p", child, want)
	}
	if resultSchema(nil) != nil {
		t.Fatal("resultSchema(nil) is not nil")
	}
}
