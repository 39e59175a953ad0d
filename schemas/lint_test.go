package schemas_test

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentgate/agentgate/schemas"
)

// lintFS lints an in-memory configuration.
func lintFS(t *testing.T, files map[string]string) *schemas.LintReport {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	r, err := schemas.LintFS(fsys)
	if err != nil {
		t.Fatalf("LintFS: %v", err)
	}
	return r
}

// okSchema is a schema with no finding; x is its $id's name.
func okSchema(x string) string {
	return `{"$id": "https://t.dev/` + x + `/1.0.0", "title": "T", "description": "D", "type": "object",
		"additionalProperties": false, "properties": {"a": {"type": "string"}}}`
}

func TestLint_errors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   map[string]string
		file    string // the file the error is reported under
		wantErr error
		want    string
	}{
		{"unparsable JSON", map[string]string{"schemas/x.schema.json": `{"$id": `}, "schemas/x.schema.json", schemas.ErrInvalidJSON, "invalid JSON"},
		{"no $id", map[string]string{"schemas/x.schema.json": `{"title": "T"}`}, "schemas/x.schema.json", schemas.ErrNoID, "no $id"},
		{"no semver", map[string]string{"schemas/x.schema.json": `{"$id": "https://t.dev/x/latest"}`}, "schemas/x.schema.json", schemas.ErrBadVersion, `last segment "latest"`},
		{"duplicate $id", map[string]string{"schemas/a.schema.json": okSchema("x"), "schemas/b.schema.json": okSchema("x")},
			"schemas/b.schema.json", schemas.ErrDuplicateID, "also declared by schemas/a.schema.json"},
		{"meta-schema", map[string]string{"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0", "type": "strnig"}`}, "schemas/x.schema.json", schemas.ErrMetaSchema, "$.type"},
		{"unresolved $ref", map[string]string{"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0", "$ref": "#/$defs/nope"}`},
			"schemas/x.schema.json", schemas.ErrUnresolvedRef, `at #/$ref ("#/$defs/nope"): json pointer segment not found`},
		{"$ref outside the registry", map[string]string{"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0", "$ref": "https://example.com/s.json"}`},
			"schemas/x.schema.json", schemas.ErrExternalRef, `$ref outside the registry: "https://example.com/s.json"`},
		{"unknown schema", map[string]string{"agents/a.json": `{"name": "a", "output_schema": "https://t.dev/none/1.0.0"}`},
			"agents/a.json", schemas.ErrUnknownSchema, `"https://t.dev/none/1.0.0"`},
		{"alias collides with a property", map[string]string{"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0", "properties": {"title": {}, "action": {"x-aliases": ["title"]}}}`},
			"schemas/x.schema.json", schemas.ErrBadAlias, `$.properties.action['x-aliases']: "title" collides with the property $.properties.title`},
		{"alias claimed twice", map[string]string{"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0", "properties": {"a": {"x-aliases": ["n"]}, "b": {"x-aliases": ["n"]}}}`},
			"schemas/x.schema.json", schemas.ErrBadAlias, `$.properties.b['x-aliases']: "n" is also an alias of "a"`},
		{"alias across allOf branches", map[string]string{"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0", "allOf": [{"properties": {"a": {}}}, {"properties": {"b": {"x-aliases": ["a"]}}}]}`},
			"schemas/x.schema.json", schemas.ErrBadAlias, `$.allOf[1].properties.b['x-aliases']: "a" collides with the property $.allOf[0].properties.a`},
		{"alias of itself", map[string]string{"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0", "$defs": {"d": {"properties": {"a": {"x-aliases": ["a"]}}}}}`},
			"schemas/x.schema.json", schemas.ErrBadAlias, `$['$defs'].d.properties.a['x-aliases']: "a" is the property's own name`},
		{"alias of a property restated in an allOf branch", map[string]string{"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0", "properties": {"a": {"x-aliases": ["n"]}}, "allOf": [{"properties": {"b": {"x-aliases": ["m"]}}}, {"properties": {"b": {"x-aliases": ["n"]}}}]}`},
			"schemas/x.schema.json", schemas.ErrBadAlias, `$.allOf[1].properties.b['x-aliases']: "n" is also an alias of "a"`},
		{"alias not a string", map[string]string{"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0", "properties": {"a": {"x-aliases": ["b", 3]}}}`},
			"schemas/x.schema.json", schemas.ErrBadAlias, `$.properties.a['x-aliases'][1]: want a name, got integer`},
		{"x-sensitive not a boolean", map[string]string{"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0", "properties": {"a": {"items": {"x-sensitive": "true"}}}}`},
			"schemas/x.schema.json", schemas.ErrBadSensitive, `$.properties.a.items['x-sensitive']: want true or false, got string`},
		{"inline x-sensitive not a boolean", map[string]string{"agents/a.json": `{"name": "a", "output_schema": {"properties": {"a": {"x-sensitive": 1}}}}`},
			"agents/a.json", schemas.ErrBadSensitive, `x-sensitive']: want true or false, got integer`},
		{"inline schema alias", map[string]string{"agents/a.json": `{"name": "a", "output_schema": {"properties": {"a": {"x-aliases": ["b"]}, "b": {}}}}`},
			"agents/a.json", schemas.ErrBadAlias, `output_schema: invalid blueprint: invalid x-aliases: $.properties.a['x-aliases']: "b" collides`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := lintFS(t, tt.files)
			var found bool
			for _, f := range r.Findings {
				if f.Severity != schemas.SeverityError {
					continue
				}
				if f.File == tt.file && errors.Is(f.Err, tt.wantErr) && strings.Contains(f.Message, tt.want) {
					found = true
				}
			}
			if !found {
				t.Errorf("no error in %s wrapping %v and containing %q; findings:\n%+v", tt.file, tt.wantErr, tt.want, r.Findings)
			}
			// Load refuses the same configuration, with the same message.
			_, err := loadFS(t, tt.files)
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.file+": ") {
				t.Errorf("Load error %v, want %v naming %s", err, tt.wantErr, tt.file)
			}
		})
	}
}

func TestLint_warnings(t *testing.T) {
	t.Parallel()
	const head = `"$id": "https://t.dev/x/1.0.0", "title": "T", "description": "D"`
	tests := []struct {
		name  string
		files map[string]string
		want  []string // "file path: message prefix"; nil: no warning
	}{
		{"clean", map[string]string{"schemas/x.schema.json": okSchema("x")}, nil},
		{"no title or description", map[string]string{"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0"}`},
			[]string{"schemas/x.schema.json $: no description", "schemas/x.schema.json $: no title"}},
		{"open object under a stripping blueprint", map[string]string{
			"schemas/x.schema.json": `{` + head + `, "type": "object", "additionalProperties": false, "properties": {"c": {"$ref": "#/$defs/c"}},
				"$defs": {"c": {"type": "object", "properties": {"v": {}}}, "unused": {"type": "object"}}}`,
			"agents/a.json": `{"name": "a", "output_schema": "https://t.dev/x/1.0.0"}`,
			"agents/b.json": `{"name": "b", "output_schema": "https://t.dev/x/1.0.0"}`,
		}, []string{
			`schemas/x.schema.json $['$defs'].c: object allows any member (no "additionalProperties": false): extra_fields "strip" of agents "a", "b"`,
			`schemas/x.schema.json $['$defs'].unused: object allows any member`,
		}},
		{"an alias restated with its property in an allOf branch", map[string]string{
			"schemas/x.schema.json": `{` + head + `, "type": "object", "additionalProperties": false, "properties": {"a": {"x-aliases": ["n"]}},
				"allOf": [{"properties": {"a": {"x-aliases": ["n"]}}}]}`,
		}, nil},
		{"open object, blueprint rejects", map[string]string{
			"schemas/x.schema.json": `{` + head + `, "type": "object"}`,
			"agents/a.json":         `{"name": "a", "output_schema": "https://t.dev/x/1.0.0", "extra_fields": "reject"}`,
		}, nil},
		{"open object reached in another file", map[string]string{
			"schemas/x.schema.json": `{` + head + `, "type": "object", "additionalProperties": false, "properties": {"p": {"$ref": "https://t.dev/y/1.0.0"}}}`,
			"schemas/y.schema.json": `{"$id": "https://t.dev/y/1.0.0", "title": "T", "description": "D", "type": "object"}`,
			"agents/a.json":         `{"name": "a", "output_schema": "https://t.dev/x/1.0.0"}`,
		}, []string{`schemas/y.schema.json $: object allows any member`}},
		{"open inline schema", map[string]string{"agents/a.json": `{"name": "a", "output_schema": {"type": "object", "properties": {"a": {}}}}`},
			[]string{`agents/a.json $: object allows any member`}},
		{"unevaluatedProperties closes too", map[string]string{
			"schemas/x.schema.json": `{` + head + `, "type": "object", "unevaluatedProperties": false}`,
			"agents/a.json":         `{"name": "a", "output_schema": "https://t.dev/x/1.0.0"}`,
		}, nil},
		{"oneOf exclusive by type", map[string]string{"schemas/x.schema.json": `{` + head + `, "oneOf": [{"type": "string"}, {"type": "integer"}]}`},
			[]string{`schemas/x.schema.json $.oneOf: oneOf branches are mutually exclusive (by type)`}},
		{"oneOf exclusive by discriminator", map[string]string{"schemas/x.schema.json": `{` + head + `, "oneOf": [
				{"$ref": "#/$defs/a"}, {"required": ["kind"], "properties": {"kind": {"enum": ["b", "c"]}}}],
				"$defs": {"a": {"required": ["kind"], "properties": {"kind": {"const": "a"}}}}}`},
			[]string{`schemas/x.schema.json $.oneOf: oneOf branches are mutually exclusive (by the discriminator "kind")`}},
		{"oneOf exclusive by value", map[string]string{"schemas/x.schema.json": `{` + head + `, "oneOf": [{"const": 1}, {"enum": [2, 3]}]}`},
			[]string{`schemas/x.schema.json $.oneOf: oneOf branches are mutually exclusive (by value)`}},
		{"oneOf that may overlap", map[string]string{"schemas/x.schema.json": `{` + head + `, "oneOf": [{"type": "string"}, {"type": "string", "maxLength": 3}]}`}, nil},
		{"oneOf discriminator not required", map[string]string{"schemas/x.schema.json": `{` + head + `, "oneOf": [
				{"properties": {"kind": {"const": "a"}}}, {"properties": {"kind": {"const": "b"}}}]}`}, nil},
		{"oneOf integer and number overlap", map[string]string{"schemas/x.schema.json": `{` + head + `, "oneOf": [{"type": "number"}, {"type": "integer"}]}`}, nil},
		{"enum case duplicates", map[string]string{"schemas/x.schema.json": `{` + head + `, "properties": {"p": {"enum": ["High", "high", "low", 1]}}}`},
			[]string{`schemas/x.schema.json $.properties.p.enum: enum values "High" and "high" differ only in case`}},
		{"enum value in an enum is no schema", map[string]string{"schemas/x.schema.json": `{` + head + `, "enum": [{"enum": ["A", "a"]}]}`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := lintFS(t, tt.files)
			if r.Errors() != 0 {
				t.Fatalf("errors: %+v", r.Findings)
			}
			var got []string
			for _, f := range r.Findings {
				got = append(got, f.File+" "+f.Path+": "+f.Message)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("warnings:\n%s\nwant %d:\n%s", strings.Join(got, "\n"), len(tt.want), strings.Join(tt.want, "\n"))
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("warning %d:\n%s\nwant it to start with\n%s", i, got[i], w)
				}
			}
		})
	}
}

// TestLint_agreesWithLoad checks, on every bad configuration in testdata,
// that lint reports exactly the problems Load refuses, with the same
// messages, and that a good configuration has no error.
func TestLint_agreesWithLoad(t *testing.T) {
	t.Parallel()
	dirs, err := filepath.Glob(filepath.Join("testdata", "bad", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range append(dirs, filepath.Join("testdata", "good"), filepath.Join("..", "examples")) {
		_, loadErr := schemas.Load(dir)
		report, lintErr := schemas.Lint(dir)
		if lintErr != nil {
			if !errors.Is(loadErr, schemas.ErrConfigDir) {
				t.Errorf("%s: Lint: %v", dir, lintErr)
			}
			continue
		}
		var want, got []string
		if loadErr != nil {
			want = strings.Split(loadErr.Error(), "\n")
		}
		for _, f := range report.Findings {
			if f.Severity == schemas.SeverityError {
				got = append(got, f.File+": "+f.Message)
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: lint errors\n%s\nLoad errors\n%s", dir, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

func TestLint_files(t *testing.T) {
	t.Parallel()
	r, err := schemas.Lint(filepath.Join("testdata", "good"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, glob := range []string{"agents/*.json", "schemas/*.schema.json"} {
		files, _ := filepath.Glob(filepath.Join("testdata", "good", filepath.FromSlash(glob)))
		want = append(want, files...)
	}
	if !slices.Equal(r.Files, want) {
		t.Errorf("Files = %v, want %v", r.Files, want)
	}
	if _, err := schemas.Lint(filepath.Join("testdata", "no-such-dir")); !errors.Is(err, schemas.ErrConfigDir) {
		t.Errorf("missing dir: error %v", err)
	}
}
