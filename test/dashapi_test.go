package test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/internal/natstest"
)

// The API routes the dashboard reads: GET /v1/runs, GET
// /v1/runs/{run_id}/attempts, GET /v1/drift and POST /v1/lint, and the
// dashboard's own files.

type runsPage struct {
	Runs []struct {
		RunID    string             `json:"run_id"`
		AgentID  string             `json:"agent_id"`
		Status   contract.RunStatus `json:"status"`
		Attempts int                `json:"attempts"`
	} `json:"runs"`
	Next string `json:"next"`
}

func getRuns(t *testing.T, base, query string) runsPage {
	t.Helper()
	r := call(t, nil, base, "GET", "/v1/runs"+query, "", nil)
	if r.status != 200 {
		t.Fatalf("GET /v1/runs%s = %d %s", query, r.status, r.body)
	}
	var p runsPage
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHTTPAPI_runsList(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	g := startGatewayDir(t, b, dashboardConfig(t))
	base := "http://" + g.HTTPAddr()
	if p := getRuns(t, base, ""); len(p.Runs) != 0 || p.Next != "" {
		t.Fatalf("no runs yet: %+v", p)
	}
	// Five runs in order; run-2 is left waiting for a retry.
	for i := range 5 {
		payload := validReview
		if i == 2 {
			payload = `{"summary": "x", "approval": "lgtm", "comments": []}`
		}
		run := fmt.Sprintf("run-%d", i)
		b.publish(raw{agent: "pr-reviewer", run: run, payload: payload})
		if i == 2 {
			b.awaitState(run, contract.RunRetryRequested, 1)
		} else {
			b.awaitState(run, contract.RunCompleted, 1)
		}
	}
	tests := []struct {
		name, query string
		want        []string
	}{
		{"newest first", "", []string{"run-4", "run-3", "run-2", "run-1", "run-0"}},
		{"by status", "?status=retry_requested", []string{"run-2"}},
		{"by agent", "?agent=pr-reviewer&status=completed", []string{"run-4", "run-3", "run-1", "run-0"}},
		{"other agent", "?agent=code-analyzer", nil},
	}
	// The list is a snapshot of the bucket: a run whose state is updated
	// while it is read (the outcome's stream sequence is recorded after
	// the publish) shows on the next read. Wait until all five are in.
	natstest.WaitFor(t, 10*time.Second, "five runs listed", func() bool { return len(getRuns(t, base, "").Runs) == 5 })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range getRuns(t, base, tt.query).Runs {
				got = append(got, r.RunID)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("runs = %v, want %v", got, tt.want)
			}
		})
	}
	// Pages of two, by cursor, cover every run once.
	var seen []string
	q := "?limit=2"
	for range 5 {
		p := getRuns(t, base, q)
		for _, r := range p.Runs {
			seen = append(seen, r.RunID)
		}
		if p.Next == "" {
			break
		}
		q = "?limit=2&cursor=" + url.QueryEscape(p.Next)
	}
	if strings.Join(seen, ",") != "run-4,run-3,run-2,run-1,run-0" {
		t.Errorf("paged runs = %v", seen)
	}
	for _, q := range []string{"?limit=0", "?limit=501", "?status=done", "?agent=a.b", "?cursor=%21"} {
		if r := call(t, nil, base, "GET", "/v1/runs"+q, "", nil); r.status != 400 {
			t.Errorf("GET /v1/runs%s = %d, want 400", q, r.status)
		}
	}

	// run-2's attempts: the retry request, then the valid result.
	b.publish(raw{agent: "pr-reviewer", run: "run-2", attempt: 2, payload: validReview})
	b.awaitState("run-2", contract.RunCompleted, 2)
	r := call(t, nil, base, "GET", "/v1/runs/run-2/attempts", "", nil)
	var at struct {
		Attempts []struct {
			Stream  string `json:"stream"`
			Outcome struct {
				EventType string `json:"event_type"`
				Attempt   int    `json:"attempt"`
			} `json:"outcome"`
		} `json:"attempts"`
	}
	if err := json.Unmarshal(r.body, &at); err != nil || r.status != 200 {
		t.Fatalf("GET /v1/runs/run-2/attempts = %d %s", r.status, r.body)
	}
	if len(at.Attempts) != 2 || at.Attempts[0].Outcome.EventType != "retry_requested" || at.Attempts[1].Outcome.EventType != "result" ||
		at.Attempts[1].Outcome.Attempt != 2 {
		t.Errorf("attempts = %+v", at.Attempts)
	}
	if r := call(t, nil, base, "GET", "/v1/runs/nope/attempts", "", nil); r.status != 404 {
		t.Errorf("attempts of an unknown run = %d, want 404", r.status)
	}
}

func TestHTTPAPI_lint(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	g := startGatewayDir(t, b, dashboardConfig(t))
	base := "http://" + g.HTTPAddr()
	tests := []struct {
		name, body   string
		wantStatus   int
		wantErrors   int
		wantWarnings int
		wantText     string
	}{
		{"meta-schema error", `{"kind":"schema","document":{"$id":"https://example.com/s/1.0.0","title":"T","description":"D","type":"object","properties":{"n":{"minimum":"zero"}}}}`,
			200, 1, 0, "$.properties.n.minimum"},
		{"clean schema", `{"kind":"schema","document":{"$id":"https://example.com/s/1.0.0","title":"T","description":"D","type":"object"}}`, 200, 0, 0, ""},
		{"warning: no title", `{"kind":"schema","document":{"$id":"https://example.com/s/1.0.0","description":"D","type":"object"}}`, 200, 0, 1, "no title"},
		{"blueprint naming a registered schema", `{"kind":"blueprint","document":{"name":"x","system_prompt":"p","output_schema":"https://agentgate.dev/schemas/pr-review/1.0.0"}}`, 200, 0, 0, ""},
		{"blueprint naming an unknown schema", `{"kind":"blueprint","document":{"name":"x","system_prompt":"p","output_schema":"https://example.com/none/1.0.0"}}`, 200, 1, 0, "none"},
		{"bad kind", `{"kind":"other","document":{}}`, 400, 0, 0, ""},
		{"no document", `{"kind":"schema"}`, 400, 0, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, nil, base, "POST", "/v1/lint", "", strings.NewReader(tt.body))
			if r.status != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", r.status, tt.wantStatus, r.body)
			}
			if r.status != 200 {
				return
			}
			var ans struct{ Errors, Warnings int }
			if err := json.Unmarshal(r.body, &ans); err != nil {
				t.Fatal(err)
			}
			if ans.Errors != tt.wantErrors || ans.Warnings != tt.wantWarnings || !strings.Contains(string(r.body), tt.wantText) {
				t.Errorf("answer %s, want %d errors, %d warnings, mentioning %q", r.body, tt.wantErrors, tt.wantWarnings, tt.wantText)
			}
		})
	}
}

func TestHTTPAPI_driftAndDashboard(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	g := startGatewayDir(t, b, dashboardConfig(t), withTokens(t))
	base := "http://" + g.HTTPAddr()
	// An alias renamed and a member stripped, then a wrong enum and its fix.
	b.publish(raw{agent: "pr-reviewer", run: "d-1", payload: `{"overview": "x", "approval": "approve", "comments": [], "mood": "ok"}`})
	b.awaitState("d-1", contract.RunCompleted, 1)
	b.publish(raw{agent: "pr-reviewer", run: "d-2", payload: `{"summary": "x", "approval": "lgtm", "comments": []}`})
	b.awaitState("d-2", contract.RunRetryRequested, 1)
	b.publish(raw{agent: "pr-reviewer", run: "d-2", attempt: 2, payload: validReview})
	b.awaitState("d-2", contract.RunCompleted, 2)

	if r := call(t, nil, base, "GET", "/v1/drift?agent=pr-reviewer", "", nil); r.status != 401 {
		t.Errorf("drift without a token = %d, want 401", r.status)
	}
	// The metrics are observed after an outcome is published, so the
	// run state can be seen before its attempt is counted: poll until the
	// last attempt (the retry's valid answer) is in.
	type drift struct {
		Outcomes map[string]float64 `json:"outcomes"`
		Retries  map[string]float64 `json:"retries"`
		Renamed  []struct {
			Path  string  `json:"path"`
			Count float64 `json:"count"`
		} `json:"renamed"`
		Stripped []struct {
			Path  string  `json:"path"`
			Count float64 `json:"count"`
		} `json:"stripped"`
		Violations []struct {
			Keyword, Path string
			Count         float64
		} `json:"violations"`
	}
	var (
		r apiResponse
		d drift
	)
	natstest.WaitFor(t, 10*time.Second, "the retry's valid answer in the drift", func() bool {
		r = call(t, nil, base, "GET", "/v1/drift?agent=pr-reviewer", readToken, nil)
		d = drift{}
		if err := json.Unmarshal(r.body, &d); err != nil || r.status != 200 {
			t.Fatalf("GET /v1/drift = %d %s", r.status, r.body)
		}
		return d.Retries["valid"] >= 1
	})
	if d.Outcomes["valid"] != 2 || d.Outcomes["retry"] != 1 || d.Retries["valid"] != 1 ||
		len(d.Renamed) != 1 || d.Renamed[0].Path != "$" || d.Renamed[0].Count != 1 ||
		len(d.Stripped) != 1 || d.Stripped[0].Path != "$.*" ||
		len(d.Violations) != 1 || d.Violations[0].Keyword != "enum" || d.Violations[0].Path != "$.approval" {
		t.Errorf("drift = %s", r.body)
	}
	if r := call(t, nil, base, "GET", "/v1/drift", readToken, nil); r.status != 400 {
		t.Errorf("drift without an agent = %d, want 400", r.status)
	}

	// The dashboard's files need no token; they are embedded and locked
	// down by their Content-Security-Policy.
	for _, tt := range []struct{ path, ctype, want string }{
		{"/", "text/html", `<script src="/assets/app.js">`},
		{"/assets/app.js", "javascript", "TOKEN_KEY"},
		{"/assets/app.css", "text/css", ":root"},
		{"/assets/charts.js", "javascript", "createElementNS"},
	} {
		r := call(t, nil, base, "GET", tt.path, "", nil)
		if r.status != 200 || !strings.Contains(r.header.Get("Content-Type"), tt.ctype) || !strings.Contains(string(r.body), tt.want) ||
			!strings.Contains(r.header.Get("Content-Security-Policy"), "default-src 'self'") {
			t.Errorf("GET %s = %d %q, CSP %q", tt.path, r.status, r.header.Get("Content-Type"), r.header.Get("Content-Security-Policy"))
		}
	}
	if r := call(t, nil, base, "GET", "/assets/nope.js", "", nil); r.status != 404 {
		t.Errorf("GET /assets/nope.js = %d, want 404", r.status)
	}
	if r := call(t, nil, base, "GET", "/v1/nope", "", nil); r.status != 401 {
		t.Errorf("GET /v1/nope without a token = %d, want 401 (the API stays behind its tokens)", r.status)
	}
}

// driftHistory is the history of GET /v1/drift.
type driftHistory struct {
	Outcomes map[string]float64 `json:"outcomes"`
	History  []struct {
		T              time.Time          `json:"t"`
		Outcomes       map[string]float64 `json:"outcomes"`
		Retries        map[string]float64 `json:"retries"`
		Normalizations float64            `json:"normalizations"`
		Violations     float64            `json:"violations"`
	} `json:"history"`
}

func getDriftHistory(t *testing.T, base, agent string) driftHistory {
	t.Helper()
	r := call(t, nil, base, "GET", "/v1/drift?agent="+agent, "", nil)
	var d driftHistory
	if err := json.Unmarshal(r.body, &d); err != nil || r.status != 200 {
		t.Fatalf("GET /v1/drift?agent=%s = %d %s", agent, r.status, r.body)
	}
	return d
}

// The gateway samples each agent's totals every DriftInterval: GET
// /v1/drift's history holds them oldest first, and they grow with the
// outcomes.
func TestHTTPAPI_driftHistory(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	g := startGatewayDir(t, b, dashboardConfig(t), func(c *gateway.Config) { c.DriftInterval = 50 * time.Millisecond; c.DriftPoints = 1000 })
	base := "http://" + g.HTTPAddr()
	if d := getDriftHistory(t, base, "pr-reviewer"); d.History == nil || len(d.History) != 0 {
		t.Fatalf("history before any outcome = %+v, want []", d.History)
	}
	last := func(d driftHistory) map[string]float64 {
		if len(d.History) == 0 {
			return nil
		}
		return d.History[len(d.History)-1].Outcomes
	}
	// A retry (with an enum violation) and a valid answer with a rename
	// and a strip.
	b.publish(raw{agent: "pr-reviewer", run: "h-1", payload: `{"summary": "x", "approval": "lgtm", "comments": []}`})
	b.awaitState("h-1", contract.RunRetryRequested, 1)
	b.publish(raw{agent: "pr-reviewer", run: "h-2", payload: `{"overview": "x", "approval": "approve", "comments": [], "mood": "ok"}`})
	b.awaitState("h-2", contract.RunCompleted, 1)
	var d driftHistory
	// An outcome and its violations and normalizations are counted one
	// after the other: a point may fall between them, a later one has all.
	natstest.WaitFor(t, 10*time.Second, "a point with the retry and the valid answer, a violation, a rename and a strip", func() bool {
		d = getDriftHistory(t, base, "pr-reviewer")
		if len(d.History) == 0 {
			return false
		}
		p := d.History[len(d.History)-1]
		return p.Outcomes["valid"] == 1 && p.Outcomes["retry"] == 1 && p.Violations == 1 && p.Normalizations >= 2
	})
	if p := d.History[len(d.History)-1]; p.Violations != 1 || p.Outcomes["refused"] != 0 || p.Outcomes["dlq"] != 0 {
		t.Errorf("last point = %+v, want 1 violation and no refusal or dead letter", p)
	}
	// The retry's valid answer: a later point counts it, the earlier ones
	// do not change.
	before := len(d.History)
	b.publish(raw{agent: "pr-reviewer", run: "h-1", attempt: 2, payload: validReview})
	b.awaitState("h-1", contract.RunCompleted, 2)
	// The outcome and the retry's success are counted one after the
	// other: a point may fall between them, the next one has both.
	natstest.WaitFor(t, 10*time.Second, "a point with the retry's valid answer", func() bool {
		d = getDriftHistory(t, base, "pr-reviewer")
		return last(d)["valid"] == 2 && d.History[len(d.History)-1].Retries["valid"] == 1
	})
	if len(d.History) <= before {
		t.Errorf("%d points, had %d: no new point", len(d.History), before)
	}
	if p := d.History[len(d.History)-1]; p.Retries["valid"] != 1 || d.Outcomes["valid"] != 2 {
		t.Errorf("last point = %+v, totals %v: want the retry's valid answer", p, d.Outcomes)
	}
	for i := 1; i < len(d.History); i++ {
		p, q := d.History[i-1], d.History[i]
		if !q.T.After(p.T) {
			t.Errorf("point %d at %v is not after point %d at %v: want oldest first", i, q.T, i-1, p.T)
		}
		for k, v := range p.Outcomes {
			if q.Outcomes[k] < v {
				t.Errorf("point %d has %s %v, point %d had %v: the counts are cumulative", i, k, q.Outcomes[k], i-1, v)
			}
		}
	}
	if first := d.History[0].Outcomes; first["valid"] >= 2 {
		t.Errorf("first point %v already counts the retry's answer", first)
	}
	if d := getDriftHistory(t, base, "code-analyzer"); len(d.History) != 0 {
		t.Errorf("an agent without outcomes has history %+v", d.History)
	}
}
