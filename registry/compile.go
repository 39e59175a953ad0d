package registry

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"testing/fstest" // MapFS is the standard in-memory fs.FS; it pulls in no testing code.

	"github.com/agentgate/agentgate/schemas"
)

// InvalidError says why a set of documents does not compile, one problem a
// line, each naming the schema $id or agent it is about. It wraps
// ErrInvalid.
type InvalidError struct {
	Problems []string
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
		return nil, &InvalidError{Problems: problems(err, labels)}
	}
	return reg, nil
}

// problems flattens a LoadFS error into lines, naming each file by label.
func problems(err error, labels map[string]string) []string {
	var out []string
	var walk func(error)
	walk = func(err error) {
		if fe, ok := err.(*schemas.FileError); ok {
			name := labels[fe.File]
			if name == "" {
				name = fe.File
			}
			out = append(out, fmt.Sprintf("%s: %s", name, fe.Err))
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
	return out
}
