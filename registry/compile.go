package registry

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing/fstest" // MapFS is the standard in-memory fs.FS; it pulls in no testing code.

	"github.com/agentgate/agentgate/schemas"
)

// InvalidError says why a set of documents does not compile, one problem a
// line, each naming the schema $id or agent it is about. It wraps
// ErrInvalid.
type InvalidError struct {
	Problems []string
	// entries names the documents the problems are about ("schema <id>",
	// "agent <name>"), for Live's degraded builds.
	entries []string
}

func (e *InvalidError) Error() string {
	msg := ErrInvalid.Error()
	for i, p := range e.Problems {
		if i == 0 {
			msg += ": " + p
		} else {
			msg += "; " + p
		}
	}
	return msg
}

func (e *InvalidError) Unwrap() error { return ErrInvalid }

// docs is a set of documents to compile together: schemas by $id and
// blueprints by agent name.
type docs struct {
	schemas map[string][]byte
	agents  map[string][]byte
}

func newDocs() docs {
	return docs{schemas: make(map[string][]byte), agents: make(map[string][]byte)}
}

func (d docs) clone() docs {
	return docs{schemas: maps.Clone(d.schemas), agents: maps.Clone(d.agents)}
}

// compile compiles the documents with schemas.LoadFS, so that they are
// checked exactly as a --config folder is at start-up. Its error is an
// *InvalidError.
func (d docs) compile() (*schemas.Registry, error) {
	fsys := fstest.MapFS{}
	labels := make(map[string]string)
	for i, id := range slices.Sorted(maps.Keys(d.schemas)) {
		file := "schemas/" + strconv.Itoa(i) + ".schema.json"
		if isJTD(d.schemas[id]) {
			file = "schemas/" + strconv.Itoa(i) + ".jtd.json"
		}
		fsys[file] = &fstest.MapFile{Data: d.schemas[id]}
		labels[file] = "schema " + id
	}
	for i, name := range slices.Sorted(maps.Keys(d.agents)) {
		file := "agents/" + strconv.Itoa(i) + ".json"
		fsys[file] = &fstest.MapFile{Data: d.agents[name]}
		labels[file] = "agent " + name
	}
	if len(fsys) == 0 {
		// LoadFS wants at least one of the folders.
		fsys["schemas"] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
	}
	reg, err := schemas.LoadFS(fsys)
	if err != nil {
		probs, entries := problems(err, labels)
		return nil, &InvalidError{Problems: probs, entries: entries}
	}
	return reg, nil
}

// maxDegradedPasses bounds compileDegraded's passes.
const maxDegradedPasses = 4

// compileDegraded compiles d; when that fails, it leaves out every
// document a problem names and tries again (a few times), so that one bad
// entry (stored by two writers racing past each other's checks) never
// keeps the rest of the registry from being served. It returns what it
// left out, each with its problem.
func (d docs) compileDegraded() (*schemas.Registry, []string, error) {
	var left []string
	for range maxDegradedPasses {
		reg, err := d.compile()
		if err == nil {
			return reg, left, nil
		}
		ie, _ := err.(*InvalidError)
		if ie == nil || len(ie.entries) == 0 {
			return nil, left, err
		}
		d = d.clone()
		for _, e := range ie.entries {
			kind, key, _ := strings.Cut(e, " ")
			if kind == "schema" {
				delete(d.schemas, key)
			} else {
				delete(d.agents, key)
			}
		}
		left = append(left, ie.Problems...)
	}
	return nil, left, fmt.Errorf("registry: still not compiling after leaving out %d problems", len(left))
}

// problems flattens a LoadFS error into lines, naming each file by label,
// and lists the labels of the files named.
func problems(err error, labels map[string]string) ([]string, []string) {
	var out, entries []string
	// Messages naming other files (a duplicate $id, a $ref cycle or chain
	// across documents) name them by label too.
	pairs := make([]string, 0, 2*len(labels))
	for _, file := range slices.Sorted(maps.Keys(labels)) {
		pairs = append(pairs, file, labels[file])
	}
	relabel := strings.NewReplacer(pairs...)
	var walk func(error)
	walk = func(err error) {
		if fe, ok := err.(*schemas.FileError); ok {
			name := labels[fe.File]
			if name == "" {
				name = fe.File
			} else if !slices.Contains(entries, name) {
				entries = append(entries, name)
			}
			out = append(out, fmt.Sprintf("%s: %s", name, relabel.Replace(fe.Err.Error())))
			return
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		out = append(out, err.Error())
	}
	walk(err)
	return out, entries
}
