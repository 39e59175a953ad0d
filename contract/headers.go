package contract

// NATS header names of the contract (section 2 and 3). Names are
// case-sensitive as written.
const (
	HeaderRunID      = "Run-Id"
	HeaderAgentID    = "Agent-Id"
	HeaderAttempt    = "Attempt"
	HeaderSessionID  = "Session-Id"
	HeaderSchemaID   = "Schema-Id"
	HeaderOutputKind = "Output-Kind"
	HeaderOutcome    = "Outcome"
	HeaderMsgID      = "Nats-Msg-Id"
	HeaderChunkSeq   = "Chunk-Seq"
	HeaderChunkFinal = "Chunk-Final"
	// HeaderReplayOf is not in the contract's table: `agentgate dlq
	// replay` sets it to the dead letter's sequence in the dead-letter
	// stream, to reopen the run for that output on purpose.
	HeaderReplayOf = "Replay-Of"
)

// OutputKindRefusal is the Output-Kind header value that marks a payload as
// the model's refusal text.
const OutputKindRefusal = "refusal"
