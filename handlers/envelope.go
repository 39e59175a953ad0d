package handlers

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/contract"
)

// Envelope is one output as it arrived: the agent its address names, where
// it came from, its headers, and the payload exactly as published. The bus
// adapter builds it once per message; the pipeline never sees a subject
// other than as the record Origin keeps.
type Envelope struct {
	// Agent is the agent the output's address names; "" when the address
	// names none (the bare raw subject), and then the Agent-Id header must.
	Agent string
	// Misaddressed, when set, says why the output's address cannot carry
	// an output (a subject with more than one token after the prefix):
	// the output is an invalid_envelope dead letter.
	Misaddressed string
	// Headers holds every header with all its values, for the dead letter.
	Headers map[string][]string
	Payload []byte
	// Origin is where the output came from: recorded in its dead letter,
	// and, in the run's state, so that a redelivery of this very output is
	// known as one.
	Origin Origin
	// WholeSubject is, for a chunk of a streamed output, the subject the
	// assembled output counts as published to: its dead letter names it,
	// and a replay publishes the whole output there.
	WholeSubject string
	// Replayed is the dead letter the Replay-Of header names, as the
	// dead-letter stream holds it: nil when the header is absent or the
	// stream holds no such dead letter. The handler looks it up before
	// the gate decides.
	Replayed *contract.DeadLetterRef
}

// Origin is where an output is kept on the bus: the subject it was
// published to, and the stream and sequence that hold it. It is zero for an
// output that reached the gateway otherwise (an agent-protocol twin's
// attempt, the offline validator): such an output is never redelivered.
type Origin struct {
	Subject string
	Stream  string
	Seq     uint64
	// Chunked says Seq is a chunk's, in the stream of streamed outputs'
	// chunks, which counts from 1 as the raw stream does.
	Chunked bool
}

// tag names the input in the Nats-Msg-Id of a dead letter that is not its
// run's recorded outcome (contract section 3): seq-<N> for a raw output,
// chunk-<N> for a chunk of a streamed one, so that the two streams'
// sequences never give two dead letters the same id.
func (o Origin) tag() string {
	if o.Chunked {
		return "chunk-" + strconv.FormatUint(o.Seq, 10)
	}
	return "seq-" + strconv.FormatUint(o.Seq, 10)
}

// Header returns the first value of a header ("" when absent).
func (e Envelope) Header(name string) string {
	if v := e.Headers[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// MaxRunIDLen bounds the Run-Id header, which keys the run's state.
const MaxRunIDLen = 256

// Meta is what the contract's headers say about a raw output, once checked.
type Meta struct {
	RunID   string
	AgentID string
	// Attempt is 0 when the header was absent: the run's next expected
	// attempt applies.
	Attempt   int
	SessionID *string
	SchemaID  string
	Refusal   bool
	// ReplayOf is the dead letter this output replays (its sequence in the
	// dead-letter stream), 0 for an ordinary output.
	ReplayOf uint64
}

// contractHeaders may not carry two different values: the message would be
// ambiguous about its own run, agent or attempt.
var contractHeaders = []string{
	contract.HeaderRunID, contract.HeaderAgentID, contract.HeaderAttempt,
	contract.HeaderSessionID, contract.HeaderSchemaID, contract.HeaderOutputKind, contract.HeaderReplayOf,
}

// ParseMeta checks the envelope's address and headers (section 2). A
// non-empty reason means the raw output is an invalid_envelope dead letter;
// the Meta then holds what could be read, for naming the dead letter.
func ParseMeta(e Envelope) (m Meta, reason string) {
	m.RunID = e.Header(contract.HeaderRunID)
	token := e.Agent
	header := e.Header(contract.HeaderAgentID)
	m.AgentID = token
	if m.AgentID == "" {
		m.AgentID = header
	}
	if v, ok := e.Headers[contract.HeaderSessionID]; ok && len(v) > 0 {
		s := v[0]
		m.SessionID = &s
	}
	m.SchemaID = e.Header(contract.HeaderSchemaID)
	m.Refusal = strings.EqualFold(strings.TrimSpace(e.Header(contract.HeaderOutputKind)), contract.OutputKindRefusal)

	attemptErr := ""
	if a, ok := e.Headers[contract.HeaderAttempt]; ok && len(a) > 0 {
		n, err := strconv.Atoi(strings.TrimSpace(a[0]))
		if err != nil || n < 1 {
			attemptErr = fmt.Sprintf("Attempt header %q is not a positive integer", a[0])
		} else {
			// Read first, so that every dead letter names the attempt.
			m.Attempt = n
		}
	}
	for _, h := range contractHeaders {
		if vs := e.Headers[h]; len(vs) > 1 {
			for _, v := range vs[1:] {
				if v != vs[0] {
					return m, fmt.Sprintf("header %s is repeated with different values", h)
				}
			}
		}
	}
	switch {
	case e.Misaddressed != "":
		return m, e.Misaddressed
	case strings.TrimSpace(m.RunID) == "":
		return m, "missing Run-Id header"
	case len(m.RunID) > MaxRunIDLen:
		return m, fmt.Sprintf("Run-Id is %d bytes, over the limit of %d", len(m.RunID), MaxRunIDLen)
	case m.AgentID == "":
		return m, "no agent: publish to agent.output.raw.<agent> or set the Agent-Id header"
	case token != "" && header != "" && header != token:
		return m, fmt.Sprintf("Agent-Id header %q differs from the subject's agent %q", header, token)
	case !contract.ValidAgent(m.AgentID):
		return m, fmt.Sprintf("agent name %q is not a single subject token [A-Za-z0-9_-]+", m.AgentID)
	}
	if attemptErr != "" {
		return m, attemptErr
	}
	if r, ok := e.Headers[contract.HeaderReplayOf]; ok && len(r) > 0 {
		n, err := strconv.ParseUint(strings.TrimSpace(r[0]), 10, 64)
		if err != nil || n == 0 {
			return m, fmt.Sprintf("Replay-Of header %q is not a dead-letter sequence", r[0])
		}
		m.ReplayOf = n
	}
	return m, ""
}
