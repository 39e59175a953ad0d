// Package validator is the one seam to the JSON Schema validator: it
// must never import schemas, and may import kaptinlin/jsonschema.
package validator

import "github.com/kaptinlin/jsonschema"

// Compiler compiles.
type Compiler = jsonschema.Compiler
