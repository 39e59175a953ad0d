package validator

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kaptinlin/jsonschema"

	"github.com/agentgate/agentgate/contract"
)

// The validator's errors. Package schemas exports the same values under
// the same names (schemas.ErrMetaSchema is ErrMetaSchema, ...), so that
// errors.Is holds on what schemas.Load returns whichever package a caller
// names.
var (
	// ErrMetaSchema is returned for a schema that does not conform to its
	// meta-schema (a keyword with a wrong value, such as "type": "strnig").
	ErrMetaSchema = errors.New("schema does not conform to its meta-schema")

	// ErrCompile is returned for a schema the validator cannot compile (for
	// example an invalid regular expression).
	ErrCompile = errors.New("schema does not compile")

	// ErrUnsupportedPattern is returned for a schema with a regular
	// expression the validator cannot run: a patternProperties name that
	// Go's RE2 engine cannot compile (lookaround, backreferences). A
	// "pattern" keyword may use any ECMA-262 feature.
	ErrUnsupportedPattern = errors.New("unsupported pattern")

	// ErrUnresolvedRef is returned for a schema with a $ref that resolves to
	// nothing the compiler serves. Nothing is ever fetched over the network.
	ErrUnresolvedRef = errors.New("unresolved $ref")

	// ErrExternalRef is returned, with ErrUnresolvedRef, for a $ref to a
	// document the compiler does not serve (see [Compiler.Serve]).
	ErrExternalRef = errors.New("$ref outside the registry")

	// ErrDuplicateID is returned, when compiling, for a resource URI that
	// two documents define.
	ErrDuplicateID = errors.New("duplicate $id")
)

// maxMetaViolations bounds the meta-schema violations quoted in an error.
const maxMetaViolations = 5

// MetaSchemaError is the error of [Compiler.Check] for a document that
// does not conform to its meta-schema. It wraps ErrMetaSchema.
type MetaSchemaError struct {
	// Violations are the meta-schema's violations, sorted, their paths
	// in the schema document.
	Violations []contract.Violation
}

// Error returns ErrMetaSchema's text and the Summary.
func (e *MetaSchemaError) Error() string {
	return fmt.Sprintf("%v: %s", ErrMetaSchema, e.Summary())
}

// Unwrap returns ErrMetaSchema.
func (e *MetaSchemaError) Unwrap() error { return ErrMetaSchema }

// Summary quotes the first violations ("path: message", "; "-separated)
// and counts the others.
func (e *MetaSchemaError) Summary() string {
	msgs := make([]string, 0, maxMetaViolations)
	for i, v := range e.Violations {
		if i == maxMetaViolations {
			msgs = append(msgs, fmt.Sprintf("and %d more", len(e.Violations)-i))
			break
		}
		msgs = append(msgs, v.Path+": "+v.Message)
	}
	return strings.Join(msgs, "; ")
}

// outsideError is the error of a $ref to a document outside the registry.
type outsideError struct{ uri string }

func (e *outsideError) Error() string {
	return fmt.Sprintf("%v: %q (refs resolve only within the registry; nothing is fetched)", ErrExternalRef, e.uri)
}

func (e *outsideError) Unwrap() error { return ErrExternalRef }

// compileError maps the validator's compile error to the package's
// sentinels: ErrUnresolvedRef (with ErrExternalRef for a document outside
// the registry), ErrDuplicateID for a resource URI defined twice, else
// ErrCompile.
func compileError(err error) error {
	var outside *outsideError
	switch {
	case errors.As(err, &outside):
		return fmt.Errorf("%w: %w", ErrUnresolvedRef, outside)
	case errors.Is(err, jsonschema.ErrNoLoaderRegistered):
		// A $ref to a URI scheme no registry document uses.
		return fmt.Errorf("%w: %w: %w", ErrUnresolvedRef, ErrExternalRef, err)
	case errors.Is(err, jsonschema.ErrReferenceResolution):
		return fmt.Errorf("%w: %w", ErrUnresolvedRef, err)
	case errors.Is(err, jsonschema.ErrSchemaConflict):
		return fmt.Errorf("%w: %w", ErrDuplicateID, err)
	}
	return fmt.Errorf("%w: %w", ErrCompile, err)
}
