package gateway

import (
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers"
)

// The history keeps the last points of each agent, oldest first, as
// cumulative counts summed over schemas, paths and keywords.
func TestDriftHistory_ringOfCumulativeTotals(t *testing.T) {
	m := NewMetrics(func(agent string) bool { return agent != "stranger" })
	h := newDriftHistory(m, slog.New(slog.DiscardHandler), time.Hour, 3)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if got := h.history("a"); got == nil || len(got) != 0 {
		t.Fatalf("history before any sample = %#v, want empty", got)
	}
	for i := range 5 {
		m.Observe(handlers.Decision{Outcome: contract.OutcomeRetry, AgentID: "a", Attempt: 1, SchemaID: "s1",
			Violations: []contract.Violation{{Path: "$.x", Keyword: "type"}, {Path: "$.y", Keyword: "enum"}}}, 0)
		m.Observe(handlers.Decision{Outcome: contract.OutcomeValid, AgentID: "a", Attempt: 2, SchemaID: "s2",
			Normalizations: []contract.Normalization{{Op: contract.OpRename, Path: "$.n"}}}, 0)
		m.Observe(handlers.Decision{Outcome: contract.OutcomeDLQ, AgentID: "stranger", ErrorType: "x"}, 0)
		h.sample(t0.Add(time.Duration(i) * time.Second))
	}
	got := h.history("a")
	if len(got) != 3 {
		t.Fatalf("%d points, want the last 3", len(got))
	}
	for i, p := range got {
		n := float64(i + 3) // samples 2, 3, 4 (0-based) saw 3, 4, 5 of each
		if !p.T.Equal(t0.Add(time.Duration(i+2)*time.Second)) || p.Outcomes["valid"] != n || p.Outcomes["retry"] != n ||
			p.Outcomes["refused"] != 0 || p.Outcomes["dlq"] != 0 || p.Retries["valid"] != n ||
			p.Normalizations != n || p.Violations != 2*n {
			t.Errorf("point %d = %+v, want %v of each at %v", i, p, n, t0.Add(time.Duration(i+2)*time.Second))
		}
	}
	if u := h.history(unknownAgentLabel); len(u) != 3 || u[2].Outcomes["dlq"] != 5 {
		t.Errorf("agents without a blueprint share one history: %+v", u)
	}
}

// No more than maxDriftAgents agents get a history.
func TestDriftHistory_agentsCapped(t *testing.T) {
	m := NewMetrics(func(string) bool { return true })
	h := newDriftHistory(m, slog.New(slog.DiscardHandler), time.Hour, 2)
	for i := range maxDriftAgents + 10 {
		m.Observe(handlers.Decision{Outcome: contract.OutcomeValid, AgentID: fmt.Sprintf("a%d", i)}, 0)
	}
	h.sample(time.Now())
	h.sample(time.Now())
	if len(h.agents) != maxDriftAgents {
		t.Errorf("%d agents with a history, want %d", len(h.agents), maxDriftAgents)
	}
}

// The sampler runs from start to close.
func TestDriftHistory_sampler(t *testing.T) {
	m := NewMetrics(func(string) bool { return true })
	h := newDriftHistory(m, slog.New(slog.DiscardHandler), 5*time.Millisecond, 10)
	m.Observe(handlers.Decision{Outcome: contract.OutcomeValid, AgentID: "a"}, 0)
	h.start()
	deadline := time.Now().Add(10 * time.Second)
	for len(h.history("a")) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("no two points sampled in 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.close()
	n := len(h.history("a"))
	time.Sleep(30 * time.Millisecond)
	if len(h.history("a")) != n {
		t.Error("sampling went on after close")
	}
}
