package depguard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Package is what the guard knows of one package of the module.
type Package struct {
	// Path is the import path relative to the module ("handlers",
	// "router/embedded"); the module's root package is ".".
	Path string
	// Doc is the package's whole doc comment.
	Doc string
	// Deps are every package it imports, directly or not: full import
	// paths for packages outside the module, relative ones inside it.
	Deps []string
	// Imports are the packages it imports directly, in the same form.
	Imports []string
	// Command is set for a main package.
	Command bool
}

// Rule forbids the packages it covers to reach some others.
type Rule struct {
	// Name says what the wall is for, in the guard's reports.
	Name string
	// Packages are the packages the rule covers: a path, or a path ending
	// in "/..." for it and everything below it.
	Packages []string
	// Forbid are the packages they must not reach, directly or through
	// others, in the same form; outside the module, full import paths.
	Forbid []string
	// Except are packages among Packages the rule does not cover.
	Except []string
	// Direct limits the rule to direct imports: a package may then reach
	// a forbidden one through others (through the one package allowed to
	// import it, say), not import it itself.
	Direct bool
}

// Violation is one package reaching what a rule forbids.
type Violation struct {
	Rule    string
	Package string
	// Imports is the forbidden package reached.
	Imports string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s imports %s (rule: %s)", v.Package, v.Imports, v.Rule)
}

// The bus, in every form: the packages a stage must never reach.
var bus = []string{
	"github.com/ThreeDotsLabs/watermill/...",
	"github.com/ThreeDotsLabs/watermill-nats/v2/...",
	"github.com/nats-io/nats.go/...",
	"github.com/nats-io/nats-server/v2/...",
	"router/...", "subjects/...", "topology/...", "runstate/...", "gateway/...", "embedded/...",
}

// Rules are agentgate's walls. Each package's doc comment says the same
// in words.
var Rules = []Rule{
	{
		Name: "a stage knows nothing of the bus",
		Packages: []string{"handlers/...", "schemas/...", "contract/...", "rules/...", "jtd/...",
			"provider/...", "redact/...", "internal/jsonx/..."},
		Forbid: bus,
	},
	{
		Name:     "the registry does not import the pipeline",
		Packages: []string{"registry/..."},
		Forbid:   []string{"handlers/...", "router/...", "gateway/...", "agentproto/..."},
	},
	{
		Name:     "subject names are strings, with no client behind them",
		Packages: []string{"subjects/..."},
		Forbid:   []string{"github.com/nats-io/nats.go/...", "github.com/ThreeDotsLabs/watermill/..."},
	},
	{
		Name:     "run state is storage, not the pipeline",
		Packages: []string{"runstate/..."},
		Forbid:   []string{"handlers/...", "router/...", "gateway/..."},
	},
	{
		Name:     "where messages are kept says nothing of what they mean",
		Packages: []string{"topology/...", "embedded/..."},
		Forbid:   []string{"handlers/...", "router/...", "gateway/...", "runstate/..."},
	},
	{
		Name:     "only the gateway assembles the gateway",
		Packages: []string{"./..."},
		Except:   []string{"gateway", "cmd/...", "test/...", "internal/natstest/...", "examples/..."},
		Forbid:   []string{"gateway/..."},
	},
	{
		// "handlers" alone is the decision and the pipeline that composes
		// the stages, not the stages below it.
		Name:     "text recovery and normalization know nothing of the decision",
		Packages: []string{"handlers/jsontext/...", "handlers/normalize/..."},
		Forbid:   []string{"handlers"},
	},
	{
		Name:     "text recovery works on text alone, with no schema",
		Packages: []string{"handlers/jsontext/..."},
		Forbid:   []string{"handlers/normalize/...", "schemas/...", "rules/...", "jtd/..."},
	},
	{
		Name:     "normalization reads schemas through its Resolver, not the registry, and never text",
		Packages: []string{"handlers/normalize/..."},
		Forbid:   []string{"handlers/jsontext/...", "schemas/...", "registry/..."},
	},
	{
		Name:     "the wire types depend on nothing of agentgate's",
		Packages: []string{"contract/...", "internal/jsonx/...", "internal/workers/..."},
		Forbid:   []string{"./..."},
	},
	{
		// Every package that uses schemas reaches kaptinlin through it:
		// the wall is on direct imports.
		Name:     "the validator lives behind one seam",
		Packages: []string{"./..."},
		Except:   []string{"schemas/validator"},
		Forbid:   []string{"github.com/kaptinlin/jsonschema/..."},
		Direct:   true,
	},
	{
		Name:     "the validator knows nothing of the registry or the pipeline",
		Packages: []string{"schemas/validator/..."},
		Forbid:   []string{"schemas", "schemas/compat/...", "registry/...", "handlers/...", "agentproto/..."},
	},
}

// importRule is what a library package's doc comment must say.
var importRule = regexp.MustCompile(`(?i)\b(must not|must never|never|only|nothing)\b[^.]*\bimport|\bimports? (only|nothing)\b`)

// Check applies rules to pkgs and returns every violation, package by
// package. A library package (not a command) whose doc comment does not
// say what it must not import is a violation too, of the rule "doc".
func Check(pkgs []Package, rules []Rule) []Violation {
	module := map[string]bool{}
	for _, p := range pkgs {
		module[p.Path] = true
	}
	var out []Violation
	for _, p := range pkgs {
		for _, r := range rules {
			if !matchAny(p.Path, r.Packages, module) || matchAny(p.Path, r.Except, module) {
				continue
			}
			reached := p.Deps
			if r.Direct {
				reached = p.Imports
			}
			// One violation per forbidden pattern: the first package
			// reached under it names the break.
			for _, f := range r.Forbid {
				for _, d := range reached {
					if matchAny(d, []string{f}, module) {
						out = append(out, Violation{Rule: r.Name, Package: p.Path, Imports: d})
						break
					}
				}
			}
		}
		if !p.Command && !importRule.MatchString(p.Doc) {
			out = append(out, Violation{Rule: "doc", Package: p.Path,
				Imports: "(its doc comment does not say what it must not import)"})
		}
	}
	return out
}

// matchAny reports whether path is one of patterns: "x" is x itself, "x/..."
// x and everything below it, "./..." every package of the module.
func matchAny(path string, patterns []string, module map[string]bool) bool {
	for _, pat := range patterns {
		switch {
		case pat == "./...":
			if module[path] {
				return true
			}
		case strings.HasSuffix(pat, "/..."):
			base := strings.TrimSuffix(pat, "/...")
			if path == base || strings.HasPrefix(path, base+"/") {
				return true
			}
		case path == pat:
			return true
		}
	}
	return false
}

// ErrGoList is returned when the go command cannot list the module.
var ErrGoList = errors.New("depguard: go list")

// Load lists the packages of the module in dir (tests and testdata left
// out), with module paths made relative.
func Load(dir string) ([]Package, error) {
	mod, err := goList(dir, "list", "-m", "-f", "{{.Path}}")
	if err != nil {
		return nil, err
	}
	module := strings.TrimSpace(string(mod))
	out, err := goList(dir, "list", "-json=ImportPath,Dir,GoFiles,Deps,Imports,Name", "./...")
	if err != nil {
		return nil, err
	}
	rel := func(p string) string {
		switch {
		case p == module:
			return "."
		case strings.HasPrefix(p, module+"/"):
			return strings.TrimPrefix(p, module+"/")
		}
		return p
	}
	var pkgs []Package
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var lp struct {
			ImportPath, Dir, Name  string
			GoFiles, Deps, Imports []string
		}
		if err := dec.Decode(&lp); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%w: decoding its output: %w", ErrGoList, err)
		}
		doc, err := packageDoc(lp.Dir, lp.GoFiles)
		if err != nil {
			return nil, err
		}
		p := Package{Path: rel(lp.ImportPath), Doc: doc, Command: lp.Name == "main"}
		for _, d := range lp.Deps {
			p.Deps = append(p.Deps, rel(d))
		}
		slices.Sort(p.Deps)
		for _, d := range lp.Imports {
			p.Imports = append(p.Imports, rel(d))
		}
		slices.Sort(p.Imports)
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

func goList(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%w %s in %s: %w: %s", ErrGoList, strings.Join(args, " "), dir, err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// packageDoc is the doc comment of the package made of files in dir: go
// list gives only its first sentence.
func packageDoc(dir string, files []string) (string, error) {
	var docs []string
	fset := token.NewFileSet()
	for _, f := range files {
		af, err := parser.ParseFile(fset, filepath.Join(dir, f), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return "", fmt.Errorf("depguard: reading the package comment: %w", err)
		}
		if af.Doc != nil {
			docs = append(docs, af.Doc.Text())
		}
	}
	return strings.Join(docs, "\n"), nil
}
