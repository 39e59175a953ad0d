package router

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/subjects"
)

// Metadata keys the Unmarshaler sets on every message, besides one key per
// NATS header (its first value). They start with an underscore, like
// Watermill's own, so that no contract header can collide with them.
const (
	// MetaSubject is the subject the output was published to.
	MetaSubject = "_agentgate_subject"
	// MetaStream is the stream that holds it, and MetaSeq its sequence
	// there.
	MetaStream = "_agentgate_stream"
	MetaSeq    = "_agentgate_seq"
	// MetaDelivered is how often the message has been delivered.
	MetaDelivered = "_agentgate_delivered"
	// MetaRepeated holds, as a JSON object of arrays, every header that
	// carried more than one value.
	MetaRepeated = "_agentgate_repeated"
)

// Envelope is the pipeline's view of a message the Unmarshaler made: the
// one place a subject becomes an agent. A raw output may come on the bare
// raw subject (the Agent-Id header then names the agent); a chunk's
// subject must name it, and the assembled output counts as published to
// the agent's raw subject (where its dead letter says a replay goes).
func Envelope(msg *message.Message) handlers.Envelope {
	env := handlers.Envelope{
		Headers: make(map[string][]string, len(msg.Metadata)),
		Payload: msg.Payload,
		Origin:  handlers.Origin{Subject: msg.Metadata.Get(MetaSubject), Stream: msg.Metadata.Get(MetaStream)},
	}
	env.Origin.Seq, _ = strconv.ParseUint(msg.Metadata.Get(MetaSeq), 10, 64)
	for k, v := range msg.Metadata {
		if !strings.HasPrefix(k, "_agentgate_") {
			env.Headers[k] = []string{v}
		}
	}
	if rep := msg.Metadata.Get(MetaRepeated); rep != "" {
		var all map[string][]string
		if json.Unmarshal([]byte(rep), &all) == nil {
			for k, vs := range all {
				env.Headers[k] = vs
			}
		}
	}
	subject := env.Origin.Subject
	if strings.HasPrefix(subject, subjects.PartialPrefix+".") {
		env.Origin.Chunked = true
		agent, ok := subjects.AgentFromPartial(subject)
		env.Agent = agent
		if !ok {
			env.Misaddressed = fmt.Sprintf("subject %q is not %s.<agent>", subject, subjects.PartialPrefix)
			return env
		}
		// Assembled, the chunks are one raw output of the agent's.
		env.WholeSubject = subjects.Raw(agent)
		return env
	}
	agent, ok := subjects.AgentFromRaw(subject)
	env.Agent = agent
	if !ok {
		env.Misaddressed = fmt.Sprintf("subject %q is not %s or %s.<agent>", subject, subjects.RawPrefix, subjects.RawPrefix)
	}
	return env
}

// OutcomeSubject is where a decision's outcome goes (contract section 1):
// the subject of its kind for its agent, or the dead letters of no agent
// when the decision cannot be tied to one.
func OutcomeSubject(d handlers.Decision) string {
	if d.Unattributed {
		return subjects.DLQ(subjects.UnknownAgent)
	}
	return subjects.Outcome(d.Outcome, d.AgentID)
}
