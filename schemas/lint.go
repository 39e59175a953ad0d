package schemas

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/internal/jsonx"
	"github.com/agentgate/agentgate/schemas/validator"
)

// Severity says whether a lint finding stops the gateway.
type Severity string

const (
	// SeverityError is a problem Load refuses: `agentgate serve` does not
	// start.
	SeverityError Severity = "error"
	// SeverityWarning is a likely mistake the gateway tolerates.
	SeverityWarning Severity = "warning"
)

// Finding is one problem found by Lint.
type Finding struct {
	File     string   `json:"file"`
	Severity Severity `json:"severity"`
	// Path is the JSONPath of the problem in the file ("$" for the root),
	// or "" when the message says where.
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
	// Err is the error of an error finding, wrapping one of the package's
	// sentinels (ErrNoID, ErrBadAlias, ...); nil for a warning.
	Err error `json:"-"`
}

// LintReport is the result of Lint: every file read, and every finding.
type LintReport struct {
	// Files lists every file read (schemas/*.schema.json, agents/*.json),
	// sorted.
	Files []string
	// Findings are sorted by file, errors before warnings, then by path.
	Findings []Finding
}

// Errors counts the error findings.
func (r *LintReport) Errors() int { return r.count(SeverityError) }

// Warnings counts the warning findings.
func (r *LintReport) Warnings() int { return r.count(SeverityWarning) }

// For returns the findings of one file.
func (r *LintReport) For(file string) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.File == file {
			out = append(out, f)
		}
	}
	return out
}

func (r *LintReport) count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// Lint checks the configuration folder dir as Load does and reports, file
// by file, every error (exactly the problems that make Load fail, with the
// same messages) and these warnings:
//
//   - a schema file without "title" or "description";
//   - an object schema with neither "additionalProperties" nor
//     "unevaluatedProperties", reached from the output or tool schema of an
//     agent whose extra_fields is "strip": there is nothing to strip, the
//     model's extra members go through;
//   - a "oneOf" whose branches are mutually exclusive by construction
//     (see oneOfExclusive): "anyOf" accepts the same values, is cheaper, and
//     does not start refusing valid output when an edit lets two branches
//     overlap;
//   - an "enum" with strings that differ only in case ("High", "high"):
//     coercion to the enum member is then ambiguous.
//
// The error is non-nil only when dir cannot be read as a configuration
// folder (ErrConfigDir).
func Lint(dir string) (*LintReport, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfigDir, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%w: %s is not a directory", ErrConfigDir, dir)
	}
	return lint(os.DirFS(dir), dir)
}

// LintFS is Lint on a file system, as LoadFS is Load.
func LintFS(fsys fs.FS) (*LintReport, error) {
	return lint(fsys, "")
}

func lint(fsys fs.FS, root string) (*LintReport, error) {
	l := newLoader(fsys, root)
	l.run()
	r := &LintReport{Files: slices.Clone(l.files)}
	for _, err := range l.errs {
		var fe *FileError
		if !errors.As(err, &fe) {
			return nil, err
		}
		r.Findings = append(r.Findings, Finding{File: fe.File, Severity: SeverityError, Message: fe.Err.Error(), Err: fe.Err})
	}
	l.reg.prepare()
	r.Findings = append(r.Findings, l.warnings()...)
	slices.Sort(r.Files)
	slices.SortStableFunc(r.Findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Severity, b.Severity),
			contract.ComparePaths(a.Path, b.Path), cmp.Compare(a.Message, b.Message))
	})
	return r, nil
}

// warnings computes the warnings of the schemas and blueprints that loaded.
func (l *loader) warnings() []Finding {
	var out []Finding
	warn := func(file, path, format string, args ...any) {
		out = append(out, Finding{File: file, Severity: SeverityWarning, Path: path, Message: fmt.Sprintf(format, args...)})
	}
	// The file each schema is written in: its own, or its blueprint's.
	fileOf := make(map[*Schema]string)
	for _, b := range l.reg.blueprints {
		for _, s := range b.schemas() {
			if strings.HasPrefix(s.ID, InlinePrefix) {
				fileOf[s] = b.Source
			}
		}
	}
	schemas := slices.SortedFunc(maps.Values(l.reg.schemas), func(a, b *Schema) int { return cmp.Compare(a.ID, b.ID) })
	for _, s := range schemas {
		file, inline := fileOf[s]
		if !inline {
			file = s.Source
			if s.Title == "" {
				warn(file, "$", "no title: say in a few words what the document is")
			}
			if s.Description == "" {
				warn(file, "$", "no description: say what the document holds and when it is produced")
			}
		}
		validator.WalkSchema(s.Doc, "$", func(node map[string]any, path, _ string) bool {
			if why, ok := s.oneOfExclusive(node); ok {
				warn(file, contract.Member(path, "oneOf"), "oneOf branches are mutually exclusive (%s): anyOf accepts the same values, "+
					"is cheaper, and does not start refusing valid output if an edit lets two branches overlap", why)
			}
			if dup := caseDuplicates(node); dup != "" {
				warn(file, contract.Member(path, "enum"), "enum values %s differ only in case: coercing a string to the enum member is ambiguous", dup)
			}
			return true
		})
	}
	// Open objects under stripping blueprints, once per schema node.
	type site struct{ file, path string }
	agents := make(map[site][]string)
	for _, b := range l.reg.blueprints {
		if b.ExtraFields != ExtraFieldsStrip {
			continue
		}
		for _, s := range l.reg.closure(b.schemas()) {
			file, inline := fileOf[s]
			if !inline {
				file = s.Source
			}
			for _, path := range openObjects(s.Doc) {
				k := site{file, path}
				if !slices.Contains(agents[k], b.Name) {
					agents[k] = append(agents[k], b.Name)
				}
			}
		}
	}
	for k, names := range agents {
		slices.Sort(names)
		warn(k.file, k.path, `object allows any member (no "additionalProperties": false): extra_fields "strip" of %s has nothing to strip here`,
			quoteList("agent", names))
	}
	return out
}

// schemas returns the blueprint's output and tool schemas.
func (b *Blueprint) schemas() []*Schema {
	var out []*Schema
	if b.OutputSchema != nil {
		out = append(out, b.OutputSchema)
	}
	for _, name := range b.ToolNames() {
		out = append(out, b.Tools[name])
	}
	return out
}

// closure returns roots and every registry schema their $refs reach,
// sorted by ID.
func (r *Registry) closure(roots []*Schema) []*Schema {
	seen := make(map[*Schema]bool)
	var visit func(*Schema)
	visit = func(s *Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		walkJSON(s.Doc, func(m map[string]any) {
			if _, ok := m["$ref"].(string); ok {
				if target := s.Resolve(m); target != nil {
					visit(r.ownerOf(target))
				}
			}
		})
	}
	for _, s := range roots {
		visit(s)
	}
	return slices.SortedFunc(maps.Keys(seen), func(a, b *Schema) int { return cmp.Compare(a.ID, b.ID) })
}

// openObjects returns the paths of the object schemas in doc that allow
// any member: "type" "object" or "properties", and neither
// "additionalProperties" nor "unevaluatedProperties". Branches of anyOf,
// oneOf, not, if/then/else and allOf are skipped: the normalizer never
// strips under the first ones, and an allOf branch is closed by its parent.
func openObjects(doc any) []string {
	var out []string
	validator.WalkSchema(doc, "$", func(node map[string]any, path, via string) bool {
		switch via {
		case "anyOf", "oneOf", "not", "if", "then", "else", "allOf", "propertyNames", "dependentSchemas", "dependencies":
			return false
		}
		_, hasProps := node["properties"]
		_, hasAP := node["additionalProperties"]
		_, hasUP := node["unevaluatedProperties"]
		if (hasProps || slices.Contains(typesOf(node), "object")) && !hasAP && !hasUP && !closedBranches(node) {
			out = append(out, path)
		}
		return true
	})
	return out
}

// closedBranches reports whether node has an anyOf or oneOf whose every
// branch is a closed object: a member no branch allows is stripped there
// (a JTD discriminator translates to such a node).
func closedBranches(node map[string]any) bool {
	for _, kw := range []string{"anyOf", "oneOf"} {
		branches, _ := node[kw].([]any)
		if len(branches) == 0 {
			continue
		}
		closed := true
		for _, b := range branches {
			m, _ := b.(map[string]any)
			if ap, ok := m["additionalProperties"].(bool); !ok || ap {
				closed = false
			}
		}
		if closed {
			return true
		}
	}
	return false
}

// caseDuplicates returns the strings of node's enum that differ only in
// case, quoted, or "".
func caseDuplicates(node map[string]any) string {
	enum, _ := node["enum"].([]any)
	byFold := make(map[string][]string)
	var order []string
	for _, v := range enum {
		s, ok := v.(string)
		if !ok {
			continue
		}
		k := strings.ToLower(s)
		if len(byFold[k]) == 0 {
			order = append(order, k)
		}
		if !slices.Contains(byFold[k], s) {
			byFold[k] = append(byFold[k], s)
		}
	}
	var dups []string
	for _, k := range order {
		if len(byFold[k]) > 1 {
			quoted := make([]string, len(byFold[k]))
			for i, s := range byFold[k] {
				quoted[i] = quote(s)
			}
			dups = append(dups, strings.Join(quoted, " and "))
		}
	}
	return strings.Join(dups, "; ")
}

// oneOfExclusive reports whether node has a oneOf of two or more branches
// that no value can match two of at once, and why. The heuristic is
// deliberately simple: every pair of branches (their $ref followed) must
// differ by JSON type ("type", or the types of const/enum values; integer
// counts as a number), by disjoint const/enum values, or by a
// discriminator: a property both require whose const/enum values are
// disjoint. Anything else counts as possibly overlapping.
func (s *Schema) oneOfExclusive(node map[string]any) (string, bool) {
	list, _ := node["oneOf"].([]any)
	if len(list) < 2 {
		return "", false
	}
	branches := make([]map[string]any, len(list))
	for i, b := range list {
		m, ok := b.(map[string]any)
		if !ok {
			return "", false
		}
		if branches[i] = s.Resolve(m); branches[i] == nil {
			return "", false
		}
	}
	reasons := make(map[string]bool)
	for i := range branches {
		for j := i + 1; j < len(branches); j++ {
			why := s.disjoint(branches[i], branches[j])
			if why == "" {
				return "", false
			}
			reasons[why] = true
		}
	}
	return strings.Join(slices.Sorted(maps.Keys(reasons)), ", "), true
}

// disjoint says why no value matches both a and b, or "".
func (s *Schema) disjoint(a, b map[string]any) string {
	if ta, tb := typesOf(a), typesOf(b); len(ta) > 0 && len(tb) > 0 && !typesOverlap(ta, tb) {
		return "by type"
	}
	if va, ok := valuesOf(a); ok {
		if vb, ok := valuesOf(b); ok && !valuesOverlap(va, vb) {
			return "by value"
		}
	}
	pa, _ := a["properties"].(map[string]any)
	pb, _ := b["properties"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(pa)) {
		if !requires(a, name) || !requires(b, name) {
			continue
		}
		na, _ := pa[name].(map[string]any)
		nb, _ := pb[name].(map[string]any)
		if na == nil || nb == nil {
			continue
		}
		va, okA := valuesOf(s.Resolve(na))
		vb, okB := valuesOf(s.Resolve(nb))
		if okA && okB && !valuesOverlap(va, vb) {
			return "by the discriminator " + quote(name)
		}
	}
	return ""
}

// typesOf returns the JSON types node allows, from "type" or else from its
// const or enum values; nil when unknown.
func typesOf(node map[string]any) []string {
	switch t := node["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, v := range t {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	if vals, ok := valuesOf(node); ok {
		var out []string
		for _, v := range vals {
			out = append(out, jsonx.TypeName(v, jsonx.IntegerApart))
		}
		return out
	}
	return nil
}

func typesOverlap(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y || x == "number" && y == "integer" || x == "integer" && y == "number" {
				return true
			}
		}
	}
	return false
}

// valuesOf returns node's const or enum values.
func valuesOf(node map[string]any) ([]any, bool) {
	if node == nil {
		return nil, false
	}
	if c, ok := node["const"]; ok {
		return []any{c}, true
	}
	if e, ok := node["enum"].([]any); ok {
		return e, true
	}
	return nil, false
}

func valuesOverlap(a, b []any) bool {
	for _, x := range a {
		for _, y := range b {
			if jsonx.Equal(x, y) {
				return true
			}
		}
	}
	return false
}

// requires reports whether node lists name in "required".
func requires(node map[string]any, name string) bool {
	req, _ := node["required"].([]any)
	return slices.Contains(req, any(name))
}

// quoteList renders `agent "a"` or `agents "a", "b"`.
func quoteList(noun string, names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = quote(n)
	}
	if len(names) > 1 {
		noun += "s"
	}
	return noun + " " + strings.Join(quoted, ", ")
}
