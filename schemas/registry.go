package schemas

import (
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/agentgate/agentgate/schemas/validator"
)

// Registry holds the compiled schemas and the blueprints of one
// configuration. It is immutable once loaded and safe for concurrent use.
type Registry struct {
	compiler   *validator.Compiler
	schemas    map[string]*Schema // by ID, inline schemas included
	blueprints map[string]*Blueprint

	// owners maps every object of every schema's Doc to that schema, so
	// that Resolve can resolve a node's refs against its own document.
	owners map[unsafe.Pointer]*Schema
}

// Load reads the configuration folder dir: every dir/schemas/*.schema.json
// (one JSON Schema each) and every dir/agents/*.json (one blueprint each).
// Other files are ignored; either folder may be missing, not both.
//
// Every problem found is reported, joined with errors.Join; each names the
// file and wraps one of the package's sentinel errors (ErrNoID,
// ErrBadVersion, ErrDuplicateID, ErrMetaSchema, ErrUnresolvedRef,
// ErrUnknownSchema, ErrBadBlueprint, ...). On error the registry is nil.
func Load(dir string) (*Registry, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfigDir, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%w: %s is not a directory", ErrConfigDir, dir)
	}
	return load(os.DirFS(dir), dir)
}

// LoadFS is Load on a file system: it reads schemas/*.schema.json and
// agents/*.json from fsys. Errors name files by their path in fsys.
func LoadFS(fsys fs.FS) (*Registry, error) {
	return load(fsys, "")
}

// Schema returns the schema with the given $id (inline blueprint schemas
// included, under "urn:agentgate:inline:<agent>"). A trailing empty
// fragment ("#") is ignored.
func (r *Registry) Schema(id string) (*Schema, bool) {
	return r.lookup(id)
}

// Blueprint returns the blueprint of the named agent.
func (r *Registry) Blueprint(name string) (*Blueprint, bool) {
	if r == nil {
		return nil, false
	}
	b, ok := r.blueprints[name]
	return b, ok
}

// Schemas returns every schema, inline blueprint schemas included, sorted
// by ID.
func (r *Registry) Schemas() []*Schema {
	if r == nil {
		return nil
	}
	out := make([]*Schema, 0, len(r.schemas))
	for _, s := range r.schemas {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Schema) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// Blueprints returns every blueprint, sorted by Name.
func (r *Registry) Blueprints() []*Blueprint {
	if r == nil {
		return nil
	}
	out := make([]*Blueprint, 0, len(r.blueprints))
	for _, b := range r.blueprints {
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b *Blueprint) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

func (r *Registry) lookup(id string) (*Schema, bool) {
	if r == nil {
		return nil, false
	}
	s, ok := r.schemas[strings.TrimSuffix(id, "#")]
	return s, ok
}

func (r *Registry) ownerOf(node map[string]any) *Schema {
	if r == nil || node == nil {
		return nil
	}
	return r.owners[reflect.ValueOf(node).UnsafePointer()]
}

// prepare finishes a loaded registry: it indexes the documents' objects for
// Resolve.
func (r *Registry) prepare() {
	for _, s := range r.schemas {
		s.reg = r
		walkJSON(s.Doc, func(m map[string]any) {
			r.owners[reflect.ValueOf(m).UnsafePointer()] = s
		})
	}
}
