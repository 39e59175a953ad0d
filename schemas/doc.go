// Package schemas owns agentgate's configuration registry: it loads a
// configuration folder (DIR/schemas/*.schema.json; DIR/schemas/*.jtd.json,
// JSON Type Definition per RFC 8927, validated by package jtd; and
// DIR/agents/*.json), compiles every JSON Schema once with one shared
// compiler and every business rule once (package rules), caches the
// compiled schemas by $id, holds the agent blueprints, and maps the
// validator's results to the contract's violations (section 4 of the wire
// contract).
//
// Loading is strict: every problem found (a missing or relative $id, an $id
// whose last path segment is not a semantic version, a $schema other than
// draft-07 or draft 2020-12, a duplicate $id, a document that fails its
// meta-schema, an unresolved $ref, a blueprint with an unknown field or an
// unknown output schema, an x-aliases entry that collides...) is reported
// with the file it came from, each a [FileError], all of them joined in the
// one error that [Load] returns. Nothing is ever fetched over the network:
// $ref resolves only within the registry and the embedded draft 2020-12 and
// draft-07 meta-schemas.
//
// Formats the specification defines are asserted; formats it does not
// define are ignored, as the specification requires. "pattern" is
// ECMA-262: a pattern Go's RE2 cannot run (lookahead, lookbehind,
// backreferences) is matched by an ECMAScript engine within
// PatternMatchTimeout. Where kaptinlin/jsonschema v0.9.10 is wrong and this
// layer can correct it (several format validators, the empty enum, the
// draft 2020-12 and draft-07 meta-schemas as $ref targets, ...), it does; the
// code says where, and docs/schemas.md lists it with the figures of the
// official test suite.
//
// The validator lives behind one seam, package [validator]: the only
// package of the module that imports kaptinlin/jsonschema. It builds the
// compiler (the formats, the ECMA-262 patterns, the offline meta-schemas,
// the loader of the registry's own documents), checks a document against
// its meta-schema, compiles, validates and maps kaptinlin's results to the
// contract's violations. This package keeps what works on plain decoded
// documents: loading the files, $ids and versions, blueprints, the load
// limits, lint, the normalizer's model and Resolve. The validator's
// sentinels (ErrMetaSchema, ErrCompile, ErrUnresolvedRef, ...) are this
// package's under the same names.
//
// [Lint] runs the checks of Load and adds warnings about likely mistakes;
// package compat classifies the changes between two versions of a schema.
//
// A [Registry] is immutable once loaded and safe for concurrent use;
// [Schema.Validate] may be called from many goroutines.
//
// The package knows nothing of NATS, Watermill or HTTP: it must never
// import them, the pipeline (handlers) or the bus wiring, nor
// kaptinlin/jsonschema but through package validator.
package schemas
