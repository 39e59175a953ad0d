package handlers_test

import (
	"encoding/json"
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

// lossySchema is open: every member the examples carry is allowed.
const lossySchema = `{
	"$id": "https://agentgate.dev/schemas/lossy/1.0.0", "title": "t", "description": "d",
	"type": "object",
	"properties": {
		"category": {"type": "string"}, "summary": {"type": "string"},
		"tags": {"type": "array", "items": {"type": "string"}}
	}
}`

var checkAccept = handlers.CheckOptions{ExtraFields: "strip", Coerce: true, LossyRepair: schemas.LossyRepairAccept}

// TestCheck_lossy runs the outputs of issue 11's "Seen today" list, and
// more lossy repairs, through both settings of lossy_repair: by default a
// violation where content was lost (the attempt is retried); with
// "accept" the repaired document, each loss an op lossy at its path.
func TestCheck_lossy(t *testing.T) {
	t.Parallel()
	s := testSchema(t, "https://agentgate.dev/schemas/lossy/1.0.0", lossySchema)
	tests := []struct {
		name  string
		given string
		// wantViolations are "path keyword" by default, in order.
		wantViolations []string
		// wantReceived is in the received text of the first violation.
		wantReceived string
		// wantData and wantLossy are what "accept" gives ("" for no
		// valid document); wantLossy the op lossy paths, in order.
		wantData  string
		wantLossy []string
	}{
		{
			name:           "seen today: a stream cut off by max_tokens",
			given:          `{"category": "other", "summary": "Refund", "tags": ["pricing",`,
			wantViolations: []string{"$.tags truncated"}, wantReceived: `"tags": ["pricing",`,
			wantData: `{"category":"other","summary":"Refund","tags":["pricing"]}`, wantLossy: []string{"$.tags"},
		},
		{
			name:           "seen today: members after the closing bracket are moved, not dropped",
			given:          `{"key1": "value1"}, "key2": "value2", "key3": "value3"}`,
			wantViolations: []string{"$.key2 repair"}, wantReceived: `"value1"}, "key2"`,
			wantData: `{"key1":"value1","key2":"value2","key3":"value3"}`, wantLossy: []string{"$.key2"},
		},
		{
			name:           "seen today: a wrong bracket; never an inner fragment",
			given:          `{"key1": ["value1", "value2"}, "key2": ["value3", "value4"]}`,
			wantViolations: []string{"$.key1 repair", "$.key2 repair"}, wantReceived: `"value2"}`,
			wantData: `{"key1":["value1","value2"],"key2":["value3","value4"]}`, wantLossy: []string{"$.key1", "$.key2"},
		},
		{
			name:           "seen today: a closing fence glued to a truncated document invents no member",
			given:          "{\"key\": \"value, value2\"```",
			wantViolations: []string{"$ truncated"}, wantReceived: `"value, value2"`,
			wantData: `{"key":"value, value2"}`, wantLossy: []string{"$"},
		},
		{
			name:     "seen today: a # comment moves nothing across its bracket (lossless)",
			given:    `{ "key": { "key2": "value2" # comment }, "key3": "value3" }`,
			wantData: `{"key":{"key2":"value2"},"key3":"value3"}`,
		},
		{
			name:           "a fragment of a broken document is never the answer",
			given:          `{"key1": {:2}, "key2": ["value3", "value4"]}`,
			wantViolations: []string{"$ json"},
		},
		{
			name:           "members after the bracket in prose: the whole, never the fragment",
			given:          "Here you go:\n{\"summary\": \"ok\"}, \"category\": \"billing\"}\nThanks!",
			wantViolations: []string{"$.category repair"},
			wantData:       `{"category":"billing","summary":"ok"}`, wantLossy: []string{"$.category"},
		},
		{
			name:           "a placeholder for a missing value",
			given:          `{"summary": , "category": "other"}`,
			wantViolations: []string{"$.summary repair"}, wantReceived: `"summary": ,`,
			wantData: `{"category":"other"}`, wantLossy: []string{"$.summary"},
		},
		{
			name:           "elided content",
			given:          `{"tags": ["a", "b", ...]}`,
			wantViolations: []string{"$.tags repair"}, wantReceived: `...`,
			wantData: `{"tags":["a","b"]}`, wantLossy: []string{"$.tags"},
		},
		{
			name:           "cut inside a string: at the string's path",
			given:          "```json\n{\"summary\": \"The refund was appro",
			wantViolations: []string{"$.summary truncated"}, wantReceived: `The refund was appro`,
			wantData: `{"summary":"The refund was appro"}`, wantLossy: []string{"$.summary"},
		},
		{
			name:     "lossless repairs stay valid",
			given:    `{'summary': 'ok', tags: ['a',],}`,
			wantData: `{"summary":"ok","tags":["a"]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := handlers.Check([]byte(tt.given), s, checkStrict)
			var got []string
			for _, viol := range v.Violations {
				got = append(got, viol.Path+" "+viol.Keyword)
			}
			if !slices.Equal(got, tt.wantViolations) {
				t.Errorf("default: violations %q, want %q (%+v)", got, tt.wantViolations, v.Violations)
			}
			if v.Valid != (len(tt.wantViolations) == 0) {
				t.Errorf("default: valid = %v", v.Valid)
			}
			if len(tt.wantViolations) > 0 && len(v.Violations) > 0 && tt.wantViolations[0] != "$ json" {
				first := v.Violations[0]
				if text, _ := first.Received.(string); !first.HasReceived || !strings.Contains(text, tt.wantReceived) {
					t.Errorf("default: received %q, want it to contain %q", first.Received, tt.wantReceived)
				}
			}
			for _, n := range v.Normalizations {
				if n.Op == contract.OpLossy {
					t.Errorf("default: an op lossy %+v, want none (losses are violations)", n)
				}
			}

			v = handlers.Check([]byte(tt.given), s, checkAccept)
			if tt.wantData == "" {
				if v.Valid {
					t.Fatalf("accept: valid %s, want invalid", pipelinetest.CompactJSON(t, v.Data))
				}
				return
			}
			if !v.Valid {
				t.Fatalf("accept: invalid %+v", v.Violations)
			}
			if data := pipelinetest.CompactJSON(t, v.Data); data != tt.wantData {
				t.Errorf("accept: data %s, want %s", data, tt.wantData)
			}
			var lossy []string
			for _, n := range v.Normalizations {
				if n.Op == contract.OpLossy {
					lossy = append(lossy, n.Path)
				}
			}
			if !slices.Equal(lossy, tt.wantLossy) {
				t.Errorf("accept: op lossy at %q, want %q: %s", lossy, tt.wantLossy, pipelinetest.FormatNormalizations(v.Normalizations))
			}
		})
	}
}

// A loss under an alias is reported at the canonical name the normalized
// document has.
func TestCheck_lossyPathFollowsRenames(t *testing.T) {
	t.Parallel()
	s := prReviewSchema(t)
	given := `{"summary": "ok", "approval": "approve", "review_comments": [{"file": "a.go", "line": 3, "severity": "nitpick", "message": "Typo`
	v := handlers.Check([]byte(given), s, checkStrict)
	i := slices.IndexFunc(v.Violations, func(v contract.Violation) bool { return v.Keyword == contract.KeywordTruncated })
	if i < 0 || v.Violations[i].Path != "$.comments[0].message" {
		t.Fatalf("violations %+v, want truncated at $.comments[0].message", v.Violations)
	}
	v = handlers.Check([]byte(given), s, checkAccept)
	if !v.Valid || !slices.Contains(v.Normalizations, pipelinetest.Lossy("$.comments[0].message", jsontext.RepairTruncated)) {
		t.Fatalf("accept: valid %v, %s", v.Valid, pipelinetest.FormatNormalizations(v.Normalizations))
	}
}

// A tool_or_answer reply follows the same rule.
func TestReplyCheck_lossy(t *testing.T) {
	t.Parallel()
	reg, err := schemas.LoadFS(fstestBlueprint(`{"name": "tooler", "reply": "tool_or_answer",
		"tools": {"search": {"type": "object", "properties": {"query": {"type": "string"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	bp, _ := reg.Blueprint("tooler")
	given := `{"tool": "search", "args": {"query": "refund poli`
	v, _ := handlers.ReplyCheck([]byte(given), bp, checkStrict)
	if v.Valid || len(v.Violations) != 1 || v.Violations[0].Path != "$.args.query" || v.Violations[0].Keyword != contract.KeywordTruncated {
		t.Errorf("default: %+v", v.Violations)
	}
	v, _ = handlers.ReplyCheck([]byte(given), bp, checkAccept)
	if !v.Valid || !slices.Contains(v.Normalizations, pipelinetest.Lossy("$.args.query", jsontext.RepairTruncated)) {
		t.Errorf("accept: valid %v %s", v.Valid, pipelinetest.FormatNormalizations(v.Normalizations))
	}
}

func fstestBlueprint(doc string) fstest.MapFS {
	return fstest.MapFS{"agents/a.json": {Data: []byte(doc)}}
}

// FuzzCheck_truncation cuts a valid document anywhere: the prefix is never
// valid by default (a truncated violation says where), and where lossy
// repairs are accepted a valid prefix always records the truncation.
func FuzzCheck_truncation(f *testing.F) {
	f.Add(`{"summary": "ok", "approval": "approve", "comments": [{"file": "a.go", "line": 1, "severity": "nitpick", "message": "x"}]}`, uint16(60))
	s := prReviewSchema(f)
	f.Fuzz(func(t *testing.T, doc string, cut uint16) {
		body := strings.TrimSpace(doc)
		if v := handlers.Check([]byte(body), s, checkStrict); !v.Valid || !json.Valid([]byte(body)) {
			return // only prefixes of valid documents
		}
		n := int(cut) % len(body)
		prefix := strings.TrimSpace(body[:n])
		if prefix == "" || json.Valid([]byte(prefix)) {
			return
		}
		if v := handlers.Check([]byte(prefix), s, checkStrict); v.Valid {
			t.Fatalf("prefix %q of a valid document is valid", prefix)
		}
		if v := handlers.Check([]byte(prefix), s, checkAccept); v.Valid {
			for _, op := range v.Normalizations {
				if op.Op == contract.OpLossy {
					return
				}
			}
			t.Fatalf("prefix %q valid without an op lossy: %+v", prefix, v.Normalizations)
		}
	})
}
