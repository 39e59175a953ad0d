package contract

import (
	"fmt"
	"strconv"
)

// Outcome is the verdict published for one run and attempt, carried in the
// Outcome header of every output message.
type Outcome string

// The four outcomes of section 3.
const (
	OutcomeValid   Outcome = "valid"
	OutcomeRetry   Outcome = "retry"
	OutcomeRefused Outcome = "refused"
	OutcomeDLQ     Outcome = "dlq"
)

// Outcomes lists every outcome, in the order of the contract.
var Outcomes = []Outcome{OutcomeValid, OutcomeRetry, OutcomeRefused, OutcomeDLQ}

// MsgID is the JetStream de-duplication id of an outcome message:
// <run>.<attempt>.<outcome>. Deriving it from the run rather than reusing the
// input's id keeps a crash between publishing and recording from storing a
// second copy, and keeps outputs from colliding with inputs in one stream.
func MsgID(runID string, attempt int, o Outcome) string {
	return runID + "." + strconv.Itoa(attempt) + "." + string(o)
}

// ErrorType is the error.type of a dead letter (section 3.4).
type ErrorType string

// Dead-letter error types, in the precedence order of the contract: when
// several apply, the earlier one wins.
const (
	ErrOutputSchemaValidationFailed ErrorType = "output_schema_validation_failed"
	ErrInvalidEnvelope              ErrorType = "invalid_envelope"
	ErrUnknownAgent                 ErrorType = "unknown_agent"
	ErrUnknownSchema                ErrorType = "unknown_schema"
	ErrPayloadTooLarge              ErrorType = "payload_too_large"
	ErrInvalidEncoding              ErrorType = "invalid_encoding"
	ErrRunAlreadyCompleted          ErrorType = "run_already_completed"
	ErrAttemptsExhausted            ErrorType = "attempts_exhausted"
	// ErrStreamIncomplete is section 8's dead letter for a streamed output
	// whose final chunk never came.
	ErrStreamIncomplete ErrorType = "stream_incomplete"
	// ErrUpstreamError is section 10's dead letter for a gated exchange
	// whose upstream agent answered with a protocol error, could not be
	// reached, or broke the protocol.
	ErrUpstreamError ErrorType = "upstream_error"
	// ErrInternal is not in the contract's table: it dead-letters a message
	// whose processing panicked or kept failing after every retry, so that a
	// poison message ends somewhere an operator can see it instead of being
	// redelivered forever or dropped.
	ErrInternal ErrorType = "internal_error"
	// ErrProcessingLimit dead-letters an output that went over one of the
	// gateway's processing limits (section 13): its decision took too
	// long, or it still failed at its last delivery. error.limit names
	// the limit.
	ErrProcessingLimit ErrorType = "processing_limit"
)

// LeavesRunState reports whether a dead letter of this type leaves the run's
// state as it was (section 3.4); the others mark the run failed.
func (t ErrorType) LeavesRunState() bool {
	switch t {
	case ErrInvalidEnvelope, ErrInvalidEncoding, ErrRunAlreadyCompleted, ErrAttemptsExhausted, ErrInternal:
		return true
	}
	return false
}

// RunStatus is the status of a run in the key-value store (section 6).
type RunStatus string

// Run statuses.
const (
	RunPending        RunStatus = "pending"
	RunRetryRequested RunStatus = "retry_requested"
	RunCompleted      RunStatus = "completed"
	RunRefused        RunStatus = "refused"
	RunFailed         RunStatus = "failed"
)

// Finished reports whether the run has reached a final outcome.
func (s RunStatus) Finished() bool {
	return s == RunCompleted || s == RunRefused || s == RunFailed
}

// StatusFor is the run status an outcome leaves behind.
func StatusFor(o Outcome) RunStatus {
	switch o {
	case OutcomeValid:
		return RunCompleted
	case OutcomeRetry:
		return RunRetryRequested
	case OutcomeRefused:
		return RunRefused
	case OutcomeDLQ:
		return RunFailed
	}
	panic(fmt.Sprintf("contract: unknown outcome %q", string(o)))
}
