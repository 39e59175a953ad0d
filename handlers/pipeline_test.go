package handlers_test

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/handlers/jsontext"
	"github.com/agentgate/agentgate/internal/pipelinetest"
	"github.com/agentgate/agentgate/schemas"
)

// examplesRegistry loads the bundled example configuration.
func examplesRegistry(t testing.TB) *schemas.Registry {
	t.Helper()
	reg, err := schemas.Load("../examples")
	if err != nil {
		t.Fatalf("loading examples: %v", err)
	}
	return reg
}

// testSchema compiles one schema document (with $id id) in a registry of
// its own.
func testSchema(t testing.TB, id, doc string) *schemas.Schema {
	t.Helper()
	reg, err := schemas.LoadFS(fstest.MapFS{"schemas/test.schema.json": {Data: []byte(doc)}})
	if err != nil {
		t.Fatalf("loading test schema: %v", err)
	}
	s, ok := reg.Schema(id)
	if !ok {
		t.Fatalf("schema %s not found", id)
	}
	return s
}

func prReviewSchema(t testing.TB) *schemas.Schema {
	t.Helper()
	s, ok := examplesRegistry(t).Schema("https://agentgate.dev/schemas/pr-review/1.0.0")
	if !ok {
		t.Fatal("pr-review schema not found")
	}
	return s
}

var checkStrict = handlers.CheckOptions{ExtraFields: "strip", Coerce: true}

func TestCheck_repair(t *testing.T) {
	t.Parallel()
	s := prReviewSchema(t)
	tests := []struct {
		name      string
		given     string
		wantValid bool
		wantData  string // compact JSON, when valid
		ops       []contract.Normalization
		// violation is "path keyword" of a wanted violation, when invalid.
		violation string
	}{
		{
			name:      "valid JSON: no repair",
			given:     `{"summary": "ok", "approval": "approve", "comments": []}`,
			wantValid: true, wantData: `{"approval":"approve","comments":[],"summary":"ok"}`,
			ops: []contract.Normalization{},
		},
		{
			name:      "truncated, everything required present: still a violation where it was cut",
			given:     `{"summary": "Adds pagination", "approval": "approve", "comments": [`,
			violation: "$.comments truncated",
		},
		{
			name:      "truncated inside a comment: the missing member is a violation",
			given:     `{"summary": "Adds pagination", "approval": "comment", "comments": [{"file": "api/list.go", "line": 12, "severity": "concern", "mess`,
			violation: "$.comments[0].message required",
		},
		{
			name:      "truncated after a key: the null value is a violation",
			given:     "Here is my review:\n{\"summary\": \"Adds pagination\", \"approval\":",
			violation: "$.approval type",
		},
		{
			name:      "Python literals",
			given:     `{'summary': 'ok', 'approval': 'approve', 'comments': [], 'metrics': None}`,
			wantValid: true, wantData: `{"approval":"approve","comments":[],"summary":"ok"}`,
			ops: []contract.Normalization{
				pipelinetest.Repair("single or typographic quotes replaced by double quotes (6 times)"),
				pipelinetest.Repair("Python constant converted"),
				pipelinetest.NullRemoved("$.metrics"),
			},
		},
		{
			name:      "broken JSON fence beside a stray bracket in the prose",
			given:     "See [1] below.\n```json\n{summary: \"ok\", approval: \"approve\", comments: [],}\n```",
			wantValid: true, wantData: `{"approval":"approve","comments":[],"summary":"ok"}`,
			ops: []contract.Normalization{
				opExtract("code fence"),
				pipelinetest.Repair("trailing comma removed"),
				pipelinetest.Repair("unquoted key or string quoted (3 times)"),
			},
		},
		{
			name:      "a strict candidate that fails, then a repaired one that validates",
			given:     `The list [1, 2] is done; review: {summary: "ok", approval: "approve", comments: []} thanks`,
			wantValid: true, wantData: `{"approval":"approve","comments":[],"summary":"ok"}`,
			ops: []contract.Normalization{opExtract("surrounding text"), pipelinetest.Repair("unquoted key or string quoted (3 times)")},
		},
		{
			name:      "nothing validates: the first candidate's violations",
			given:     `The list [1, 2] is done; review: {summary: "ok"} thanks`,
			violation: "$ type",
		},
		{
			name:      "comments, trailing commas and a raw newline in a string",
			given:     "{\n  // verdict first\n  \"approval\": \"approve\",\n  \"summary\": \"Line one\nline two\",\n  \"comments\": [],\n}",
			wantValid: true, wantData: `{"approval":"approve","comments":[],"summary":"Line one\nline two"}`,
			ops: []contract.Normalization{
				pipelinetest.Repair("comment removed"), pipelinetest.Repair("trailing comma removed"), pipelinetest.Repair("string escaping repaired"),
			},
		},
		{
			name:      "unrepairable: a json violation saying why",
			given:     `{"summary": "ok", "approval" ]`,
			violation: "$ json",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := handlers.Check([]byte(tt.given), s, checkStrict)
			if v.Valid != tt.wantValid {
				t.Fatalf("Valid = %v, violations %+v", v.Valid, v.Violations)
			}
			if tt.wantValid {
				if got := pipelinetest.CompactJSON(t, v.Data); got != tt.wantData {
					t.Errorf("Data = %s, want %s", got, tt.wantData)
				}
				if !slices.Equal(v.Normalizations, tt.ops) {
					t.Errorf("normalizations =\n%s\nwant\n%s", pipelinetest.FormatNormalizations(v.Normalizations), pipelinetest.FormatNormalizations(tt.ops))
				}
				return
			}
			found := false
			for _, viol := range v.Violations {
				found = found || viol.Path+" "+viol.Keyword == tt.violation
			}
			if !found {
				t.Errorf("violations %+v, want one at %q", v.Violations, tt.violation)
			}
			if v.Normalizations == nil {
				t.Error("Normalizations is nil, want a non-nil slice")
			}
		})
	}
}

// TestCheck_truncationNeverSilent checks every prefix of a valid review:
// by default no prefix that is not the whole document is valid, and each
// has a truncated violation; where lossy repairs are accepted, a valid
// verdict always records the truncation as an op lossy.
func TestCheck_truncationNeverSilent(t *testing.T) {
	t.Parallel()
	s := prReviewSchema(t)
	accept := checkStrict
	accept.LossyRepair = schemas.LossyRepairAccept
	doc := `{"summary": "Adds pagination", "approval": "comment", "comments": [{"file": "api/list.go", "line": 12, "severity": "concern", "message": "Check the last page."}]}`
	for n := 1; n < len(doc); n++ {
		v := handlers.Check([]byte(doc[:n]), s, checkStrict)
		if v.Valid {
			t.Errorf("prefix %q is valid: %s", doc[:n], pipelinetest.FormatNormalizations(v.Normalizations))
		}
		if !slices.ContainsFunc(v.Violations, func(v contract.Violation) bool { return v.Keyword == contract.KeywordTruncated }) {
			t.Errorf("prefix %q: no truncated violation in %+v", doc[:n], v.Violations)
		}
		v = handlers.Check([]byte(doc[:n]), s, accept)
		if v.Valid && !slices.ContainsFunc(v.Normalizations, func(n contract.Normalization) bool {
			return n.Op == contract.OpLossy && n.Detail == jsontext.RepairTruncated
		}) {
			t.Errorf("prefix %q is valid without a truncation record: %s", doc[:n], pipelinetest.FormatNormalizations(v.Normalizations))
		}
	}
	if v := handlers.Check([]byte(doc), s, checkStrict); !v.Valid || len(v.Normalizations) != 0 {
		t.Errorf("whole document: %+v", v)
	}
}

func TestCheck_coerceDisabledRepairsStill(t *testing.T) {
	t.Parallel()
	s := prReviewSchema(t)
	v := handlers.Check([]byte(`{summary: "ok", approval: "Approve", comments: []}`), s, handlers.CheckOptions{Coerce: false})
	if v.Valid {
		t.Fatal("valid with coerce off, want the enum violation")
	}
	if len(v.Violations) != 1 || !strings.HasPrefix(v.Violations[0].Path, "$.approval") {
		t.Errorf("violations = %+v", v.Violations)
	}
}

// Candidates are taken in the contract's order whether they parsed as they
// were or needed repair: the first that validates, else the first.
func TestCheck_candidateOrderIncludesRepaired(t *testing.T) {
	t.Parallel()
	s := testSchema(t, "https://agentgate.dev/schemas/order/1.0.0", `{
		"$id": "https://agentgate.dev/schemas/order/1.0.0", "title": "t", "description": "d",
		"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}}}`)
	tests := []struct {
		name      string
		given     string
		wantValid bool
		wantData  string // when valid
		wantViol  string // "path keyword" of the first violation, when invalid
	}{
		{"a repaired first document wins over a later intact one", `{"a":1,} and then {"a":2}`, true, `{"a":1}`, ""},
		{"else the first, repaired or not", `Result: {"a":"x",} (see [1])`, false, "", "$.a type"},
		{"a broken fence before intact prose", "```json\n{\"a\": 3,}\n```\nalso {\"a\": 4}", true, `{"a":3}`, ""},
		{"intact JSON pays no repair", `{"a": 5}`, true, `{"a":5}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := handlers.Check([]byte(tt.given), s, handlers.CheckOptions{})
			if v.Valid != tt.wantValid {
				t.Fatalf("valid = %v, violations %v", v.Valid, v.Violations)
			}
			if tt.wantValid {
				if got := pipelinetest.CompactJSON(t, v.Data); got != tt.wantData {
					t.Errorf("data = %s, want %s", got, tt.wantData)
				}
				return
			}
			if got := v.Violations[0].Path + " " + v.Violations[0].Keyword; got != tt.wantViol {
				t.Errorf("first violation = %s, want %s", got, tt.wantViol)
			}
		})
	}
}
