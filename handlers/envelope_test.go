package handlers_test

import (
	"strings"
	"testing"

	"github.com/agentgate/agentgate/handlers"
)

func TestParseMeta(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		subject    string
		headers    map[string][]string
		wantAgent  string
		wantTry    int
		wantReason string // a substring; "" when the envelope is fine
	}{
		{"agent from subject", "agent.output.raw.pr-reviewer", map[string][]string{"Run-Id": {"r"}}, "pr-reviewer", 0, ""},
		{"agent from header on bare subject", "agent.output.raw", map[string][]string{"Run-Id": {"r"}, "Agent-Id": {"x"}}, "x", 0, ""},
		{"header equal to subject", "agent.output.raw.x", map[string][]string{"Run-Id": {"r"}, "Agent-Id": {"x"}, "Attempt": {"2"}}, "x", 2, ""},
		{"same value repeated is fine", "agent.output.raw.x", map[string][]string{"Run-Id": {"r", "r"}}, "x", 0, ""},
		{"missing run id", "agent.output.raw.x", map[string][]string{}, "x", 0, "missing Run-Id"},
		{"blank run id", "agent.output.raw.x", map[string][]string{"Run-Id": {"  "}}, "x", 0, "missing Run-Id"},
		{"run id too long", "agent.output.raw.x", map[string][]string{"Run-Id": {strings.Repeat("r", 300)}}, "x", 0, "over the limit"},
		{"no agent", "agent.output.raw", map[string][]string{"Run-Id": {"r"}}, "", 0, "no agent"},
		{"header differs from subject", "agent.output.raw.x", map[string][]string{"Run-Id": {"r"}, "Agent-Id": {"y"}}, "x", 0, "differs"},
		{"bad agent name in header", "agent.output.raw", map[string][]string{"Run-Id": {"r"}, "Agent-Id": {"a b"}}, "a b", 0, "single subject token"},
		{"two tokens", "agent.output.raw.a.b", map[string][]string{"Run-Id": {"r"}}, "a.b", 0, "is not"},
		{"attempt zero", "agent.output.raw.x", map[string][]string{"Run-Id": {"r"}, "Attempt": {"0"}}, "x", 0, "positive integer"},
		{"attempt text", "agent.output.raw.x", map[string][]string{"Run-Id": {"r"}, "Attempt": {"two"}}, "x", 0, "positive integer"},
		{"repeated run id", "agent.output.raw.x", map[string][]string{"Run-Id": {"a", "b"}}, "x", 0, "repeated"},
		{"repeated attempt", "agent.output.raw.x", map[string][]string{"Run-Id": {"r"}, "Attempt": {"1", "2"}}, "x", 1, "repeated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, reason := handlers.ParseMeta(handlers.Envelope{Subject: tt.subject, Headers: tt.headers})
			if tt.wantReason == "" && reason != "" || !strings.Contains(reason, tt.wantReason) {
				t.Fatalf("reason = %q, want %q", reason, tt.wantReason)
			}
			if m.AgentID != tt.wantAgent {
				t.Errorf("agent = %q, want %q", m.AgentID, tt.wantAgent)
			}
			if reason == "" && m.Attempt != tt.wantTry {
				t.Errorf("attempt = %d, want %d", m.Attempt, tt.wantTry)
			}
		})
	}
}

func TestParseMeta_refusalAndSession(t *testing.T) {
	t.Parallel()
	m, reason := handlers.ParseMeta(handlers.Envelope{Subject: "agent.output.raw.x", Headers: map[string][]string{
		"Run-Id": {"r"}, "Output-Kind": {"refusal"}, "Session-Id": {""},
	}})
	if reason != "" || !m.Refusal || m.SessionID == nil || *m.SessionID != "" {
		t.Errorf("meta = %+v, reason %q", m, reason)
	}
	m, _ = handlers.ParseMeta(handlers.Envelope{Subject: "agent.output.raw.x", Headers: map[string][]string{"Run-Id": {"r"}}})
	if m.Refusal || m.SessionID != nil {
		t.Errorf("meta = %+v", m)
	}
}
