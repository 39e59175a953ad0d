// Package schemas must never import the bus; it reaches the validator
// through its seam, and breaks the seam on purpose by importing
// kaptinlin/jsonschema itself.
package schemas

import (
	"github.com/kaptinlin/jsonschema"

	"example.com/violation/schemas/validator"
)

// Compilers are two names for one type.
var Compilers = []any{jsonschema.Compiler{}, validator.Compiler{}}
