package schemas

import (
	"errors"
	"fmt"
	"io/fs"
	"unicode/utf8"
	"unsafe"

	"github.com/agentgate/agentgate/schemas/validator"
)

// suiteID is the registry key of a suite schema that has no $id.
const suiteID = "urn:agentgate:suite"

// CompileStandalone compiles one schema document (an object or a boolean)
// through the registry's own compile path (the compiler of every registry,
// the meta-schema check, the corrections, the compile that fails on an
// unresolved $ref, the registry's preparation) but without the
// rules for configuration files: no $id, semantic version or object root
// is required. remotes maps absolute URLs (no fragment) to documents that
// $ref may reach, served from memory by the "http" loader before the
// embedded meta-schemas: nothing is fetched. It is the entry point of the JSON Schema test suite.
func CompileStandalone(raw []byte, remotes map[string][]byte) (*Schema, error) {
	if !utf8.Valid(raw) {
		return nil, fmt.Errorf("%w: not valid UTF-8", ErrInvalidJSON)
	}
	doc, err := decodeAny(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidJSON, err)
	}
	reg := &Registry{
		compiler:   validator.New(validator.Options{Remotes: remotes}),
		schemas:    make(map[string]*Schema),
		blueprints: make(map[string]*Blueprint),
		owners:     make(map[unsafe.Pointer]*Schema),
	}
	draft, src, err := checkDoc(reg.compiler, raw, doc)
	if err != nil {
		return nil, err
	}
	compiled, err := reg.compiler.Compile(src, "")
	if err != nil {
		return nil, err
	}
	obj, _ := doc.(map[string]any)
	s := &Schema{ID: cmpOr(compiled.ID(), suiteID), Draft: draft, Source: "suite", Raw: raw, Doc: obj, compiled: compiled}
	reg.schemas[s.ID] = s
	reg.prepare()
	return s, nil
}

// ValidateTranslation validates doc against the JSON Schema translation of
// a JTD schema (what kaptinlin compiled), not with RFC 8927's semantics.
func ValidateTranslation(s *Schema, doc any) bool {
	return s.compiled.Valid(doc)
}

// LoadFSWithRemotes is LoadFS with remotes (absolute URLs without fragment
// to documents) served from memory to every compiler of the registry, the
// compilers of inline schemas included: the inline path of the JSON Schema
// test suite. Nothing is fetched.
func LoadFSWithRemotes(fsys fs.FS, remotes map[string][]byte) (*Registry, error) {
	l := newLoader(fsys, "")
	l.remotes = remotes
	l.reg.compiler = l.compiler()
	l.run()
	if len(l.errs) > 0 {
		return nil, errors.Join(l.errs...)
	}
	l.reg.prepare()
	return l.reg, nil
}
