package contract

import (
	"encoding/json"
	"time"
)

// Event types of the outcome payloads.
const (
	EventResult         = "result"
	EventRetryRequested = "retry_requested"
	EventRefusal        = "refusal"
	EventFailed         = "failed"
)

// Normalization ops (section 3.1).
const (
	OpExtract = "extract"
	OpRepair  = "repair"
	OpRename  = "rename"
	OpDrop    = "drop"
	OpStrip   = "strip"
	OpCoerce  = "coerce"
	// OpLossy records a lossy repair accepted by a blueprint with
	// "lossy_repair": "accept", at the path where content was lost.
	OpLossy = "lossy"
	// OpMerge records that the answer to a partial re-ask was merged
	// (RFC 7386) into the previous attempt's normalized document.
	OpMerge = "merge"
)

// Normalization records one change made to reach result_data.
type Normalization struct {
	Op   string `json:"op"`
	Path string `json:"path"`
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Detail says what was done where From and To do not: the kind of
	// repair, the wrapper an extraction removed, the coercion applied.
	Detail string `json:"detail,omitempty"`
}

// ValidationError is the validation error of section 4, carried by retry
// requests (retryable) and dead letters (not retryable).
type ValidationError struct {
	Error    string `json:"error"`
	SchemaID string `json:"schema_id"`
	// DeclaredID is the inline schema's own $id, where it declares one.
	DeclaredID string      `json:"declared_id,omitempty"`
	AgentID    string      `json:"agent_id"`
	Violations []Violation `json:"violations"`
	RawOutput  string      `json:"raw_output"`
	Retryable  bool        `json:"retryable"`
	// Stage is "stream" when a streamed output was stopped early (section 8).
	Stage string `json:"stage,omitempty"`
	// ViolationsOmitted counts the violations left out of Violations,
	// which keeps the first ones: over the limit of violations reported,
	// or to keep a retry request within the bus's maximum message size.
	ViolationsOmitted int `json:"violations_omitted,omitempty"`
}

// ValidationErrorCode is the error field of a ValidationError.
const ValidationErrorCode = "output_validation_failed"

// RawOutputLimit is where raw_output is cut, with RawOutputMarker appended.
const RawOutputLimit = 4096

// RawOutputMarker ends a raw_output that was cut at RawOutputLimit bytes.
const RawOutputMarker = "...[truncated]"

// TruncateRaw returns the raw output as the raw_output field carries it: cut
// at RawOutputLimit bytes, on a rune boundary, with a marker when longer.
func TruncateRaw(raw []byte) string {
	if len(raw) <= RawOutputLimit {
		return string(raw)
	}
	cut := RawOutputLimit
	for cut > 0 && cut > RawOutputLimit-4 && !runeStart(raw[cut]) {
		cut--
	}
	return string(raw[:cut]) + RawOutputMarker
}

func runeStart(b byte) bool { return b&0xC0 != 0x80 }

// ResultEvent is published on agent.output.valid.<agent> (section 3.1).
type ResultEvent struct {
	EventType string  `json:"event_type"`
	RunID     string  `json:"run_id"`
	AgentID   string  `json:"agent_id"`
	SessionID *string `json:"session_id"`
	Attempt   int     `json:"attempt"`
	SchemaID  *string `json:"schema_id"`
	// DeclaredID is the inline schema's own $id, where it declares one.
	DeclaredID     string          `json:"declared_id,omitempty"`
	ResultData     any             `json:"result_data"`
	ResultText     *string         `json:"result_text"`
	Normalized     bool            `json:"normalized"`
	Normalizations []Normalization `json:"normalizations"`
	// Refusal is the text of a "refusal" member the model put beside an
	// otherwise valid document (removed from result_data as an extra
	// member): the model also refused something (absent otherwise).
	Refusal   *string   `json:"refusal,omitempty"`
	Timestamp time.Time `json:"timestamp"`
}

// RetryEvent is published on agent.retry.requested.<agent> (section 3.2).
type RetryEvent struct {
	EventType   string          `json:"event_type"`
	RunID       string          `json:"run_id"`
	AgentID     string          `json:"agent_id"`
	SessionID   *string         `json:"session_id,omitempty"`
	Attempt     int             `json:"attempt"`
	NextAttempt int             `json:"next_attempt"`
	Error       ValidationError `json:"error"`
	RetryPrompt string          `json:"retry_prompt"`
	// Partial is set when the retry prompt is a partial re-ask (blueprint
	// retry: partial): the answer may hold just the members at Paths, and
	// is merged into Document.
	Partial   *PartialRetry `json:"partial,omitempty"`
	Timestamp time.Time     `json:"timestamp"`
}

// PartialRetry is what a partial re-ask asks for (section 3.2).
type PartialRetry struct {
	// Paths are the JSONPaths of the members asked for again.
	Paths []string `json:"paths"`
	// Document is the failed attempt's normalized document, into which the
	// answer is merged (RFC 7386).
	Document any `json:"document"`
}

// RefusalEvent is published on agent.output.refused.<agent> (section 3.3).
type RefusalEvent struct {
	EventType string  `json:"event_type"`
	RunID     string  `json:"run_id"`
	AgentID   string  `json:"agent_id"`
	SessionID *string `json:"session_id,omitempty"`
	Attempt   int     `json:"attempt"`
	Refusal   string  `json:"refusal"`
	// Detection says how the refusal was recognised: "header"
	// (Output-Kind: refusal), "object" ({"refusal": "..."}), "text" (a
	// plain-text refusal in the default phrasings) or "pattern" (one of the
	// blueprint's refusal_patterns).
	Detection string    `json:"detection,omitempty"`
	Timestamp time.Time `json:"timestamp"`
}

// FailedEvent is published on agent.output.dlq.<agent> (section 3.4).
type FailedEvent struct {
	EventType  string           `json:"event_type"`
	RunID      string           `json:"run_id"`
	AgentID    string           `json:"agent_id"`
	SessionID  *string          `json:"session_id,omitempty"`
	Attempt    int              `json:"attempt"`
	Status     string           `json:"status"`
	Error      FailedError      `json:"error"`
	Validation *ValidationError `json:"validation,omitempty"`
	Raw        RawMessage       `json:"raw"`
	Timestamp  time.Time        `json:"timestamp"`
}

// FailedError is the typed error of a dead letter.
type FailedError struct {
	Type             ErrorType `json:"type"`
	Message          string    `json:"message"`
	ValidationErrors []string  `json:"validation_errors,omitempty"`
	// Limit names the limit a processing_limit dead letter went over
	// ("decision_time", "max_deliver").
	Limit string `json:"limit,omitempty"`
	// Deliveries is how often the input was delivered, for a dead letter
	// of its last delivery.
	Deliveries int `json:"deliveries,omitempty"`
}

// RawMessage keeps a dead-lettered input complete, so that an operator can
// publish it again once the cause is fixed. The payload is kept as text when
// it is valid UTF-8 and as base64 otherwise, so no byte is lost either way.
type RawMessage struct {
	Subject string              `json:"subject"`
	Headers map[string][]string `json:"headers"`
	// Payload is the raw output as text; set when it is valid UTF-8.
	Payload *string `json:"payload,omitempty"`
	// PayloadBase64 is the raw output in standard base64; set when it is not
	// valid UTF-8.
	PayloadBase64 string `json:"payload_base64,omitempty"`
	// Size is the payload's length in bytes.
	Size int `json:"size"`
	// Stream and Seq locate the original in the raw stream.
	Stream string `json:"stream,omitempty"`
	Seq    uint64 `json:"seq,omitempty"`
	// Omitted is true when the payload was too large to copy into the dead
	// letter; it is then read from Stream at Seq.
	Omitted bool `json:"omitted,omitempty"`
}

// Bytes returns the kept payload.
func (r RawMessage) Bytes() ([]byte, error) {
	if r.Payload != nil {
		return []byte(*r.Payload), nil
	}
	var b []byte
	if err := json.Unmarshal([]byte(`"`+r.PayloadBase64+`"`), &b); err != nil {
		return nil, err
	}
	return b, nil
}
