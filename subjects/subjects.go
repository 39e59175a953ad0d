package subjects

import (
	"strings"

	"github.com/agentgate/agentgate/contract"
)

// Subject prefixes of the contract (section 1). Each is followed by
// .<agent>, except that a raw output may also arrive on the bare RawPrefix.
const (
	RawPrefix     = "agent.output.raw"
	PartialPrefix = "agent.output.partial"
	ValidPrefix   = "agent.output.valid"
	RetryPrefix   = "agent.retry.requested"
	RefusedPrefix = "agent.output.refused"
	DLQPrefix     = "agent.output.dlq"
)

// UnknownAgent is the agent token of dead letters that cannot be tied to an
// agent: they go to agent.output.dlq._.
const UnknownAgent = "_"

// Raw is the subject an executor publishes an agent's raw output to.
func Raw(agent string) string { return RawPrefix + "." + agent }

// Partial is the subject of an agent's streamed chunks.
func Partial(agent string) string { return PartialPrefix + "." + agent }

// Valid is the subject of an agent's valid results.
func Valid(agent string) string { return ValidPrefix + "." + agent }

// Retry is the subject of an agent's retry requests.
func Retry(agent string) string { return RetryPrefix + "." + agent }

// Refused is the subject of an agent's refusals.
func Refused(agent string) string { return RefusedPrefix + "." + agent }

// DLQ is the subject of an agent's dead letters.
func DLQ(agent string) string { return DLQPrefix + "." + agent }

// Outcome is the subject an outcome for agent is published to. An agent name
// that is not a valid token goes to the unknown-agent dead-letter subject.
func Outcome(o contract.Outcome, agent string) string {
	if !contract.ValidAgent(agent) {
		return DLQ(UnknownAgent)
	}
	switch o {
	case contract.OutcomeValid:
		return Valid(agent)
	case contract.OutcomeRetry:
		return Retry(agent)
	case contract.OutcomeRefused:
		return Refused(agent)
	default:
		return DLQ(agent)
	}
}

// AgentFromPartial returns the agent token of a partial (streamed chunk)
// subject; ok is false for any other subject.
func AgentFromPartial(subject string) (agent string, ok bool) {
	rest, found := strings.CutPrefix(subject, PartialPrefix+".")
	if !found || rest == "" || strings.Contains(rest, ".") {
		return "", false
	}
	return rest, true
}

// AgentFromRaw returns what follows the raw prefix of subject: "" for the
// bare subject, the agent token otherwise. ok is false when subject is not a
// raw subject at all or has more than one token after the prefix.
func AgentFromRaw(subject string) (agent string, ok bool) {
	if subject == RawPrefix {
		return "", true
	}
	rest, found := strings.CutPrefix(subject, RawPrefix+".")
	if !found {
		return "", false
	}
	if rest == "" || strings.Contains(rest, ".") {
		return rest, false
	}
	return rest, true
}
