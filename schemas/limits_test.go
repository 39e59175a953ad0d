package schemas_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentgate/agentgate/schemas"
)

// schemaFS is a configuration folder with the given schema files (name →
// body, $schema and $id added).
func schemaFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, body := range files {
		head := fmt.Sprintf(`"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://agentgate.test/%s/1.0.0"`, name)
		if body != "" {
			head += ", "
		}
		fsys["schemas/"+name+".schema.json"] = &fstest.MapFile{Data: []byte("{" + head + body + "}")}
	}
	return fsys
}

// fanOut is allOf of two refs to the next level, levels deep.
func fanOut(levels int) string {
	var defs []string
	for i := range levels {
		defs = append(defs, fmt.Sprintf(`"l%d": {"allOf": [{"$ref": "#/$defs/l%d"}, {"$ref": "#/$defs/l%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"l%d": {"type": "string"}`, levels))
	return `"$ref": "#/$defs/l0", "$defs": {` + strings.Join(defs, ", ") + `}`
}

// chain is a chain of n $refs.
func chain(n int) string {
	var defs []string
	for i := range n {
		defs = append(defs, fmt.Sprintf(`"c%d": {"$ref": "#/$defs/c%d"}`, i, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"c%d": {"type": "string"}`, n))
	return `"$ref": "#/$defs/c0", "$defs": {` + strings.Join(defs, ", ") + `}`
}

// Schemas that pass the meta-schema but would stall the gateway are
// refused by lint and at load, with the reason; ordinary recursion and
// modest sharing load.
func TestLoad_schemaLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   map[string]string
		wantErr error
		wantMsg string
	}{
		{"fan-out of 20 levels", map[string]string{"f": fanOut(20)}, schemas.ErrSchemaLimit, "estimated evaluation cost"},
		{"a chain of 100 refs", map[string]string{"c": chain(100)}, schemas.ErrSchemaLimit, "chain of"},
		{"$ref to the root", map[string]string{"r": `"$ref": "#"`}, schemas.ErrRefCycle, "# → #"},
		{"a → b → a", map[string]string{"ab": `"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"anyOf": [{"$ref": "#/$defs/a"}]}}`},
			schemas.ErrRefCycle, "#/$defs/a → #/$defs/b → #/$defs/b/anyOf/0 → #/$defs/a"},
		{"a cycle through an anchor", map[string]string{"an": `"$defs": {"a": {"$anchor": "x", "not": {"$ref": "#x"}}}`}, schemas.ErrRefCycle, ""},
		{"over the size limit", map[string]string{"big": `"description": "` + strings.Repeat("x", schemas.MaxSchemaBytes) + `"`},
			schemas.ErrSchemaLimit, "bytes, over the limit"},
		{"an embedded $id colliding with another file's", map[string]string{
			"one": `"$defs": {"x": {"$id": "https://agentgate.test/two/1.0.0", "type": "string"}}`,
			"two": `"type": "string"`,
		}, schemas.ErrDuplicateID, "also declared by"},
		{"two embedded $ids colliding in one file", map[string]string{
			"three": `"$defs": {"x": {"$id": "https://agentgate.test/x/1", "type": "string"}, "y": {"$id": "https://agentgate.test/x/1", "type": "integer"}}`,
		}, schemas.ErrDuplicateID, "also declared by"},
		{"recursion through properties loads", map[string]string{
			"tree": `"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}}}`,
		}, nil, ""},
		{"fan-out of 10 levels loads", map[string]string{"f10": fanOut(10)}, nil, ""},
		{"a chain of 20 refs loads", map[string]string{"c20": chain(20)}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fsys := schemaFS(tt.files)
			_, err := schemas.LoadFS(fsys)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("LoadFS: %v", err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("LoadFS = %.300v, want %v containing %q", err, tt.wantErr, tt.wantMsg)
			}
			report, err := schemas.LintFS(fsys)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range report.Findings {
				found = found || f.Severity == schemas.SeverityError && errors.Is(f.Err, tt.wantErr)
			}
			if !found {
				t.Errorf("lint findings %+v lack %v", report.Findings, tt.wantErr)
			}
		})
	}
}
