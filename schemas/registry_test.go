package schemas_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/agentgate/agentgate/schemas"
)

const prReviewID = "https://agentgate.dev/schemas/pr-review/1.0.0"

// loadGood loads testdata/good, failing the test on error.
func loadGood(t *testing.T) *schemas.Registry {
	t.Helper()
	r, err := schemas.Load(filepath.Join("testdata", "good"))
	if err != nil {
		t.Fatalf("Load(testdata/good): %v", err)
	}
	return r
}

// loadFS loads an in-memory configuration from file name to content.
func loadFS(t *testing.T, files map[string]string) (*schemas.Registry, error) {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return schemas.LoadFS(fsys)
}

func TestLoad_goodSchemas(t *testing.T) {
	t.Parallel()
	r := loadGood(t)

	var ids []string
	for _, s := range r.Schemas() {
		ids = append(ids, s.ID)
	}
	wantIDs := []string{
		"https://agentgate.dev/schemas/common/1.0.0",
		prReviewID,
		"https://agentgate.dev/schemas/triage/2.1.0-beta.1",
		"https://agentgate.dev/schemas/zz-labels/1.0.0",
		"urn:agentgate:inline:summarizer",
		"urn:agentgate:inline:tooler/tools/search",
	}
	if fmt.Sprint(ids) != fmt.Sprint(wantIDs) {
		t.Errorf("Schemas() ids = %v, want %v", ids, wantIDs)
	}

	tests := []struct {
		id, version, draft, title, source string
	}{
		{prReviewID, "1.0.0", schemas.Draft2020, "Pull request review", filepath.Join("testdata", "good", "schemas", "pr-review.schema.json")},
		{"https://agentgate.dev/schemas/common/1.0.0", "1.0.0", schemas.Draft07, "Common definitions", filepath.Join("testdata", "good", "schemas", "common.schema.json")},
		{"https://agentgate.dev/schemas/triage/2.1.0-beta.1", "2.1.0-beta.1", schemas.Draft2020, "Issue triage", filepath.Join("testdata", "good", "schemas", "a-triage.schema.json")},
		{"urn:agentgate:inline:summarizer", "", schemas.Draft2020, "", "inline:summarizer"},
	}
	for _, tt := range tests {
		s, ok := r.Schema(tt.id)
		if !ok {
			t.Errorf("Schema(%q) not found", tt.id)
			continue
		}
		if s.ID != tt.id || s.Version != tt.version || s.Draft != tt.draft || s.Title != tt.title || s.Source != tt.source {
			t.Errorf("Schema(%q) = {%q %q %q %q %q}, want {%q %q %q %q %q}", tt.id,
				s.ID, s.Version, s.Draft, s.Title, s.Source, tt.id, tt.version, tt.draft, tt.title, tt.source)
		}
		if s.Doc == nil || len(s.Raw) == 0 {
			t.Errorf("Schema(%q): empty Doc or Raw", tt.id)
		}
	}

	s, _ := r.Schema(prReviewID)
	raw, err := os.ReadFile(s.Source)
	if err != nil {
		t.Fatal(err)
	}
	if string(s.Raw) != string(raw) {
		t.Error("Raw is not the file as loaded")
	}
	if s.Description != "The verdict of a pull request review." {
		t.Errorf("Description = %q", s.Description)
	}
	if _, ok := r.Schema(prReviewID + "#"); !ok {
		t.Error("Schema(id + \"#\") not found")
	}
	if _, ok := r.Schema("https://agentgate.dev/schemas/pr-review/2.0.0"); ok {
		t.Error("Schema(unknown) found")
	}
}

func TestLoad_bad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		dir      string
		file     string // file the error must name
		wantErr  []error
		wantText string
	}{
		{"no-id", "schemas/x.schema.json", []error{schemas.ErrNoID}, "no $id"},
		{"relative-id", "schemas/x.schema.json", []error{schemas.ErrNoID}, "not an absolute URI"},
		{"bad-version", "schemas/x.schema.json", []error{schemas.ErrBadVersion}, `last segment "latest"`},
		{"draft-04", "schemas/x.schema.json", []error{schemas.ErrUnsupportedDraft}, "draft-04"},
		{"duplicate-id", "schemas/b.schema.json", []error{schemas.ErrDuplicateID}, "also declared by " + filepath.Join("testdata", "bad", "duplicate-id", "schemas", "a.schema.json")},
		{"unresolved-ref", "schemas/x.schema.json", []error{schemas.ErrUnresolvedRef},
			`at #/properties/a/$ref ("#/$defs/missing"): json pointer segment not found`},
		{"remote-ref", "schemas/x.schema.json", []error{schemas.ErrUnresolvedRef, schemas.ErrExternalRef},
			`$ref outside the registry: "https://example.com/x.json" (refs resolve only within the registry; nothing is fetched)`},
		{"typo-type", "schemas/x.schema.json", []error{schemas.ErrMetaSchema}, `$.properties.a.type: value must match at least one of the allowed schemas: value must be one of "array", "boolean"`},
		{"wrong-typed-keyword", "schemas/x.schema.json", []error{schemas.ErrMetaSchema}, "(draft-07): $.properties.a.minLength: expected integer, got string"},
		{"bad-regex", "schemas/x.schema.json", []error{schemas.ErrMetaSchema}, "$.properties.a.pattern: value must be a valid regex"},
		{"invalid-json", "schemas/x.schema.json", []error{schemas.ErrInvalidJSON}, "invalid character"},
		{"bp-unknown-field", "agents/a.json", []error{schemas.ErrBadBlueprint}, `unknown field "max_retry"`},
		{"bp-unknown-schema", "agents/a.json", []error{schemas.ErrUnknownSchema}, `"https://agentgate.dev/schemas/nope/1.0.0"`},
		{"bp-bad-name", "agents/a.json", []error{schemas.ErrBadBlueprint}, `name "pr reviewer" is not a subject token`},
		{"bp-duplicate-name", "agents/b.json", []error{schemas.ErrDuplicateBlueprint}, `"same" is also declared by`},
		{"bp-extra-fields", "agents/a.json", []error{schemas.ErrBadBlueprint}, `extra_fields is "drop"`},
		{"bp-negative-retries", "agents/a.json", []error{schemas.ErrBadBlueprint}, "max_retries is -1"},
		{"bp-wrong-type", "agents/a.json", []error{schemas.ErrBadBlueprint}, "coerce is a JSON string, want a boolean"},
		{"bp-inline-invalid", "agents/a.json", []error{schemas.ErrBadBlueprint, schemas.ErrMetaSchema}, "output_schema: "},
		{"bp-inline-unresolved", "agents/a.json", []error{schemas.ErrBadBlueprint, schemas.ErrUnresolvedRef}, `"#/$defs/nothing"`},
		{"empty", "", []error{schemas.ErrConfigDir}, "neither a schemas/ nor an agents/ folder"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join("testdata", "bad", tt.dir)
			r, err := schemas.Load(dir)
			if err == nil {
				t.Fatal("Load succeeded")
			}
			if r != nil {
				t.Error("Load returned a registry with its error")
			}
			for _, want := range tt.wantErr {
				if !errors.Is(err, want) {
					t.Errorf("error %q is not %v", err, want)
				}
			}
			msg := err.Error()
			if tt.file != "" && !strings.HasPrefix(msg, filepath.Join(dir, filepath.FromSlash(tt.file))+": ") {
				t.Errorf("error %q does not start with the file %s", msg, tt.file)
			}
			if !strings.Contains(msg, tt.wantText) {
				t.Errorf("error %q does not contain %q", msg, tt.wantText)
			}
		})
	}
}

func TestLoad_reportsEveryProblem(t *testing.T) {
	t.Parallel()
	_, err := schemas.Load(filepath.Join("testdata", "bad", "many"))
	if err == nil {
		t.Fatal("Load succeeded")
	}
	for _, want := range []error{schemas.ErrNoID, schemas.ErrBadVersion, schemas.ErrUnknownSchema} {
		if !errors.Is(err, want) {
			t.Errorf("error is not %v", want)
		}
	}
	if lines := strings.Split(err.Error(), "\n"); len(lines) != 3 {
		t.Errorf("want 3 problems, one per line, got %d:\n%v", len(lines), err)
	}
}

func TestLoad_missingDir(t *testing.T) {
	t.Parallel()
	_, err := schemas.Load(filepath.Join("testdata", "no-such-dir"))
	if !errors.Is(err, schemas.ErrConfigDir) {
		t.Errorf("error %v is not ErrConfigDir", err)
	}
}

func TestLoadFS_bad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   map[string]string
		wantErr error
		want    string
	}{
		{
			name:    "duplicate member",
			files:   map[string]string{"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0", "properties": {"a": {"type": "string", "type": "integer"}}}`},
			wantErr: schemas.ErrInvalidJSON,
			want:    `member "type" appears twice in $.properties.a`,
		},
		{
			name:    "invalid UTF-8",
			files:   map[string]string{"schemas/x.schema.json": "{\"$id\": \"https://t.dev/x/1.0.0\", \"title\": \"\xff\"}"},
			wantErr: schemas.ErrInvalidJSON,
			want:    "not valid UTF-8",
		},
		{
			name:    "not an object",
			files:   map[string]string{"schemas/x.schema.json": `true`},
			wantErr: schemas.ErrInvalidJSON,
			want:    "want a JSON object, got boolean",
		},
		{
			name:    "trailing data",
			files:   map[string]string{"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0"} {}`},
			wantErr: schemas.ErrInvalidJSON,
			want:    "data after the top-level value",
		},
		{
			name:    "fragment in $id",
			files:   map[string]string{"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0#top"}`},
			wantErr: schemas.ErrNoID,
			want:    "has a fragment",
		},
		{
			name:    "reserved inline prefix",
			files:   map[string]string{"schemas/x.schema.json": `{"$id": "urn:agentgate:inline:x/1.0.0"}`},
			wantErr: schemas.ErrNoID,
			want:    "reserved for inline",
		},
		{
			name:    "unknown $schema",
			files:   map[string]string{"schemas/x.schema.json": `{"$schema": "https://example.com/my-meta", "$id": "https://t.dev/x/1.0.0"}`},
			wantErr: schemas.ErrUnsupportedDraft,
			want:    `"https://example.com/my-meta"`,
		},
		{
			name:    "wrong-typed keyword, 2020-12",
			files:   map[string]string{"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0", "properties": {"a": {"maxLength": -1}}, "required": ["a", "a"]}`},
			wantErr: schemas.ErrMetaSchema,
			want:    "$.properties.a.maxLength: value must be >= 0; $.required: array items must be unique",
		},
		{
			name:    "blueprint member spelled in another case",
			files:   map[string]string{"agents/a.json": `{"name": "a", "Max_Retries": 3}`},
			wantErr: schemas.ErrBadBlueprint,
			want:    `unknown field "Max_Retries"`,
		},
		{
			name:    "blueprint member twice",
			files:   map[string]string{"agents/a.json": `{"name": "a", "name": "b"}`},
			wantErr: schemas.ErrInvalidJSON,
			want:    `member "name" appears twice in $`,
		},
		{
			name:    "reserved agent name",
			files:   map[string]string{"agents/a.json": `{"name": "_"}`},
			wantErr: schemas.ErrBadBlueprint,
			want:    `name "_" is reserved`,
		},
		{
			name:    "no agent name",
			files:   map[string]string{"agents/a.json": `{"description": "nameless"}`},
			wantErr: schemas.ErrBadBlueprint,
			want:    "no name",
		},
		{
			name:    "fractional max_retries",
			files:   map[string]string{"agents/a.json": `{"name": "a", "max_retries": 1.5}`},
			wantErr: schemas.ErrBadBlueprint,
			want:    "max_retries is a JSON number 1.5, want an integer",
		},
		{
			name:    "output_schema of the wrong type",
			files:   map[string]string{"agents/a.json": `{"name": "a", "output_schema": 7}`},
			wantErr: schemas.ErrBadBlueprint,
			want:    "want a schema $id string, a schema object or a boolean",
		},
		{
			name:    "inline schema that is no schema",
			files:   map[string]string{"agents/a.json": `{"name": "a", "output_schema": {"type": 7}}`},
			wantErr: schemas.ErrMetaSchema,
			want:    "output_schema",
		},
		{
			name:    "parameters_schema not an object",
			files:   map[string]string{"agents/a.json": `{"name": "a", "parameters_schema": "object"}`},
			wantErr: schemas.ErrBadBlueprint,
			want:    "parameters_schema must be a JSON object",
		},
		{
			name:    "tools without reply",
			files:   map[string]string{"agents/a.json": `{"name": "a", "tools": {"t": {}}}`},
			wantErr: schemas.ErrBadBlueprint,
			want:    "tools is set but reply is not",
		},
		{
			name:    "reply without tools",
			files:   map[string]string{"agents/a.json": `{"name": "a", "reply": "tool_or_answer"}`},
			wantErr: schemas.ErrBadBlueprint,
			want:    "needs at least one tool",
		},
		{
			name:    "unknown reply",
			files:   map[string]string{"agents/a.json": `{"name": "a", "reply": "json"}`},
			wantErr: schemas.ErrBadBlueprint,
			want:    `reply is "json"`,
		},
		{
			name:    "tool schema of the wrong type",
			files:   map[string]string{"agents/a.json": `{"name": "a", "reply": "tool_or_answer", "tools": {"t": [1]}}`},
			wantErr: schemas.ErrBadBlueprint,
			want:    "tools.t: invalid blueprint: want a schema $id string, a schema object or a boolean",
		},
		{
			name:    "tool schema naming an unknown $id",
			files:   map[string]string{"agents/a.json": `{"name": "a", "reply": "tool_or_answer", "tools": {"t": "https://t.dev/t/1.0.0"}}`},
			wantErr: schemas.ErrUnknownSchema,
			want:    `tools.t: unknown schema`,
		},
		{
			name:    "bad tool name",
			files:   map[string]string{"agents/a.json": `{"name": "a", "reply": "tool_or_answer", "tools": {"web search": {}}}`},
			wantErr: schemas.ErrBadBlueprint,
			want:    `tool name "web search" is not valid`,
		},
		{
			name:    "output_schema naming an inline schema",
			files:   map[string]string{"agents/a.json": `{"name": "a", "output_schema": {}}`, "agents/b.json": `{"name": "b", "output_schema": "urn:agentgate:inline:a"}`},
			wantErr: schemas.ErrUnknownSchema,
			want:    `"urn:agentgate:inline:a"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := loadFS(t, tt.files)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v is not %v", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

// TestLoadFS_refsAcrossFilesInAnyOrder checks that a schema may refer to one
// compiled after it, and that the ref is followed when validating.
func TestLoadFS_refsAcrossFilesInAnyOrder(t *testing.T) {
	t.Parallel()
	first := `{"$id": "https://t.dev/first/1.0.0", "type": "object", "properties": {"x": {"$ref": "https://t.dev/second/1.0.0#/$defs/pos"}}}`
	second := `{"$id": "https://t.dev/second/1.0.0", "$defs": {"pos": {"type": "integer", "minimum": 1}}, "properties": {"back": {"$ref": "../first/1.0.0"}}}`
	for _, names := range [][2]string{{"a", "b"}, {"b", "a"}} {
		r, err := loadFS(t, map[string]string{
			"schemas/" + names[0] + ".schema.json": first,
			"schemas/" + names[1] + ".schema.json": second,
		})
		if err != nil {
			t.Fatalf("order %v: %v", names, err)
		}
		s, _ := r.Schema("https://t.dev/first/1.0.0")
		got := s.Validate(decode(t, `{"x": 0}`))
		if len(got) != 1 || got[0].Path != "$.x" || got[0].Keyword != "minimum" {
			t.Errorf("order %v: violations %+v, want one minimum at $.x", names, got)
		}
	}
}

// TestLoadFS_neverFetches points a $ref at a live server and checks it is
// never asked for anything.
func TestLoadFS_neverFetches(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte(`{"type": "string"}`))
	}))
	t.Cleanup(srv.Close)
	for _, ref := range []string{srv.URL + "/x.json", "https://example.com/x.json", "http://json-schema.org/draft-06/schema#"} {
		_, err := loadFS(t, map[string]string{
			"schemas/x.schema.json": fmt.Sprintf(`{"$id": "https://t.dev/x/1.0.0", "properties": {"a": {"$ref": %q}}}`, ref),
		})
		if !errors.Is(err, schemas.ErrUnresolvedRef) {
			t.Errorf("$ref %s: error %v is not ErrUnresolvedRef", ref, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the server was asked %d times", n)
	}
}

// TestLoadFS_refToMetaSchema checks that the embedded 2020-12 meta-schema is
// a registry member like any other.
func TestLoadFS_refToMetaSchema(t *testing.T) {
	t.Parallel()
	r, err := loadFS(t, map[string]string{
		"schemas/x.schema.json": `{"$id": "https://t.dev/x/1.0.0", "properties": {"schema": {"$ref": "https://json-schema.org/draft/2020-12/schema"}}}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := r.Schema("https://t.dev/x/1.0.0")
	if got := s.Validate(decode(t, `{"schema": {"type": "object"}}`)); got != nil {
		t.Errorf("valid: %+v", got)
	}
	if got := s.Validate(decode(t, `{"schema": {"type": 5}}`)); len(got) == 0 {
		t.Error("invalid schema accepted")
	}
}

func TestLoadFS_onlyOneFolder(t *testing.T) {
	t.Parallel()
	r, err := loadFS(t, map[string]string{"agents/a.json": `{"name": "a"}`})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Schemas()) != 0 || len(r.Blueprints()) != 1 {
		t.Errorf("got %d schemas, %d blueprints", len(r.Schemas()), len(r.Blueprints()))
	}
}

// TestLoadFS_refsAcrossFiles checks that schema files compile together,
// whatever their order: a file reaches another's corrections (an ECMA-262
// pattern, an empty enum), through the registry's compiler and through the
// compiler of an inline schema with its own $id; and a file whose $ref
// target is in error is in error too.
func TestLoadFS_refsAcrossFiles(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"schemas/a.schema.json": `{"$id": "https://t.dev/a/1.0.0", "properties": {"code": {"$ref": "https://t.dev/z/1.0.0#/$defs/code"}, "none": {"$ref": "https://t.dev/z/1.0.0#/$defs/none"}}}`,
		"schemas/z.schema.json": `{"$id": "https://t.dev/z/1.0.0", "$defs": {"code": {"type": "string", "pattern": "^(?=.*\\d)\\w+$"}, "none": {"enum": []}}}`,
	}
	r, err := inlineAgents(t, files, map[string]string{
		"own": `{"$id": "https://ex.test/own.json", "properties": {"code": {"$ref": "https://t.dev/z/1.0.0#/$defs/code"}}}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"https://t.dev/a/1.0.0", schemas.InlinePrefix + "own"} {
		s, _ := r.Schema(id)
		if vs := s.Validate(decode(t, `{"code": "abc1"}`)); vs != nil {
			t.Errorf("%s: violations %+v", id, vs)
		}
		vs := s.Validate(decode(t, `{"code": "abc"}`))
		if len(vs) != 1 || vs[0].Keyword != "pattern" || vs[0].Path != "$.code" {
			t.Errorf("%s: violations %+v, want one pattern at $.code", id, vs)
		}
	}
	a, _ := r.Schema("https://t.dev/a/1.0.0")
	if vs := a.Validate(decode(t, `{"none": 1}`)); len(vs) != 1 || vs[0].Keyword != "enum" {
		t.Errorf("violations %+v, want one enum", vs)
	}

	files["schemas/z.schema.json"] = `{"$id": "https://t.dev/z/1.0.0", "$defs": {"code": {"$ref": "#/$defs/gone"}, "none": {}}}`
	_, err = loadFS(t, files)
	for _, f := range []string{"schemas/a.schema.json: ", "schemas/z.schema.json: "} {
		if !errors.Is(err, schemas.ErrUnresolvedRef) || !strings.Contains(fmt.Sprint(err), f) {
			t.Errorf("error %v: want ErrUnresolvedRef, naming %s", err, f)
		}
	}
}
