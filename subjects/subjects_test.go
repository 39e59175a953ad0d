package subjects_test

import (
	"testing"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/subjects"
)

func TestAgentFromRaw(t *testing.T) {
	t.Parallel()
	tests := []struct {
		given     string
		wantAgent string
		wantOK    bool
	}{
		{"agent.output.raw", "", true},
		{"agent.output.raw.pr-reviewer", "pr-reviewer", true},
		{"agent.output.raw.a.b", "a.b", false},
		{"agent.output.rawx", "", false},
		{"agent.output.valid.x", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.given, func(t *testing.T) {
			t.Parallel()
			agent, ok := subjects.AgentFromRaw(tt.given)
			if agent != tt.wantAgent || ok != tt.wantOK {
				t.Errorf("AgentFromRaw(%q) = %q, %v; want %q, %v", tt.given, agent, ok, tt.wantAgent, tt.wantOK)
			}
		})
	}
}

func TestOutcome(t *testing.T) {
	t.Parallel()
	tests := []struct {
		outcome contract.Outcome
		agent   string
		want    string
	}{
		{contract.OutcomeValid, "a", "agent.output.valid.a"},
		{contract.OutcomeRetry, "a", "agent.retry.requested.a"},
		{contract.OutcomeRefused, "a", "agent.output.refused.a"},
		{contract.OutcomeDLQ, "a", "agent.output.dlq.a"},
		{contract.OutcomeDLQ, "", "agent.output.dlq._"},
		{contract.OutcomeValid, "a b", "agent.output.dlq._"},
		{contract.OutcomeDLQ, "a.b", "agent.output.dlq._"},
	}
	for _, tt := range tests {
		if got := subjects.Outcome(tt.outcome, tt.agent); got != tt.want {
			t.Errorf("Outcome(%s, %q) = %q, want %q", tt.outcome, tt.agent, got, tt.want)
		}
	}
}

// Every subject of the contract is captured by exactly one stream, and the
// raw stream also takes malformed raw subjects so they can be dead-lettered.
