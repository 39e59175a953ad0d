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
	"slices"
	"strings"
	"unsafe"

	"github.com/kaptinlin/jsonschema"
)

// newCompiler returns the registry's one compiler: formats asserted, no
// network loaders, the draft 2020-12 and draft-07 meta-schemas served from
// the binary.
func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.SetAssertFormat(true)
	// kaptinlin pre-registers http and https loaders that fetch $ref targets
	// at compile time (compiler.go, setupLoaders): remove them.
	delete(c.Loaders, "http")
	delete(c.Loaders, "https")
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

// inlineCompiler returns the compiler of an inline schema that declares
// its own $id: a fresh one holding every schema file of the registry
// (compiled before any blueprint) except those whose $id the inline
// document declares itself, so that its $id, $anchors and
// $dynamicAnchors resolve within it as the specification says, without
// colliding with the registry or with another inline schema of the same
// $id.
func (l *loader) inlineCompiler(doc map[string]any) *jsonschema.Compiler {
	c := l.compiler()
	own := declaredIDs(doc)
	for id, s := range l.reg.schemas {
		if !strings.HasPrefix(id, InlinePrefix) && !own[id] {
			c.SetSchema(id, s.compiled)
		}
	}
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
	// Refs between files are resolved whatever the order of compilation;
	// give each schema a last chance before checking.
	for _, s := range fileSchemas {
		s.compiled.ResolveUnresolvedReferences()
	}
	for _, s := range fileSchemas {
		if err := l.unresolved(s); err != nil {
			l.fail(s.Source, err)
		}
	}
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

// unresolved returns an error listing the $refs of s that resolved to
// nothing, or nil: ErrExternalRef (with ErrUnresolvedRef) when one points
// to a document outside the registry, else ErrUnresolvedRef.
func (l *loader) unresolved(s *Schema) error {
	return unresolvedRefs(s, func(uri string) bool {
		_, ok := l.reg.schemas[uri]
		return ok
	})
}

// unresolvedRefs is unresolved with inRegistry telling the registry's
// documents (the embedded meta-schemas count as registry documents).
func unresolvedRefs(s *Schema, inRegistry func(uri string) bool) error {
	refs := s.compiled.UnresolvedReferenceURIs()
	if len(refs) == 0 {
		return nil
	}
	slices.Sort(refs)
	refs = slices.Compact(refs)
	var missing, outside []string
	base, _ := url.Parse(s.BaseURI())
	for _, ref := range refs {
		quoted := fmt.Sprintf("%q", ref)
		target, err := url.Parse(ref)
		if err == nil && base != nil && base.Opaque == "" {
			target = base.ResolveReference(target)
		}
		if err != nil || target.String() == "" {
			missing = append(missing, quoted)
			continue
		}
		target.Fragment, target.RawFragment = "", ""
		doc := target.String()
		if _, meta := metaSchemaFiles[doc]; doc == s.ID || doc == s.DeclaredID || meta || inRegistry(doc) || strings.HasPrefix(ref, "#") {
			missing = append(missing, quoted)
		} else {
			outside = append(outside, quoted)
		}
	}
	if len(outside) > 0 {
		return fmt.Errorf("%w: %w: %s (refs resolve only within the registry; nothing is fetched)%s",
			ErrUnresolvedRef, ErrExternalRef, strings.Join(outside, ", "), alsoMissing(missing))
	}
	return fmt.Errorf("%w: %s (no such location in the registry)", ErrUnresolvedRef, strings.Join(missing, ", "))
}

func alsoMissing(missing []string) string {
	if len(missing) == 0 {
		return ""
	}
	return "; also unresolved: " + strings.Join(missing, ", ")
}
