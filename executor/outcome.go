package executor

import (
	"encoding/json"
	"fmt"

	"github.com/agentgate/agentgate/contract"
)

// Outcome is the gateway's verdict on one run and attempt (contract section
// 3): its kind and the decoded event, exactly one of Result, Retry, Refusal
// and Failed being set, matching Kind.
type Outcome struct {
	// Kind is valid, retry, refused or dlq.
	Kind    contract.Outcome
	RunID   string
	AgentID string
	Attempt int
	// Result is set for valid.
	Result *contract.ResultEvent
	// Retry is set for retry: its RetryPrompt is what to tell the model.
	// Retry.Partial is set for a partial re-ask (blueprint retry:
	// partial): the model may answer with just the members at
	// Retry.Partial.Paths, and the gateway merges its answer into
	// Retry.Partial.Document (RFC 7386) before validating it whole, so
	// the Result is always the whole document.
	Retry *contract.RetryEvent
	// Refusal is set for refused.
	Refusal *contract.RefusalEvent
	// Failed is set for dlq.
	Failed *contract.FailedEvent
	// Raw is the outcome message's payload as published.
	Raw json.RawMessage
}

// Err returns the outcome as Run reports it when it ends the run: nil for
// valid and retry, a *Refused for refused, a *ValidationFailed for an
// output_schema_validation_failed dead letter, a *DeadLettered for any
// other.
func (o *Outcome) Err() error {
	switch {
	case o.Refusal != nil:
		return &Refused{Text: o.Refusal.Refusal, Event: o.Refusal}
	case o.Failed != nil && o.Failed.Error.Type == contract.ErrOutputSchemaValidationFailed:
		vf := &ValidationFailed{DeadLetter: o.Failed}
		if o.Failed.Validation != nil {
			vf.Violations = o.Failed.Validation.Violations
		}
		return vf
	case o.Failed != nil:
		return &DeadLettered{Type: o.Failed.Error.Type, Message: o.Failed.Error.Message, Event: o.Failed}
	}
	return nil
}

// decodeOutcome decodes an outcome message's payload, its kind told by its
// event_type.
func decodeOutcome(data []byte) (*Outcome, error) {
	var head struct {
		EventType string `json:"event_type"`
		RunID     string `json:"run_id"`
		AgentID   string `json:"agent_id"`
		Attempt   int    `json:"attempt"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("decoding outcome: %w", err)
	}
	o := &Outcome{RunID: head.RunID, AgentID: head.AgentID, Attempt: head.Attempt, Raw: json.RawMessage(data)}
	var err error
	switch head.EventType {
	case contract.EventResult:
		o.Kind, o.Result = contract.OutcomeValid, new(contract.ResultEvent)
		err = json.Unmarshal(data, o.Result)
	case contract.EventRetryRequested:
		o.Kind, o.Retry = contract.OutcomeRetry, new(contract.RetryEvent)
		err = json.Unmarshal(data, o.Retry)
	case contract.EventRefusal:
		o.Kind, o.Refusal = contract.OutcomeRefused, new(contract.RefusalEvent)
		err = json.Unmarshal(data, o.Refusal)
	case contract.EventFailed:
		o.Kind, o.Failed = contract.OutcomeDLQ, new(contract.FailedEvent)
		err = json.Unmarshal(data, o.Failed)
	default:
		return nil, fmt.Errorf("decoding outcome: unknown event_type %q", head.EventType)
	}
	if err != nil {
		return nil, fmt.Errorf("decoding %s outcome: %w", head.EventType, err)
	}
	return o, nil
}
