package schemas

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/agentgate/agentgate/schemas/validator"
)

// compiler returns a fresh validator compiler, serving l.remotes when
// set.
func (l *loader) compiler() *validator.Compiler {
	return validator.New(validator.Options{Remotes: l.remotes})
}

// inlineCompiler returns the compiler of an inline schema that declares
// its own $id: a fresh one serving every schema file of the registry
// except those whose $id the inline document declares itself, so that its
// $id, $anchors and $dynamicAnchors resolve within it as the specification
// says, without colliding with the registry or with another inline schema
// of the same $id.
func (l *loader) inlineCompiler(doc map[string]any) *validator.Compiler {
	c := l.compiler()
	c.Serve(l.sources, declaredIDs(doc))
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
	// absolute URLs to documents served from memory (see validator.Options).
	remotes map[string][]byte
	// sources maps each schema file's $id to what the compilers load for
	// it (see validator.Compiler.Serve).
	sources map[string]*validator.Source
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
		sources:  make(map[string]*validator.Source),
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
