package handlers_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/schemas"
)

const triageSchema = `{"type": "object", "required": ["category", "priority", "summary"],
	"properties": {
		"category": {"enum": ["billing", "bug", "other"]},
		"priority": {"enum": ["low", "medium", "high", "urgent"], "x-aliases": ["prio"]},
		"summary": {"type": "string", "minLength": 1},
		"tags": {"type": "array", "items": {"type": "string"}}},
	"additionalProperties": false}`

// partialGate is a gate whose agent "triage" asks partial re-asks, and
// "full" the same schema with whole re-asks.
func partialGate(t *testing.T, extra string) *handlers.Gate {
	t.Helper()
	reg, err := schemas.LoadFS(fstest.MapFS{
		"agents/triage.json": {Data: []byte(`{"name": "triage", "max_retries": 3, "extra_fields": "reject", "retry": "partial", "output_schema": ` + triageSchema + extra + `}`)},
		"agents/full.json":   {Data: []byte(`{"name": "full", "output_schema": ` + triageSchema + `}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	g, err := handlers.NewGate(handlers.GateConfig{Registry: reg, Now: func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// next is e as a later input of the raw stream.
func next(e handlers.Envelope) handlers.Envelope {
	e.Origin.Seq++
	return e
}

func decodeEvent(t *testing.T, payload []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decoding %s: %v", payload, err)
	}
}

func TestGate_partialReask(t *testing.T) {
	t.Parallel()
	g := partialGate(t, "")
	const first = `{"category": "billing", "priority": "critical", "summary": "Refund", "tags": ["a", 3], "note": "x"}`
	d1 := g.Decide(env("agent.output.raw.triage", first, "Run-Id", "r", "Attempt", "1"), nil)
	if d1.Outcome != contract.OutcomeRetry {
		t.Fatalf("attempt 1: %s %s", d1.Outcome, d1.Payload)
	}
	var retry contract.RetryEvent
	decodeEvent(t, d1.Payload, &retry)
	if retry.Partial == nil || strings.Join(retry.Partial.Paths, ",") != "$.note,$.priority,$.tags" {
		t.Fatalf("partial = %+v", retry.Partial)
	}
	for _, want := range []string{
		"Some members of your output did not match",
		`- $.priority: got "critical", expected one of "low", "medium", "high", "urgent"`,
		`- $.priority must match: {"enum":["low","medium","high","urgent"]}`,
		`- $.tags must match: {"type":"array","items":{"type":"string"}}`,
		"- $.note must match: false (this member is not allowed: set it to null to remove it)",
		`for example {"note":"...","priority":"...","tags":"..."}`,
		`"summary": "Refund"`,
	} {
		if !strings.Contains(retry.RetryPrompt, want) {
			t.Errorf("retry prompt lacks %s:\n%s", want, retry.RetryPrompt)
		}
	}
	if strings.Contains(retry.RetryPrompt, "x-aliases") || strings.Contains(retry.RetryPrompt, "## Required Schema") {
		t.Errorf("partial retry prompt shows the whole or raw schema:\n%s", retry.RetryPrompt)
	}

	tests := []struct {
		name     string
		answer   string
		want     contract.Outcome
		wantData string
	}{
		{name: "patch of just the members", answer: `{"priority": "high", "tags": ["a", "b"], "note": null}`, want: contract.OutcomeValid,
			wantData: `{"category":"billing","priority":"high","summary":"Refund","tags":["a","b"]}`},
		{name: "patch in prose with an alias", answer: "Here is the fix:\n```json\n{\"prio\": \"urgent\", \"tags\": [], \"note\": null}\n```", want: contract.OutcomeValid,
			wantData: `{"category":"billing","priority":"urgent","summary":"Refund","tags":[]}`},
		{name: "whole document", answer: `{"category": "bug", "priority": "low", "summary": "Crash", "note": null, "tags": null}`, want: contract.OutcomeValid,
			wantData: `{"category":"bug","priority":"low","summary":"Crash"}`},
		{name: "patch that is still wrong", answer: `{"priority": "high"}`, want: contract.OutcomeRetry},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d2 := g.Decide(next(env("agent.output.raw.triage", tt.answer, "Run-Id", "r", "Attempt", "2")), d1.State)
			if d2.Outcome != tt.want {
				t.Fatalf("attempt 2: %s %s", d2.Outcome, d2.Payload)
			}
			if tt.want == contract.OutcomeRetry {
				var again contract.RetryEvent
				decodeEvent(t, d2.Payload, &again)
				// Asked again for what is still wrong, on the merged document.
				if again.Partial == nil || strings.Join(again.Partial.Paths, ",") != "$.note,$.tags" {
					t.Errorf("second partial = %+v", again.Partial)
				}
				if doc, _ := json.Marshal(again.Partial.Document); !strings.Contains(string(doc), `"priority":"high"`) {
					t.Errorf("second document = %s", doc)
				}
				return
			}
			var res struct {
				ResultData     json.RawMessage          `json:"result_data"`
				Normalizations []contract.Normalization `json:"normalizations"`
			}
			decodeEvent(t, d2.Payload, &res)
			if string(res.ResultData) != tt.wantData {
				t.Errorf("result_data = %s, want %s", res.ResultData, tt.wantData)
			}
			if len(res.Normalizations) == 0 {
				t.Fatal("no normalizations")
			}
			var merged bool
			for _, n := range res.Normalizations {
				merged = merged || (n.Op == contract.OpMerge && n.Path == "$" && strings.Contains(n.Detail, "attempt 1"))
			}
			if !merged {
				t.Errorf("normalizations %+v lack the merge", res.Normalizations)
			}
		})
	}
}

// A partial re-ask is asked only when it can say it all; otherwise, and
// for an agent with retry full, the whole document is asked for.
func TestGate_partialReaskFallsBackToFull(t *testing.T) {
	t.Parallel()
	g := partialGate(t, "")
	tests := []struct {
		name, agent, payload string
		wantPartial          bool
	}{
		{"member failures", "triage", `{"category": "billing", "priority": "p", "summary": "s"}`, true},
		{"missing member", "triage", `{"category": "billing", "priority": "low"}`, true},
		{"root not an object", "triage", `["billing"]`, false},
		{"no JSON", "triage", `just words`, false},
		{"retry full", "full", `{"category": "billing", "priority": "p", "summary": "s"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := g.Decide(env("agent.output.raw."+tt.agent, tt.payload, "Run-Id", "r"), nil)
			var ev contract.RetryEvent
			decodeEvent(t, d.Payload, &ev)
			if d.Outcome != contract.OutcomeRetry || (ev.Partial != nil) != tt.wantPartial {
				t.Fatalf("%s, partial %+v; want partial %v", d.Outcome, ev.Partial, tt.wantPartial)
			}
			if !tt.wantPartial && !strings.Contains(ev.RetryPrompt, "## Required Schema") {
				t.Errorf("full retry prompt lacks the schema:\n%s", ev.RetryPrompt)
			}
			// An answer to a full re-ask is never merged.
			d2 := g.Decide(next(env("agent.output.raw."+tt.agent, `{"priority": "low"}`, "Run-Id", "r", "Attempt", "2")), d.State)
			if !tt.wantPartial && d2.Outcome == contract.OutcomeValid {
				t.Errorf("an answer to a full re-ask was merged: %s", d2.Payload)
			}
		})
	}
}

func TestGate_retryTemplate(t *testing.T) {
	t.Parallel()
	g := partialGate(t, `, "retry_template": "Fix {{len .Violations}} problem(s) of attempt {{.Attempt}}:{{range .Violations}}\n* {{.Path}} got={{.Got}} want={{.Expected}}{{end}}{{if .Partial}}\nOnly send:{{range .Members}} {{.Path}}{{end}}{{end}}"`)
	d := g.Decide(env("agent.output.raw.triage", `{"category": "billing", "priority": "p", "summary": "s"}`, "Run-Id", "r"), nil)
	var ev contract.RetryEvent
	decodeEvent(t, d.Payload, &ev)
	want := "Fix 1 problem(s) of attempt 1:\n* $.priority got=\"p\" want=one of \"low\", \"medium\", \"high\", \"urgent\"\nOnly send: $.priority"
	if ev.RetryPrompt != want {
		t.Errorf("retry prompt = %q\nwant %q", ev.RetryPrompt, want)
	}
}
