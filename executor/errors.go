package executor

import (
	"errors"
	"fmt"

	"github.com/agentgate/agentgate/contract"
)

// ErrBadConfig is returned by New for a configuration that cannot work.
var ErrBadConfig = errors.New("executor: bad configuration")

// ErrInvalidArgument is returned, before anything is published, for an
// agent name that is not a subject token, an empty or oversized run id, a
// negative attempt, or a header value with a line break in it.
var ErrInvalidArgument = errors.New("executor: invalid argument")

// ErrUnknownAgent is returned by Run and SystemPrompt when the gateway has
// no blueprint for the agent (HTTP 404).
var ErrUnknownAgent = errors.New("executor: unknown agent")

// ErrGateway is returned when the gateway's HTTP API answers with an
// unexpected status or body; the error text carries the status.
var ErrGateway = errors.New("executor: unexpected answer from the gateway")

// ErrSuperseded is returned by Await when the run has already moved past
// the attempt asked for: that attempt's outcome (necessarily a retry
// request) is no longer the run's latest, so the run state cannot answer it.
var ErrSuperseded = errors.New("executor: the run has moved past this attempt")

// ErrAttemptsExceeded is returned by Run when the gateway asks for a retry
// beyond the attempts the agent's blueprint allows; it bounds the loop even
// if the gateway and the client disagree.
var ErrAttemptsExceeded = errors.New("executor: retry requested beyond the agent's attempts")

// ErrRefused matches (errors.Is) every *Refused.
var ErrRefused = errors.New("executor: the model refused")

// ErrDeadLettered matches (errors.Is) every *DeadLettered and every
// *ValidationFailed: both are dead letters.
var ErrDeadLettered = errors.New("executor: the output was dead-lettered")

// ErrValidationFailed matches (errors.Is) every *ValidationFailed.
var ErrValidationFailed = errors.New("executor: the output was still invalid after the last retry")

// ValidationFailed is the outcome of a run whose output was still invalid
// after its last retry: a dead letter of type output_schema_validation_failed.
type ValidationFailed struct {
	// Violations are the last attempt's violations (contract section 4).
	Violations []contract.Violation
	// DeadLetter is the dead letter as published.
	DeadLetter *contract.FailedEvent
}

// Error implements error.
func (e *ValidationFailed) Error() string {
	msg := fmt.Sprintf("executor: run %q: output still invalid at attempt %d", e.DeadLetter.RunID, e.DeadLetter.Attempt)
	if len(e.Violations) > 0 {
		v := e.Violations[0]
		msg += fmt.Sprintf(" (%d violation(s), first %s: %s)", len(e.Violations), v.Path, v.Message)
	}
	return msg
}

// Is matches ErrValidationFailed and ErrDeadLettered.
func (e *ValidationFailed) Is(target error) bool {
	return target == ErrValidationFailed || target == ErrDeadLettered
}

// Refused is the outcome of a run whose model refused (contract section
// 3.3). No retry is requested for a refusal.
type Refused struct {
	// Text is the refusal as the model wrote it.
	Text string
	// Event is the refusal as published.
	Event *contract.RefusalEvent
}

// Error implements error.
func (e *Refused) Error() string {
	return fmt.Sprintf("executor: run %q: the model refused at attempt %d: %s", e.Event.RunID, e.Event.Attempt, e.Text)
}

// Is matches ErrRefused.
func (e *Refused) Is(target error) bool { return target == ErrRefused }

// DeadLettered is a dead letter other than output_schema_validation_failed
// (which is a *ValidationFailed): the output could not be processed at all
// (invalid_encoding, payload_too_large, unknown_agent, ...).
type DeadLettered struct {
	// Type is the dead letter's error.type (contract section 3.4).
	Type contract.ErrorType
	// Message says why, in the gateway's words.
	Message string
	// Event is the dead letter as published.
	Event *contract.FailedEvent
}

// Error implements error.
func (e *DeadLettered) Error() string {
	return fmt.Sprintf("executor: run %q attempt %d dead-lettered: %s: %s", e.Event.RunID, e.Event.Attempt, e.Type, e.Message)
}

// Is matches ErrDeadLettered.
func (e *DeadLettered) Is(target error) bool { return target == ErrDeadLettered }

// ModelRefusal is what a Model returns (possibly wrapped) when the model
// declined to answer: Run then submits Text with Output-Kind: refusal, and
// the run ends with a *Refused. A model may instead answer with the JSON
// object {"refusal": "..."}, which the gateway recognises too.
type ModelRefusal struct {
	Text string
}

// Error implements error.
func (e *ModelRefusal) Error() string { return "executor: the model refused: " + e.Text }

// ErrUnsigned is returned by Verify for an outcome without an
// Outcome-Signature (a gateway with no signing key, or a forgery).
var ErrUnsigned = errors.New("executor: the outcome is not signed")

// ErrUntrustedSigner is returned by Verify when the outcome was signed
// with a key the caller does not trust.
var ErrUntrustedSigner = errors.New("executor: the outcome is signed by an untrusted key")

// ErrBadSignature is returned by Verify when the signature does not match
// the message: it was forged, or changed after signing.
var ErrBadSignature = errors.New("executor: the outcome's signature does not match")
