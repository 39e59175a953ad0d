package schemas

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/kaptinlin/jsonschema"
)

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

// compiler returns a fresh compiler as newCompiler does, serving l.remotes
// when set.
func (l *loader) compiler() *jsonschema.Compiler {
	c := newCompiler()
	if l.remotes != nil {
		c.RegisterLoader("http", remoteLoader(l.remotes))
	}
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

// serveRegistry makes c load the registry's schema files (l.sources, less
// the $ids in exclude) when a $ref reaches them, before its own loaders
// (the meta-schemas, the test suite's remotes), for http, https and every
// scheme of a file's $id. A file is loaded with the formats its
// corrections use, so that it compiles on any compiler as on the
// registry's. A URL that no loader serves fails with an *outsideError.
func (l *loader) serveRegistry(c *jsonschema.Compiler, exclude map[string]bool) {
	schemes := map[string]bool{"http": true, "https": true}
	for id := range l.sources {
		if u, err := url.Parse(id); err == nil {
			schemes[u.Scheme] = true
		}
	}
	for scheme := range schemes {
		next := c.Loaders[scheme]
		c.RegisterLoader(scheme, func(uri string) (io.ReadCloser, error) {
			key, _, _ := strings.Cut(uri, "#")
			if src, ok := l.sources[key]; ok && !exclude[key] {
				src.register(c)
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

// outsideError is the error of a $ref to a document outside the registry.
type outsideError struct{ uri string }

func (e *outsideError) Error() string {
	return fmt.Sprintf("%v: %q (refs resolve only within the registry; nothing is fetched)", ErrExternalRef, e.uri)
}

func (e *outsideError) Unwrap() error { return ErrExternalRef }

// inlineCompiler returns the compiler of an inline schema that declares
// its own $id: a fresh one serving every schema file of the registry
// except those whose $id the inline document declares itself, so that its
// $id, $anchors and $dynamicAnchors resolve within it as the specification
// says, without colliding with the registry or with another inline schema
// of the same $id.
func (l *loader) inlineCompiler(doc map[string]any) *jsonschema.Compiler {
	c := l.compiler()
	l.serveRegistry(c, declaredIDs(doc))
	return c
}

// declaredIDs is every $id doc declares, resolved against the $ids around
// it, without fragment.
func declaredIDs(doc map[string]any) map[string]bool {
	out := make(map[string]bool)
	var walk func(v any, base *url.URL)
	walk = func(v any, base *url.URL) {
		switch t := v.(type) {
		case map[string]any:
			if id, ok := t["$id"].(string); ok {
				if u, err := url.Parse(id); err == nil {
					if base != nil {
						u = base.ResolveReference(u)
					}
					u.Fragment, u.RawFragment = "", ""
					if u.String() != "" {
						out[u.String()] = true
						base = u
					}
				}
			}
			for k, c := range t {
				if k != "enum" && k != "const" && k != "examples" && k != "default" {
					walk(c, base)
				}
			}
		case []any:
			for _, c := range t {
				walk(c, base)
			}
		}
	}
	walk(doc, nil)
	return out
}

// loader accumulates one Load.
type loader struct {
	fsys fs.FS
	root string // prefix for file names in errors ("" for LoadFS)
	reg  *Registry
	errs []error
	// idSource maps each schema $id to the file that declared it.
	idSource map[string]string
	// files lists every file read, by name.
	files []string
	// across is what the registry-wide limit check found (see
	// checkAcross), for checking inline schemas against.
	across *acrossGraph
	// remotes, set only by the tests of the JSON Schema test suite, maps
	// absolute URLs to documents served from memory (see remoteLoader).
	remotes map[string][]byte
	// sources maps each schema file's $id to what the compilers load for
	// it (see serveRegistry).
	sources map[string]*source
}

func load(fsys fs.FS, root string) (*Registry, error) {
	l := newLoader(fsys, root)
	l.run()
	if len(l.errs) > 0 {
		return nil, errors.Join(l.errs...)
	}
	l.reg.prepare()
	return l.reg, nil
}

func newLoader(fsys fs.FS, root string) *loader {
	l := &loader{
		fsys: fsys,
		root: root,
		reg: &Registry{
			schemas:    make(map[string]*Schema),
			blueprints: make(map[string]*Blueprint),
			owners:     make(map[unsafe.Pointer]*Schema),
		},
		idSource: make(map[string]string),
		sources:  make(map[string]*source),
	}
	l.reg.compiler = l.compiler()
	return l
}

// run reads and checks every file, recording every problem in l.errs and
// every usable schema and blueprint in l.reg. Lint runs it too, so that
// lint and Load report the same errors.
func (l *loader) run() {
	schemaFiles, schemaDir := l.list("schemas", ".schema.json")
	jtdFiles, _ := l.list("schemas", jtdSuffix)
	agentFiles, agentDir := l.list("agents", ".json")
	if !schemaDir && !agentDir && len(l.errs) == 0 {
		l.errs = append(l.errs, fmt.Errorf("%w: %s has neither a schemas/ nor an agents/ folder", ErrConfigDir, l.name(".")))
	}

	var fileSchemas []*Schema
	for _, p := range schemaFiles {
		if s := l.schemaFile(p); s != nil {
			fileSchemas = append(fileSchemas, s)
		}
	}
	for _, p := range jtdFiles {
		if s := l.jtdFile(p); s != nil {
			fileSchemas = append(fileSchemas, s)
		}
	}
	l.checkAcross(fileSchemas)
	l.compileFiles()
	for _, p := range agentFiles {
		l.blueprintFile(p)
	}
}

// list returns the files of folder dir ending in suffix, sorted, and
// whether the folder exists.
func (l *loader) list(dir, suffix string) ([]string, bool) {
	entries, err := fs.ReadDir(l.fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		l.errs = append(l.errs, fmt.Errorf("%w: %s: %w", ErrConfigDir, l.name(dir), err))
		return nil, true
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), suffix) {
			p := path.Join(dir, e.Name())
			out = append(out, p)
			l.files = append(l.files, l.name(p))
		}
	}
	return out, true
}

// name is the file name used in errors and Source fields.
func (l *loader) name(p string) string {
	if l.root == "" {
		return p
	}
	return filepath.Join(l.root, filepath.FromSlash(p))
}

func (l *loader) fail(file string, err error) {
	l.errs = append(l.errs, &FileError{File: file, Err: err})
}
