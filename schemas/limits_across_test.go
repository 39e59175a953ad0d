package schemas_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentgate/agentgate/schemas"
)

// uri is the $id schemaFS gives the file name.
func uri(name string) string { return "https://agentgate.test/" + name + "/1.0.0" }

// chainTo is a chain of n $refs within the document whose last link
// references target.
func chainTo(n int, target string) string {
	var defs []string
	for i := range n {
		defs = append(defs, fmt.Sprintf(`"c%d": {"$ref": "#/$defs/c%d"}`, i, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"c%d": {"$ref": %q}`, n, target))
	return `"$ref": "#/$defs/c0", "$defs": {` + strings.Join(defs, ", ") + `}`
}

// fanOutTo is fanOut(levels) whose leaves reference target.
func fanOutTo(levels int, target string) string {
	var defs []string
	for i := range levels {
		defs = append(defs, fmt.Sprintf(`"l%d": {"allOf": [{"$ref": "#/$defs/l%d"}, {"$ref": "#/$defs/l%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"l%d": {"$ref": %q}`, levels, target))
	return `"$ref": "#/$defs/l0", "$defs": {` + strings.Join(defs, ", ") + `}`
}

// The limits span documents: a cycle, a chain or a fan-out that only
// appears when $refs are followed from one schema file into another is
// refused at load and by lint, naming the documents and their files; a
// recursion across files that consumes input loads. Each file of every
// case is within the limits on its own.
func TestLoad_schemaLimitsAcrossFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   map[string]string
		agents  map[string]string // agent name → output_schema text
		wantErr error
		wantMsg []string
	}{
		{
			name: "root $ref to each other",
			files: map[string]string{
				"a": fmt.Sprintf(`"$ref": %q`, uri("b")),
				"b": fmt.Sprintf(`"$ref": %q`, uri("a")),
			},
			wantErr: schemas.ErrRefCycle,
			wantMsg: []string{
				uri("a") + "# → " + uri("b") + "# → " + uri("a") + "#",
				"schemas/a.schema.json", "schemas/b.schema.json",
			},
		},
		{
			name: "through allOf and anyOf into a $defs",
			files: map[string]string{
				"a": fmt.Sprintf(`"allOf": [{"$ref": "%s#/$defs/x"}]`, uri("b")),
				"b": fmt.Sprintf(`"$defs": {"x": {"anyOf": [{"type": "string"}, {"$ref": %q}]}}`, uri("a")),
			},
			wantErr: schemas.ErrRefCycle,
			wantMsg: []string{uri("a") + "# → " + uri("a") + "#/allOf/0 → " + uri("b") + "#/$defs/x → " +
				uri("b") + "#/$defs/x/anyOf/1 → " + uri("a") + "#"},
		},
		{
			name: "three files",
			files: map[string]string{
				"a": fmt.Sprintf(`"$ref": %q`, uri("b")),
				"b": fmt.Sprintf(`"not": {"$ref": %q}`, uri("c")),
				"c": fmt.Sprintf(`"if": {"$ref": %q}`, uri("a")),
			},
			wantErr: schemas.ErrRefCycle,
			wantMsg: []string{
				uri("a") + "# → " + uri("b") + "# → " + uri("b") + "#/not → " + uri("c") + "# → " + uri("c") + "#/if → " + uri("a") + "#",
				"schemas/c.schema.json",
			},
		},
		{
			name: "through anchors of the same name in both files",
			files: map[string]string{
				"a": fmt.Sprintf(`"$ref": "%s#x", "$defs": {"y": {"$anchor": "x", "type": "string"}}`, uri("b")),
				"b": fmt.Sprintf(`"$defs": {"x": {"$anchor": "x", "oneOf": [{"$ref": %q}]}}`, uri("a")),
			},
			wantErr: schemas.ErrRefCycle,
			wantMsg: []string{uri("a") + "# → " + uri("b") + "#/$defs/x → "},
		},
		{
			name: "through an embedded $id",
			files: map[string]string{
				"a": `"$ref": "https://agentgate.test/inner", "$defs": {"i": {"$id": "https://agentgate.test/inner", "allOf": [{"$ref": "` + uri("b") + `"}]}}`,
				"b": fmt.Sprintf(`"$ref": %q`, "https://agentgate.test/inner"),
			},
			wantErr: schemas.ErrRefCycle,
			wantMsg: []string{uri("a") + "#/$defs/i → " + uri("a") + "#/$defs/i/allOf/0 → " + uri("b") + "# → " + uri("a") + "#/$defs/i"},
		},
		{
			name: "a chain over the limit across two files",
			files: map[string]string{
				"a": chainTo(20, uri("b")),
				"b": chain(20),
			},
			wantErr: schemas.ErrSchemaLimit,
			wantMsg: []string{"a chain of 43 $refs through " + uri("a") + " (schemas/a.schema.json), " + uri("b") + " (schemas/b.schema.json)"},
		},
		{
			name: "a fan-out over the limit across two files",
			files: map[string]string{
				"a": fanOutTo(10, uri("b")),
				"b": fanOut(10),
			},
			wantErr: schemas.ErrSchemaLimit,
			wantMsg: []string{"estimated evaluation cost", "across " + uri("a") + " (schemas/a.schema.json), " + uri("b")},
		},
		{
			name:    "an inline schema whose chain goes on in a file",
			files:   map[string]string{"b": chain(20)},
			agents:  map[string]string{"x": "{" + chainTo(11, uri("b")) + "}"},
			wantErr: schemas.ErrSchemaLimit,
			wantMsg: []string{"agents/x.json", "a chain of 34 $refs"},
		},
		{
			name:    "an inline schema whose chain goes on through two files",
			files:   map[string]string{"a": chainTo(5, uri("b")), "b": chain(20)},
			agents:  map[string]string{"x": "{" + chainTo(4, uri("a")) + "}"},
			wantErr: schemas.ErrSchemaLimit,
			wantMsg: []string{"agents/x.json", "a chain of 34 $refs through urn:agentgate:inline:x", uri("a") + " (schemas/a.schema.json), " + uri("b")},
		},
		{
			name:    "an inline schema whose fan-out goes on in a file",
			files:   map[string]string{"b": fanOut(10)},
			agents:  map[string]string{"x": "{" + fanOutTo(10, uri("b")) + "}"},
			wantErr: schemas.ErrSchemaLimit,
			wantMsg: []string{"agents/x.json", "estimated evaluation cost"},
		},
		{
			name: "recursion across files through properties loads",
			files: map[string]string{
				"person": fmt.Sprintf(`"type": "object", "properties": {"name": {"type": "string"}, "employer": {"$ref": %q}}`, uri("company")),
				"company": fmt.Sprintf(`"type": "object", "properties": {"staff": {"type": "array", "items": {"$ref": %q}}, "parent": {"allOf": [{"$ref": "#"}]}}`,
					uri("person")),
			},
			agents: map[string]string{"x": fmt.Sprintf(`{"properties": {"boss": {"$ref": %q}}}`, uri("person"))},
		},
		{
			name: "chains and sharing within the limits across files load",
			files: map[string]string{
				"a": chainTo(10, uri("b")),
				"b": fmt.Sprintf(`"allOf": [{"$ref": %q}, {"$ref": %q}]`, uri("c"), uri("c")),
				"c": fanOut(8),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fsys := schemaFS(tt.files)
			for name, schema := range tt.agents {
				fsys["agents/"+name+".json"] = &fstest.MapFile{Data: []byte(`{"name": "` + name + `", "output_schema": ` + schema + `}`)}
			}
			_, err := schemas.LoadFS(fsys)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("LoadFS: %v", err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("LoadFS = %.500v, want %v", err, tt.wantErr)
			}
			for _, want := range tt.wantMsg {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("LoadFS = %v\nwant it to contain %q", err, want)
				}
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
