// Package validator is agentgate's one seam to the JSON Schema validator,
// github.com/kaptinlin/jsonschema v0.9.10: no other package of the module
// imports it (internal/depguard holds that wall). It owns the compiler
// every registry uses: the formats it asserts and those whose validators
// it corrects (formats.go, formats_uri.go), "pattern" read as ECMA-262 and
// routed to an ECMAScript engine, within [PatternMatchTimeout], when Go's
// RE2 cannot run it (pattern.go, ecma.go), the embedded draft 2020-12 and
// draft-07 meta-schemas with a loader that never fetches (metaschema.go),
// and a loader serving the registry's own documents ([Compiler.Serve]).
// It checks a document against its meta-schema ([Compiler.Check]),
// compiles it ([Compiler.Compile]), validates instances ([Schema.Validate])
// and translates the validator's results into the contract's violations
// (violations.go, section 4 of the wire contract), reading the one
// unexported field of kaptinlin's it needs through unsafe (evalresult.go,
// whose layout TestResultSchemaLayout checks).
//
// Where kaptinlin is wrong and this layer can correct it, it does; the
// code says where, and docs/schemas.md lists it with the figures of the
// official test suite.
//
// Its errors wrap the sentinels of errors.go; package schemas exports the
// same values. It works on documents already decoded and checked by its
// caller: loading files, $id and versions, blueprints and the registry are
// package schemas'. It must never import schemas, the pipeline (handlers)
// or the bus (NATS, Watermill, the router).
package validator
