package jtd

import "errors"

var (
	// ErrInvalidSchema is returned by Parse for a document that is not a
	// correct JTD schema per RFC 8927 section 2; the message names the
	// location (a JSON Pointer into the schema) and the reason.
	ErrInvalidSchema = errors.New("invalid JSON Type Definition schema")

	// ErrMaxDepth is returned by Validate when following "ref" nests deeper
	// than ValidateOptions.MaxDepth (RFC 8927 section 3.1: a schema such as
	// {"definitions": {"a": {"ref": "a"}}, "ref": "a"} never terminates).
	ErrMaxDepth = errors.New("max depth exceeded while following ref")
)
