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
