package handlers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers/jsontext"
	"github.com/agentgate/agentgate/handlers/normalize"
	"github.com/agentgate/agentgate/internal/pipelinetest"
)

// outputFixture is a raw agent output under testdata/outputs, the example
// schema it answers, and the normalizations of its first candidate; the
// normalized document is in the file's .golden.json.
type outputFixture struct {
	file   string
	schema string
	ops    []contract.Normalization // nil with wantViolation
	// candidates is how many candidates Extract finds.
	candidates    int
	wantViolation string
}

func opExtract(from string) contract.Normalization {
	return contract.Normalization{Op: contract.OpExtract, Path: "$", Detail: from}
}

var outputFixtures = []outputFixture{
	{file: "pr-reviewer/valid.json", schema: "pr-review", candidates: 1},
	{
		file: "pr-reviewer/drifted_fence.md", schema: "pr-review", candidates: 1,
		ops: []contract.Normalization{
			opExtract("code fence"),
			pipelinetest.Rename("$", "review_comments", "comments"),
			pipelinetest.Coerce("$.approval", `"Request_Changes"`, `"request_changes"`, "string to enum value"),
			pipelinetest.Rename("$.comments[0]", "body", "message"),
			pipelinetest.Rename("$.comments[0]", "path", "file"),
			pipelinetest.Coerce("$.comments[0].line", `"42"`, `42`, "string to integer"),
			pipelinetest.Coerce("$.comments[0].severity", `"Concern"`, `"concern"`, "string to enum value"),
			pipelinetest.Strip("$.comments[0].trigger_pattern"),
			pipelinetest.Rename("$.comments[1]", "level", "severity"),
			pipelinetest.Rename("$.comments[1]", "line_number", "line"),
			pipelinetest.Drop("$.comments[1]", "text", "message"),
			pipelinetest.Coerce("$.comments[1].severity", `" blocker "`, `"blocker"`, "string to enum value"),
			pipelinetest.Strip("$.confidence"),
			pipelinetest.Coerce("$.metrics.files_reviewed", `"3"`, `3`, "string to integer"),
		},
	},
	{
		file: "pr-reviewer/drifted_prose.txt", schema: "pr-review", candidates: 1,
		ops: []contract.Normalization{
			opExtract("surrounding text"),
			pipelinetest.Rename("$", "decision", "approval"),
			pipelinetest.Rename("$", "overview", "summary"),
			pipelinetest.Coerce("$.comments", `{"comment":"Add a test for the last page.","filename":"api/li...`, `[{"comment":"Add a test for the last page.","filename":"api/l...`, "object to array"),
			pipelinetest.Rename("$.comments[0]", "comment", "message"),
			pipelinetest.Rename("$.comments[0]", "filename", "file"),
			pipelinetest.Rename("$.comments[0]", "lineno", "line"),
			pipelinetest.Rename("$.comments[0]", "priority", "severity"),
			{Op: contract.OpCoerce, Path: "$.metrics", From: "null", Detail: "null in optional member removed"},
		},
	},
	{file: "pr-reviewer/invalid.txt", schema: "pr-review", candidates: 1},
	{file: "pr-reviewer/two_blocks.txt", schema: "pr-review", candidates: 2, ops: []contract.Normalization{opExtract("surrounding text")}},
	{file: "code-analyzer/valid_fence.md", schema: "code-analysis", candidates: 1, ops: []contract.Normalization{opExtract("code fence")}},
	{
		file: "code-analyzer/drifted_string.json", schema: "code-analysis", candidates: 2,
		// The first candidate is the string itself: nothing to normalize.
	},
	{file: "code-analyzer/invalid.json", schema: "code-analysis", candidates: 1},
	{file: "tripwire-candidates/valid.json", schema: "tripwire-candidates", candidates: 1},
	{
		file: "tripwire-candidates/drifted.json", schema: "tripwire-candidates", candidates: 1,
		ops: []contract.Normalization{
			pipelinetest.Rename("$", "tripwire_candidates", "candidates"),
			pipelinetest.Rename("$.candidates[0]", "description", "warning"),
			pipelinetest.Rename("$.candidates[0]", "title", "action"),
			pipelinetest.Strip("$.candidates[0].severity"),
			pipelinetest.Strip("$.candidates[0].trigger_pattern"),
			pipelinetest.Drop("$.candidates[1]", "name", "action"),
			pipelinetest.Rename("$.candidates[1]", "title", "action"),
			{Op: contract.OpCoerce, Path: "$.candidates[1].target_doc_path", From: "null", Detail: "null in optional member removed"},
		},
	},
	{file: "tripwire-candidates/no_json.txt", schema: "tripwire-candidates", wantViolation: "no JSON document found"},
}

// TestNormalize_fixtures runs extraction and normalization on realistic raw
// outputs against the bundled example schemas. Every candidate's normalized
// document is compared with the fixture's .golden.json (an array, one
// entry per candidate).
func TestNormalize_fixtures(t *testing.T) {
	t.Parallel()
	for _, f := range outputFixtures {
		t.Run(f.file, func(t *testing.T) {
			t.Parallel()
			schema := pipelinetest.ExampleSchema(t, f.schema)
			cands, bad := jsontext.Extract(pipelinetest.OutputFixture(t, f.file), 0)
			if f.wantViolation != "" {
				if bad == nil || !strings.Contains(bad.Message, f.wantViolation) {
					t.Fatalf("Extract() violation = %+v, want %q", bad, f.wantViolation)
				}
				return
			}
			if bad != nil {
				t.Fatal(bad.Message)
			}
			if len(cands) != f.candidates {
				t.Fatalf("Extract() = %d candidates, want %d:%s", len(cands), f.candidates, describeCandidates(cands))
			}
			var docs []any
			for i, c := range cands {
				doc, ops := normalize.Normalize(c.Doc, schema, pipelinetest.LocalRefs{Root: schema}, stripAndCoerce)
				docs = append(docs, doc)
				if i == 0 {
					all := append(slices.Clone(c.Normalizations), ops...)
					if !slices.Equal(all, f.ops) {
						t.Errorf("normalizations =\n%s\nwant\n%s", pipelinetest.FormatNormalizations(all), pipelinetest.FormatNormalizations(f.ops))
					}
				}
			}
			golden := filepath.Join("testdata", "outputs", strings.TrimSuffix(f.file, filepath.Ext(f.file))+".golden.json")
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("reading golden: %v", err)
			}
			if got, want := pipelinetest.CompactJSON(t, docs), pipelinetest.CompactJSON(t, pipelinetest.DecodeDoc(t, string(want))); got != want {
				t.Errorf("normalized docs =\n%s\nwant (%s)\n%s", got, golden, want)
			}
		})
	}
}

// TestNormalize_driftedStringContent checks the second candidate of the
// double-encoded fixture, the one the pipeline would pick.
func TestNormalize_driftedStringContent(t *testing.T) {
	t.Parallel()
	schema := pipelinetest.ExampleSchema(t, "code-analysis")
	cands, bad := jsontext.Extract(pipelinetest.OutputFixture(t, "code-analyzer/drifted_string.json"), 0)
	if bad != nil || len(cands) != 2 {
		t.Fatalf("Extract() = %d candidates, %+v", len(cands), bad)
	}
	_, ops := normalize.Normalize(cands[1].Doc, schema, pipelinetest.LocalRefs{Root: schema}, stripAndCoerce)
	all := append(slices.Clone(cands[1].Normalizations), ops...)
	want := []contract.Normalization{
		opExtract("json string"),
		pipelinetest.Rename("$", "files_scanned", "files_analyzed"),
		pipelinetest.Rename("$", "findings", "issues"),
		pipelinetest.Coerce("$.files_analyzed", `"12"`, `12`, "string to integer"),
		pipelinetest.Rename("$.issues[0]", "description", "message"),
		pipelinetest.Rename("$.issues[0]", "fix", "suggestion"),
		pipelinetest.Rename("$.issues[0]", "lineno", "line"),
		pipelinetest.Rename("$.issues[0]", "path", "file"),
		pipelinetest.Rename("$.issues[0]", "type", "category"),
		pipelinetest.Coerce("$.issues[0].category", `"Security"`, `"security"`, "string to enum value"),
		pipelinetest.Strip("$.issues[0].confidence"),
		pipelinetest.Coerce("$.issues[0].line", `"88"`, `88`, "string to integer"),
		pipelinetest.Coerce("$.issues[0].severity", `"HIGH"`, `"high"`, "string to enum value"),
		{Op: contract.OpCoerce, Path: "$.issues[1].suggestion", From: "null", Detail: "null in optional member removed"},
	}
	if !slices.Equal(all, want) {
		t.Errorf("normalizations =\n%s\nwant\n%s", pipelinetest.FormatNormalizations(all), pipelinetest.FormatNormalizations(want))
	}
}

var semverID = regexp.MustCompile(`^https://[^/]+/.+/(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)

// TestExampleConfig checks the bundled configuration against contract
// section 5: schemas with an absolute semver $id, a title, a description and
// the 2020-12 dialect; blueprints naming a bundled schema.
func TestExampleConfig(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(pipelinetest.Root(t), "examples", "schemas", "*.schema.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example schemas: %v", err)
	}
	ids := map[string]bool{}
	for _, f := range files {
		s := pipelinetest.DecodeSchema(t, string(pipelinetest.ReadFile(t, f)))
		id, _ := s["$id"].(string)
		if !semverID.MatchString(id) {
			t.Errorf("%s: $id %q is not absolute with a semver last segment", f, id)
		}
		for _, kw := range []string{"title", "description"} {
			if v, _ := s[kw].(string); v == "" {
				t.Errorf("%s: no %s", f, kw)
			}
		}
		if s["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema = %v, want 2020-12", f, s["$schema"])
		}
		ids[id] = true
	}
	// JSON Type Definition schemas (contract section 5), named by metadata.id.
	jtds, _ := filepath.Glob(filepath.Join(pipelinetest.Root(t), "examples", "schemas", "*.jtd.json"))
	for _, f := range jtds {
		var s struct {
			Metadata struct {
				ID, Title, Description string
			}
		}
		if err := json.Unmarshal(pipelinetest.ReadFile(t, f), &s); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !semverID.MatchString(s.Metadata.ID) || s.Metadata.Title == "" || s.Metadata.Description == "" {
			t.Errorf("%s: want metadata.id with a semver, a title and a description", f)
		}
		ids[s.Metadata.ID] = true
	}
	agents, _ := filepath.Glob(filepath.Join(pipelinetest.Root(t), "examples", "agents", "*.json"))
	if len(agents) != 5 {
		t.Errorf("%d example agents, want 5", len(agents))
	}
	for _, f := range agents {
		var bp struct {
			Name         string `json:"name"`
			Description  string `json:"description"`
			OutputSchema string `json:"output_schema"`
			MaxRetries   *int   `json:"max_retries"`
			ExtraFields  string `json:"extra_fields"`
			Coerce       *bool  `json:"coerce"`
			SystemPrompt string `json:"system_prompt"`
			// Section 9: a tool_or_answer agent has tools, no output_schema.
			Reply string                     `json:"reply"`
			Tools map[string]json.RawMessage `json:"tools"`
		}
		dec := json.NewDecoder(bytes.NewReader(pipelinetest.ReadFile(t, f)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&bp); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		switch {
		case bp.Name+".json" != filepath.Base(f):
			t.Errorf("%s: name %q does not match the file", f, bp.Name)
		case bp.Reply == "tool_or_answer" && (bp.OutputSchema != "" || len(bp.Tools) == 0):
			t.Errorf("%s: a tool_or_answer agent has tools and no output_schema", f)
		case bp.Reply == "" && !ids[bp.OutputSchema]:
			t.Errorf("%s: output_schema %q is not a bundled schema", f, bp.OutputSchema)
		case bp.Description == "" || bp.SystemPrompt == "":
			t.Errorf("%s: description and system_prompt are expected", f)
		case bp.MaxRetries == nil || *bp.MaxRetries != 1 || bp.ExtraFields != "strip" || bp.Coerce == nil || !*bp.Coerce:
			t.Errorf("%s: want max_retries 1, extra_fields strip, coerce true", f)
		}
	}
}

func describeCandidates(cs []jsontext.Candidate) string {
	var b strings.Builder
	for _, c := range cs {
		doc, _ := json.Marshal(c.Doc)
		fmt.Fprintf(&b, "\n  %s %+v", doc, c.Normalizations)
	}
	return b.String()
}
