package validator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/kaptinlin/jsonschema"

	"github.com/agentgate/agentgate/contract"
)

// Options configure a [Compiler].
type Options struct {
	// Remotes maps absolute URLs (no fragment) to documents that $ref may
	// reach, served from memory by the "http" loader before the embedded
	// meta-schemas: nothing is fetched. Nil for none; only the tests of the
	// JSON Schema test suite set it.
	Remotes map[string][]byte
}

// Compiler checks and compiles schema documents, as every registry does:
// formats asserted (with the corrections of formats.go), "pattern" read as
// ECMA-262, no network loaders, the draft 2020-12 and draft-07
// meta-schemas served from the binary. A Compiler is not safe for
// concurrent use; the Schemas it compiles are.
type Compiler struct {
	c *jsonschema.Compiler
}

// New returns a Compiler.
func New(opts Options) *Compiler {
	c := newCompiler()
	if opts.Remotes != nil {
		c.RegisterLoader("http", remoteLoader(opts.Remotes))
	}
	return &Compiler{c: c}
}

// newCompiler returns a compiler as every registry uses: formats asserted,
// no network loaders, the draft 2020-12 and draft-07 meta-schemas served
// from the binary.
func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.SetAssertFormat(true)
	// kaptinlin pre-registers http and https loaders that fetch $ref targets
	// at compile time (compiler.go, setupLoaders): replace them.
	c.RegisterLoader("https", offlineLoader)
	c.RegisterLoader("http", offlineLoader) // the draft-07 meta-schema
	setupFormats(c)
	return c
}

// remoteLoader serves remotes (absolute URLs without fragment) from
// memory, then the embedded meta-schemas: nothing is fetched.
func remoteLoader(remotes map[string][]byte) func(string) (io.ReadCloser, error) {
	return func(url string) (io.ReadCloser, error) {
		key, _, _ := strings.Cut(url, "#")
		if b, ok := remotes[key]; ok {
			return io.NopCloser(bytes.NewReader(b)), nil
		}
		return offlineLoader(url)
	}
}

// Source is a checked schema document as the validator compiles it: the
// corrected text (see correct) and the formats the corrections use, which
// must be registered on every compiler that compiles it.
type Source struct {
	raw     []byte
	formats map[string]*jsonschema.FormatDef
}

// Check is the check every schema takes, whether a schema file, an inline
// blueprint schema or a test of the JSON Schema test suite: the
// meta-schema its $schema names (a failure is a [*MetaSchemaError]), then
// the corrections of the validator's defects (see correct; a
// patternProperties name RE2 cannot run is ErrUnsupportedPattern). raw is
// the document's text, doc its decoding (encoding/json, UseNumber): an
// object, or a boolean for the test suite. It returns the source to
// compile.
func (c *Compiler) Check(raw []byte, doc any) (*Source, error) {
	res, err := c.c.ValidateSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMetaSchema, err)
	}
	if !res.IsValid() {
		return nil, &MetaSchemaError{Violations: violations(res, doc)}
	}
	fixed, formats, err := correct(doc)
	if err != nil {
		return nil, err
	}
	if fixed != nil {
		if raw, err = json.Marshal(fixed); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCompile, err)
		}
	}
	return &Source{raw: raw, formats: formats}, nil
}

// register registers src's formats on c.
func (src *Source) register(c *jsonschema.Compiler) {
	for name, f := range src.formats {
		c.RegisterFormat(name, f.Validate, f.Type)
	}
}

// Compile compiles src under id ("": the document's own $id, if any).
// Every $ref must resolve, through c's loaders (see [Compiler.Serve]): the
// validator fails closed. Errors wrap ErrUnresolvedRef (and
// ErrExternalRef), ErrDuplicateID or ErrCompile.
func (c *Compiler) Compile(src *Source, id string) (*Schema, error) {
	src.register(c.c)
	var ids []string
	if id != "" {
		ids = append(ids, id)
	}
	compiled, err := c.c.Compile(src.raw, ids...)
	if err != nil {
		return nil, compileError(err)
	}
	return &Schema{s: compiled}, nil
}

// CompileID compiles the document that c serves under id (see
// [Compiler.Serve]), with the errors of [Compiler.Compile].
func (c *Compiler) CompileID(id string) (*Schema, error) {
	compiled, err := c.c.Schema(id)
	if err != nil {
		return nil, compileError(err)
	}
	return &Schema{s: compiled}, nil
}

// Serve makes c load the documents of sources (by absolute URI, without
// fragment; less the URIs in exclude) when a $ref reaches them, before its
// own loaders (the meta-schemas, the remotes of [Options]), for http, https
// and every scheme of a key of sources. A document is loaded with the
// formats its corrections use, so that it compiles on any compiler as on
// the one that checked it. sources is read when a $ref is resolved, not
// when Serve is called. A URL that no loader serves fails the compile with
// ErrUnresolvedRef and ErrExternalRef.
func (c *Compiler) Serve(sources map[string]*Source, exclude map[string]bool) {
	schemes := map[string]bool{"http": true, "https": true}
	for id := range sources {
		if u, err := url.Parse(id); err == nil {
			schemes[u.Scheme] = true
		}
	}
	for scheme := range schemes {
		next := c.c.Loaders[scheme]
		c.c.RegisterLoader(scheme, func(uri string) (io.ReadCloser, error) {
			key, _, _ := strings.Cut(uri, "#")
			if src, ok := sources[key]; ok && !exclude[key] {
				src.register(c.c)
				return io.NopCloser(bytes.NewReader(src.raw)), nil
			}
			if next != nil {
				if r, err := next(uri); err == nil {
					return r, nil
				}
			}
			return nil, &outsideError{uri: key}
		})
	}
}

// Schema is one compiled schema. It is immutable and safe for concurrent
// use.
type Schema struct {
	s *jsonschema.Schema
}

// ID is the schema's root $id as the validator resolved it, "" when it
// has none.
func (s *Schema) ID() string { return s.s.ID }

// Validate validates an instance decoded with encoding/json and UseNumber
// (numbers are json.Number, objects map[string]any, arrays []any) and
// returns the violations (section 4 of the wire contract), sorted with
// contract.SortViolations; nil when the instance is valid.
func (s *Schema) Validate(doc any) []contract.Violation {
	res := s.s.Validate(doc)
	if res.IsValid() {
		return nil
	}
	return violations(res, doc)
}

// Valid reports whether doc is valid, without mapping the violations.
func (s *Schema) Valid(doc any) bool { return s.s.Validate(doc).IsValid() }
