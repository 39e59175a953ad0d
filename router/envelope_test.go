package router_test

import (
	"strings"
	"testing"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/router"
)

// The subject becomes an agent once, here: the pipeline sees the agent and
// whether the address was wrong, never the subject's grammar.
func TestEnvelope_address(t *testing.T) {
	t.Parallel()
	tests := []struct {
		subject      string
		wantAgent    string
		misaddressed string // a substring; "" when the address is fine
	}{
		{"agent.output.raw", "", ""},
		{"agent.output.raw.pr-reviewer", "pr-reviewer", ""},
		{"agent.output.raw.a.b", "a.b", "is not agent.output.raw"},
		{"agent.output.partial.pr-reviewer", "pr-reviewer", ""},
		{"agent.output.partial.a.b", "", "is not agent.output.partial.<agent>"},
		{"elsewhere.x", "", "is not agent.output.raw"},
	}
	for _, tt := range tests {
		t.Run(tt.subject, func(t *testing.T) {
			t.Parallel()
			msg := message.NewMessage("id", []byte("{}"))
			msg.Metadata.Set(router.MetaSubject, tt.subject)
			msg.Metadata.Set(router.MetaStream, "S")
			msg.Metadata.Set(router.MetaSeq, "9")
			msg.Metadata.Set(contract.HeaderRunID, "r")
			env := router.Envelope(msg)
			if env.Agent != tt.wantAgent || (tt.misaddressed == "") != (env.Misaddressed == "") ||
				!strings.Contains(env.Misaddressed, tt.misaddressed) {
				t.Errorf("agent %q, misaddressed %q; want %q, %q", env.Agent, env.Misaddressed, tt.wantAgent, tt.misaddressed)
			}
			// A chunk's sequence is the partial stream's, misaddressed or not.
			chunked := strings.HasPrefix(tt.subject, "agent.output.partial.")
			if env.Origin != (handlers.Origin{Subject: tt.subject, Stream: "S", Seq: 9, Chunked: chunked}) || env.Header(contract.HeaderRunID) != "r" {
				t.Errorf("envelope %+v", env)
			}
			if chunk := strings.HasPrefix(tt.subject, "agent.output.partial.") && tt.misaddressed == ""; chunk != (env.WholeSubject != "") ||
				chunk && env.WholeSubject != "agent.output.raw."+tt.wantAgent {
				t.Errorf("a chunk's whole subject = %q", env.WholeSubject)
			}
		})
	}
}

// Every outcome goes to its kind's subject for its agent, except a dead
// letter that cannot be tied to one.
func TestOutcomeSubject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    handlers.Decision
		want string
	}{
		{handlers.Decision{Outcome: contract.OutcomeValid, AgentID: "a"}, "agent.output.valid.a"},
		{handlers.Decision{Outcome: contract.OutcomeRetry, AgentID: "a"}, "agent.retry.requested.a"},
		{handlers.Decision{Outcome: contract.OutcomeRefused, AgentID: "a"}, "agent.output.refused.a"},
		{handlers.Decision{Outcome: contract.OutcomeDLQ, AgentID: "a"}, "agent.output.dlq.a"},
		{handlers.Decision{Outcome: contract.OutcomeDLQ, AgentID: "a.b", Unattributed: true}, "agent.output.dlq._"},
	}
	for _, tt := range tests {
		if got := router.OutcomeSubject(tt.d); got != tt.want {
			t.Errorf("OutcomeSubject(%s, %q) = %q, want %q", tt.d.Outcome, tt.d.AgentID, got, tt.want)
		}
	}
}
