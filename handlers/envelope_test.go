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
		agent      string // the agent the address names
		headers    map[string][]string
		wantAgent  string
		wantTry    int
		wantReason string // a substring; "" when the envelope is fine
	}{
		{"agent from subject", "pr-reviewer", map[string][]string{"Run-Id": {"r"}}, "pr-reviewer", 0, ""},
		{"agent from header on bare subject", "", map[string][]string{"Run-Id": {"r"}, "Agent-Id": {"x"}}, "x", 0, ""},
		{"header equal to subject", "x", map[string][]string{"Run-Id": {"r"}, "Agent-Id": {"x"}, "Attempt": {"2"}}, "x", 2, ""},
		{"same value repeated is fine", "x", map[string][]string{"Run-Id": {"r", "r"}}, "x", 0, ""},
		{"missing run id", "x", map[string][]string{}, "x", 0, "missing Run-Id"},
		{"blank run id", "x", map[string][]string{"Run-Id": {"  "}}, "x", 0, "missing Run-Id"},
		{"run id too long", "x", map[string][]string{"Run-Id": {strings.Repeat("r", 300)}}, "x", 0, "over the limit"},
		{"no agent", "", map[string][]string{"Run-Id": {"r"}}, "", 0, "no agent"},
		{"header differs from subject", "x", map[string][]string{"Run-Id": {"r"}, "Agent-Id": {"y"}}, "x", 0, "differs"},
		{"bad agent name in header", "", map[string][]string{"Run-Id": {"r"}, "Agent-Id": {"a b"}}, "a b", 0, "single subject token"},
		{"misaddressed", "a.b", map[string][]string{"Run-Id": {"r"}}, "a.b", 0, "subject is wrong"},
		{"attempt zero", "x", map[string][]string{"Run-Id": {"r"}, "Attempt": {"0"}}, "x", 0, "positive integer"},
		{"attempt text", "x", map[string][]string{"Run-Id": {"r"}, "Attempt": {"two"}}, "x", 0, "positive integer"},
		{"repeated run id", "x", map[string][]string{"Run-Id": {"a", "b"}}, "x", 0, "repeated"},
		{"repeated attempt", "x", map[string][]string{"Run-Id": {"r"}, "Attempt": {"1", "2"}}, "x", 1, "repeated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, reason := handlers.ParseMeta(handlers.Envelope{Agent: tt.agent, Misaddressed: misaddressed(tt.agent), Headers: tt.headers})
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
	m, reason := handlers.ParseMeta(handlers.Envelope{Agent: "x", Headers: map[string][]string{
		"Run-Id": {"r"}, "Output-Kind": {"refusal"}, "Session-Id": {""},
	}})
	if reason != "" || !m.Refusal || m.SessionID == nil || *m.SessionID != "" {
		t.Errorf("meta = %+v, reason %q", m, reason)
	}
	m, _ = handlers.ParseMeta(handlers.Envelope{Agent: "x", Headers: map[string][]string{"Run-Id": {"r"}}})
	if m.Refusal || m.SessionID != nil {
		t.Errorf("meta = %+v", m)
	}
}

// misaddressed stands in for the bus adapter, which finds an agent of two
// tokens misaddressed.
func misaddressed(agent string) string {
	if strings.Contains(agent, ".") {
		return "subject is wrong"
	}
	return ""
}
