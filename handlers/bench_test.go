package handlers_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/handlers/jsontext"
	"github.com/agentgate/agentgate/handlers/normalize"
	"github.com/agentgate/agentgate/internal/pipelinetest"
)

// benchReview is a realistic pr-review output (about 1.3 KB).
const benchReview = `{
  "summary": "Adds cursor-based pagination to the list endpoint and removes the offset parameter. The change is sound but the last page is not handled and one query misses an index.",
  "approval": "request_changes",
  "comments": [
    {"file": "api/list.go", "line": 42, "severity": "blocker", "message": "When the cursor points past the last row the handler returns 500; return an empty page instead."},
    {"file": "api/list.go", "line": 57, "severity": "concern", "message": "The limit is not capped: a client can ask for a million rows in one request."},
    {"file": "store/query.sql", "line": 12, "severity": "concern", "message": "ORDER BY created_at, id needs a composite index or this scans the whole table."},
    {"file": "api/list_test.go", "line": 88, "severity": "suggestion", "message": "Add a test for an empty table and one for the last page."},
    {"file": "docs/api.md", "line": 130, "severity": "nitpick", "message": "The example response still shows the offset field."}
  ],
  "metrics": {"files_reviewed": 4, "lines_changed": 212}
}`

var (
	benchFence  = "Here is my review of the pull request:\n\n```json\n" + benchReview + "\n```\n\nLet me know if you want me to look at anything else."
	benchBroken = "{\n  // review\n  summary: 'Adds cursor-based pagination to the list endpoint and removes the offset parameter.',\n" +
		"  approval: 'request_changes',\n  comments: [\n" +
		"    {file: 'api/list.go', line: 42, severity: 'blocker', message: 'When the cursor points past the last row the handler returns 500.',},\n" +
		"    {file: 'api/list.go', line: 57, severity: 'concern', message: 'The limit is not capped.',},\n" +
		"    {file: 'store/query.sql', line: 12, severity: 'concern', message: 'ORDER BY created_at, id needs a composite index.',},\n" +
		"  ],\n  metrics: {files_reviewed: 4, lines_changed: 212, extra: None},\n}"
)

// plainDecode is the baseline: what any consumer does to read JSON.
func plainDecode(b []byte) any {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		panic(err)
	}
	return v
}

// BenchmarkExtract_* compare extraction (and repair where needed) with a
// plain decode of the same document: Decode is the baseline for Valid,
// DecodeFenced (the fence's content alone) for Fence, DecodeRepaired (the
// repaired document) for Broken.
func BenchmarkExtract_Decode(b *testing.B) {
	payload := []byte(benchReview)
	b.SetBytes(int64(len(payload)))
	for b.Loop() {
		plainDecode(payload)
	}
}

func BenchmarkExtract_Valid(b *testing.B) {
	benchExtract(b, benchReview)
}

func BenchmarkExtract_Fence(b *testing.B) {
	benchExtract(b, benchFence)
}

func BenchmarkExtract_DecodeRepaired(b *testing.B) {
	repaired, _, err := jsontext.Repair([]byte(benchBroken), 0)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(benchBroken)))
	for b.Loop() {
		plainDecode(repaired)
	}
}

func BenchmarkExtract_Broken(b *testing.B) {
	benchExtract(b, benchBroken)
}

func benchExtract(b *testing.B, payload string) {
	p := []byte(payload)
	if _, bad := jsontext.Extract(p, 0); bad != nil {
		b.Fatal(bad.Message)
	}
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		jsontext.Extract(p, 0)
	}
}

// BenchmarkCheck_* run the whole pipeline (extract, normalize, validate)
// on the same three payloads.
func BenchmarkCheck_Valid(b *testing.B)  { benchCheck(b, benchReview) }
func BenchmarkCheck_Fence(b *testing.B)  { benchCheck(b, benchFence) }
func BenchmarkCheck_Broken(b *testing.B) { benchCheck(b, benchBroken) }

func benchCheck(b *testing.B, payload string) {
	s := prReviewSchema(b)
	p := []byte(payload)
	if v := handlers.Check(p, s, checkStrict); !v.Valid {
		b.Fatalf("invalid: %+v", v.Violations)
	}
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		handlers.Check(p, s, checkStrict)
	}
}

// BenchmarkNormalize_Conforming normalizes a review that needs no change,
// the common case; BenchmarkNormalize_Drifted one with an alias, a string
// number and a miscased enum value. BenchmarkValidate is the validator
// alone on the same review, for scale.
func BenchmarkNormalize_Conforming(b *testing.B) { benchNormalize(b, benchReview, 0) }

func BenchmarkNormalize_Drifted(b *testing.B) {
	drifted := strings.Replace(strings.Replace(strings.Replace(benchReview,
		`"summary"`, `"description"`, 1), `"line": 42`, `"line": "42"`, 1), `"request_changes"`, `"Request_Changes"`, 1)
	benchNormalize(b, drifted, 3)
}

func benchNormalize(b *testing.B, payload string, wantOps int) {
	s := prReviewSchema(b)
	doc := plainDecode([]byte(payload))
	opts := normalize.Options{ExtraFields: "strip", Coerce: true}
	if _, ops := normalize.Normalize(doc, s.Doc, s, opts); len(ops) != wantOps {
		b.Fatalf("%d normalizations, want %d: %+v", len(ops), wantOps, ops)
	}
	for b.Loop() {
		normalize.Normalize(doc, s.Doc, s, opts)
	}
}

func BenchmarkValidate(b *testing.B) {
	s := prReviewSchema(b)
	doc := plainDecode([]byte(benchReview))
	if v := s.Validate(doc); len(v) > 0 {
		b.Fatalf("invalid: %+v", v)
	}
	for b.Loop() {
		s.Validate(doc)
	}
}

// BenchmarkGate_Decide is the whole decision on a valid first attempt of
// a review (extract, normalize, validate, the outcome and the run-state
// record encoded): against BenchmarkCheck_Valid, the gate's own cost.
func BenchmarkGate_Decide(b *testing.B) {
	g := newGate(b, 0, 0)
	e := env("agent.output.raw.pr-reviewer", benchReview, "Run-Id", "run-1", "Agent-Id", "pr-reviewer", "Attempt", "1")
	if d := g.Decide(e, nil); d.Outcome != "valid" {
		b.Fatalf("outcome %s", d.Outcome)
	}
	b.SetBytes(int64(len(benchReview)))
	for b.Loop() {
		g.Decide(e, nil)
	}
}

// BenchmarkGate_DecideKinds decides one output of each kind the bench
// mixes in, to compare their costs: a drifted output (prose, a fence,
// aliases) and an invalid one (a retry request with its prompt).
func BenchmarkGate_DecideKinds(b *testing.B) {
	g := newGate(b, 0, 0)
	for _, tt := range []struct{ name, fixture, want string }{
		{"valid", "pr-reviewer/valid.json", "valid"},
		{"drifted", "pr-reviewer/drifted_prose.txt", "valid"},
		{"invalid", "pr-reviewer/invalid.txt", "retry"},
	} {
		b.Run(tt.name, func(b *testing.B) {
			payload := string(pipelinetest.OutputFixture(b, tt.fixture))
			e := env("agent.output.raw.pr-reviewer", payload, "Run-Id", "run-1", "Agent-Id", "pr-reviewer", "Attempt", "1")
			if d := g.Decide(e, nil); string(d.Outcome) != tt.want {
				b.Fatalf("outcome %s, want %s", d.Outcome, tt.want)
			}
			b.SetBytes(int64(len(payload)))
			for b.Loop() {
				g.Decide(e, nil)
			}
		})
	}
}
