// Package jsontext recovers JSON documents from the text an agent wrote
// (contract section 3.1): it finds the candidate documents of a payload
// (the whole payload, code fences, prose around or beside them, tool-call
// wrappers, JSON strings holding JSON) in contract order, and repairs the
// syntax of a broken or truncated document, saying what each repair did
// and which repairs lost or moved content (Loss).
//
// It works on text alone: it knows no schema, no blueprint and no verdict.
// Whether a lossy repair is accepted, and which candidate wins, is the
// pipeline's decision (package handlers). It must never import handlers,
// the normalizer or the bus; it imports only contract, for the shapes of
// normalizations and violations.
package jsontext
