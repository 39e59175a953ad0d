package schemas

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"

	"github.com/kaptinlin/jsonschema"
)

// newCompiler returns the registry's one compiler: formats asserted, no
// network loaders, the draft 2020-12 meta-schemas served from the binary.
func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.SetAssertFormat(true)
	// kaptinlin pre-registers http and https loaders that fetch $ref targets
	// at compile time (compiler.go, setupLoaders): remove them.
	delete(c.Loaders, "http")
	delete(c.Loaders, "https")
	c.RegisterLoader("https", offlineLoader)
	setupFormats(c)
	return c
}

// loader accumulates one Load.
type loader struct {
	fsys fs.FS
	root string // prefix for file names in errors ("" for LoadFS)
	reg  *Registry
	errs []error
	// idSource maps each schema $id to the file that declared it.
	idSource map[string]string
}

func load(fsys fs.FS, root string) (*Registry, error) {
	l := &loader{
		fsys: fsys,
		root: root,
		reg: &Registry{
			compiler:   newCompiler(),
			schemas:    make(map[string]*Schema),
			blueprints: make(map[string]*Blueprint),
			owners:     make(map[unsafe.Pointer]*Schema),
		},
		idSource: make(map[string]string),
	}
	schemaFiles, schemaDir := l.list("schemas", ".schema.json")
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
	// Refs between files are resolved whatever the order of compilation;
	// give each schema a last chance before checking.
	for _, s := range fileSchemas {
		s.compiled.ResolveUnresolvedReferences()
	}
	for _, s := range fileSchemas {
		if err := unresolved(s); err != nil {
			l.fail(s.Source, err)
		}
	}
	for _, p := range agentFiles {
		l.blueprintFile(p)
	}
	if len(l.errs) > 0 {
		return nil, errors.Join(l.errs...)
	}
	l.reg.prepare()
	return l.reg, nil
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
			out = append(out, path.Join(dir, e.Name()))
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
	l.errs = append(l.errs, fmt.Errorf("%s: %w", file, err))
}

// unresolved returns an error listing the $refs of s that resolved to
// nothing, or nil.
func unresolved(s *Schema) error {
	refs := s.compiled.UnresolvedReferenceURIs()
	if len(refs) == 0 {
		return nil
	}
	slices.Sort(refs)
	refs = slices.Compact(refs)
	quoted := make([]string, len(refs))
	for i, ref := range refs {
		quoted[i] = fmt.Sprintf("%q", ref)
	}
	return fmt.Errorf("%w: %s (refs resolve only within the registry; nothing is fetched)", ErrUnresolvedRef, strings.Join(quoted, ", "))
}
