package contract

import (
	"encoding/json"
	"time"
)

// RunState is a run's entry in the run-state bucket, and the answer of
// GET /v1/runs/{run_id} (section 6).
type RunState struct {
	RunID   string    `json:"run_id"`
	AgentID string    `json:"agent_id"`
	Status  RunStatus `json:"status"`
	// Attempts is the highest attempt that has an outcome.
	Attempts int `json:"attempts"`
	// Outcome is the latest outcome message, as published.
	Outcome   json.RawMessage `json:"outcome"`
	UpdatedAt time.Time       `json:"updated_at"`
	// Replays lists the dead letters (by sequence in the dead-letter
	// stream) replayed into this run with `agentgate dlq replay`; each
	// reopens the run once. Not in the contract's table.
	Replays []uint64 `json:"replays,omitempty"`
	// BlueprintRevision is the revision (in the agentgate_blueprints
	// bucket) of the blueprint the run's first attempt was judged by;
	// every later attempt is judged by it too (section 12). Absent when
	// the agent has no blueprint or the registry is static.
	BlueprintRevision uint64 `json:"blueprint_revision,omitempty"`
	// InputStream and InputSeq name the input that produced Outcome: the
	// stream that holds it and its sequence there. They are kept in the
	// store but are not part of the API answer: they tell a redelivery of
	// that input, whose outcome may not have gone out, from a new output
	// for an answered attempt.
	InputStream string `json:"-"`
	InputSeq    uint64 `json:"-"`
	// OutcomeMsgID is the Nats-Msg-Id Outcome was published with (kept in
	// the store, not in the API answer).
	OutcomeMsgID string `json:"-"`
}

// OutcomeFor is the outcome a recorded status stands for.
func OutcomeFor(s RunStatus) Outcome {
	switch s {
	case RunCompleted:
		return OutcomeValid
	case RunRetryRequested:
		return OutcomeRetry
	case RunRefused:
		return OutcomeRefused
	}
	return OutcomeDLQ
}

// NextAttempt is the attempt the run expects when a raw output carries no
// Attempt header: 1 for a new run (st nil), the one after the last for a run
// in progress, and the last one for a finished run (which then publishes
// nothing new).
func NextAttempt(st *RunState) int {
	switch {
	case st == nil:
		return 1
	case st.Status.Finished():
		return st.Attempts
	default:
		return st.Attempts + 1
	}
}
