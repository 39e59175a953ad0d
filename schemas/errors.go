package schemas

import (
	"errors"

	"github.com/agentgate/agentgate/schemas/validator"
)

// FileError is a problem found in one configuration file. Load's error
// joins one FileError per problem; its message is the file's path, ": ",
// and the reason, which wraps one of the sentinels below.
type FileError struct {
	File string // path of the file, as given to Load (or in the fs.FS of LoadFS)
	Err  error
}

// Error returns "<file>: <reason>".
func (e *FileError) Error() string { return e.File + ": " + e.Err.Error() }

// Unwrap returns the reason.
func (e *FileError) Unwrap() error { return e.Err }

// The sentinels of the validator's checks (ErrDuplicateID, ErrMetaSchema,
// ErrCompile, ErrUnsupportedPattern, ErrUnresolvedRef, ErrExternalRef) are
// package validator's own values, so that errors.Is holds on what Load
// returns with either package's name.

var (
	// ErrConfigDir is returned by Load when the configuration folder cannot
	// be read, or holds neither a schemas/ nor an agents/ folder.
	ErrConfigDir = errors.New("bad configuration folder")

	// ErrInvalidJSON is returned for a file that is not valid UTF-8, not a
	// single JSON document, or not a JSON object.
	ErrInvalidJSON = errors.New("invalid JSON")

	// ErrNoID is returned for a schema without an absolute $id (a URI with a
	// scheme and no fragment), or with an $id in the prefix reserved for
	// inline blueprint schemas.
	ErrNoID = errors.New("missing or invalid $id")

	// ErrBadVersion is returned for a schema whose $id does not end in a
	// semantic version (".../pr-review/1.0.0").
	ErrBadVersion = errors.New("$id does not end in a semantic version")

	// ErrUnsupportedDraft is returned for a $schema other than draft-07 or
	// draft 2020-12.
	ErrUnsupportedDraft = errors.New("unsupported $schema")

	// ErrDuplicateID is returned when two schema files declare the same $id.
	ErrDuplicateID = validator.ErrDuplicateID

	// ErrMetaSchema is returned for a schema that does not conform to its
	// meta-schema (a keyword with a wrong value, such as "type": "strnig").
	ErrMetaSchema = validator.ErrMetaSchema

	// ErrCompile is returned for a schema the validator cannot compile (for
	// example an invalid regular expression).
	ErrCompile = validator.ErrCompile

	// ErrUnsupportedPattern is returned for a schema with a regular
	// expression the validator cannot run: a patternProperties name that
	// Go's RE2 engine cannot compile (lookaround, backreferences). A
	// "pattern" keyword may use any ECMA-262 feature.
	ErrUnsupportedPattern = validator.ErrUnsupportedPattern

	// ErrUnresolvedRef is returned for a schema with a $ref that resolves to
	// nothing in the registry. Nothing is ever fetched over the network.
	ErrUnresolvedRef = validator.ErrUnresolvedRef

	// ErrExternalRef is returned, with ErrUnresolvedRef, for a $ref to a
	// document that is not in the registry (a URL no schema file declares
	// as its $id). Nothing is ever fetched over the network.
	ErrExternalRef = validator.ErrExternalRef

	// ErrBadAlias is returned for an "x-aliases" that the normalizer could
	// not apply unambiguously: an entry that is the name of a property of
	// the same object, the property's own name, an alias another property
	// of the object also claims, or not a string.
	ErrBadAlias = errors.New("invalid x-aliases")

	// ErrBadSensitive is returned for an "x-sensitive" that is not a
	// boolean.
	ErrBadSensitive = errors.New("invalid x-sensitive")

	// ErrUnknownSchema is returned for a blueprint whose output_schema names
	// an $id that no schema file declares.
	ErrUnknownSchema = errors.New("unknown schema")

	// ErrBadBlueprint is returned for a blueprint that is not valid: an
	// unknown or duplicated field, a field of the wrong type, a bad name, an
	// extra_fields other than strip or reject, a negative max_retries, an
	// inline schema that does not load.
	ErrBadBlueprint = errors.New("invalid blueprint")

	// ErrJTD is returned for a JSON Type Definition schema file
	// (schemas/*.jtd.json) that is not a correct schema per RFC 8927 (it
	// wraps jtd.ErrInvalidSchema, with the location and the reason).
	ErrJTD = errors.New("invalid JSON Type Definition schema")

	// ErrBadRules is returned for business rules (a blueprint's "rules", a
	// schema's "x-rules") that are not well formed, do not compile or
	// type-check, or whose estimated cost is over the limit; it wraps the
	// rules package's ErrBadRule, ErrCompile or ErrCostLimit.
	ErrBadRules = errors.New("invalid rules")

	// ErrDuplicateBlueprint is returned when two blueprint files declare the
	// same agent name.
	ErrDuplicateBlueprint = errors.New("duplicate blueprint name")

	// ErrSchemaLimit is returned for a schema over a load limit: its size,
	// its chain of $refs, or its estimated evaluation cost (see
	// MaxSchemaBytes, MaxRefDepth, MaxSchemaCost).
	ErrSchemaLimit = errors.New("schema over a load limit")

	// ErrRefCycle is returned for a schema whose references loop without
	// consuming input ("$ref": "#", or a → b → a through $ref, allOf,
	// anyOf, ...): kaptinlin would accept every document.
	ErrRefCycle = errors.New("reference cycle that consumes no input")
)
