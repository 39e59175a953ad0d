package validator

import (
	"reflect"
	"unsafe"

	"github.com/kaptinlin/jsonschema"
)

// resultSchemaOffset is the offset of EvaluationResult's unexported schema
// field, or -1 when the field is not there.
//
// This is the one place agentgate reads kaptinlin's internals.
// kaptinlin/jsonschema v0.9.10 still keeps the schema node that produced a
// result only in that unexported field (result.go, EvaluationResult), with
// no accessor, and its error parameters do not carry the keyword values we
// report as "expected" (enum values are flattened with %v, required names
// quoted and joined). So we read the field. The layout is checked here,
// once; if a later version moves or retypes it, resultSchema returns nil
// and the violations lose their expected values instead of the process
// crashing, and TestResultSchemaLayout fails, so an upgrade cannot lose
// them unnoticed.
var resultSchemaOffset = func() int {
	f, ok := reflect.TypeFor[jsonschema.EvaluationResult]().FieldByName("schema")
	if !ok || f.Type != reflect.TypeFor[*jsonschema.Schema]() {
		return -1
	}
	return int(f.Offset)
}()

// resultSchema returns the schema node that produced r, or nil.
func resultSchema(r *jsonschema.EvaluationResult) *jsonschema.Schema {
	if r == nil || resultSchemaOffset < 0 {
		return nil
	}
	return *(**jsonschema.Schema)(unsafe.Add(unsafe.Pointer(r), resultSchemaOffset))
}
