package agentproto

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The protocol's fixed names (its sections 2, 3 and 8).
const (
	// ServiceName is the service name of every compliant agent.
	ServiceName = "Synadia Agents"
	// ServiceNameCompact is what frameworks that reject the space register
	// (nats.go's micro among them); the protocol treats it as equivalent.
	ServiceNameCompact = "SynadiaAgents"
	// ProtocolVersion is the version implemented here.
	ProtocolVersion = "0.1"
	// PromptEndpoint is the name of the required endpoint.
	PromptEndpoint = "prompt"
	// SubjectRoot is the first token of every agent's subject.
	SubjectRoot = "agents"
	// TwinAgent is the second subject token and metadata.agent of every
	// gated twin: agents.gate.<owner>.<name>.
	TwinAgent = "gate"
)

// Metadata keys of the service (section 3.2) and of the prompt endpoint
// (section 2.1).
const (
	MetaAgent           = "agent"
	MetaOwner           = "owner"
	MetaSession         = "session"
	MetaProtocolVersion = "protocol_version"
	MetaMaxPayload      = "max_payload"
	MetaAttachmentsOK   = "attachments_ok"
)

// Chunk types (section 6.2) and the one status value (section 6.4).
const (
	ChunkResponse = "response"
	ChunkStatus   = "status"
	ChunkQuery    = "query"
	StatusAck     = "ack"
)

// Error headers (section 9.1) and codes (section 9.2).
const (
	HeaderErrorCode = "Nats-Service-Error-Code"
	HeaderError     = "Nats-Service-Error"

	CodeBadRequest   = 400
	CodeUnauthorized = 401
	CodeForbidden    = 403
	CodeNotFound     = 404
	CodeConflict     = 409
	CodeRateLimited  = 429
	CodeInternal     = 500
)

// KnownCode reports whether code is in the protocol's table.
func KnownCode(code int) bool {
	switch code {
	case CodeBadRequest, CodeUnauthorized, CodeForbidden, CodeNotFound, CodeConflict, CodeRateLimited, CodeInternal:
		return true
	}
	return false
}

// Subject is an agent's identity root: agents.<agent>.<owner>.<name>.
func Subject(agent, owner, name string) string {
	return SubjectRoot + "." + agent + "." + owner + "." + name
}

// HeartbeatSubject is the protocol-fixed heartbeat subject of an identity.
func HeartbeatSubject(agent, owner, name string) string {
	return Subject(agent, owner, name) + ".heartbeat"
}

// Envelope is a prompt request (section 5.1). Extra holds every other
// top-level member as it came, so that relaying preserves it (section
// 5.6).
type Envelope struct {
	Prompt      string
	Attachments []json.RawMessage
	Extra       map[string]json.RawMessage
}

// ParseEnvelope applies the discrimination rule of section 5.3: after
// leading whitespace, a "{" means a JSON envelope with a non-empty prompt
// string; anything else is plain UTF-8 text promoted to the prompt. An
// empty payload, bad JSON, a missing or empty prompt, attachments that are
// not an array and text that is not UTF-8 are ErrBadEnvelope.
func ParseEnvelope(payload []byte) (Envelope, error) {
	if len(payload) == 0 {
		return Envelope{}, fmt.Errorf("%w: empty payload", ErrBadEnvelope)
	}
	if !utf8.Valid(payload) {
		return Envelope{}, fmt.Errorf("%w: payload is not UTF-8", ErrBadEnvelope)
	}
	body := bytes.TrimLeft(payload, " \t\r\n")
	if len(body) == 0 || body[0] != '{' {
		return Envelope{Prompt: string(payload)}, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return Envelope{}, fmt.Errorf("%w: %w", ErrBadEnvelope, err)
	}
	var env Envelope
	if raw, ok := obj["prompt"]; !ok || json.Unmarshal(raw, &env.Prompt) != nil {
		return Envelope{}, fmt.Errorf("%w: no prompt string", ErrBadEnvelope)
	}
	if env.Prompt == "" {
		return Envelope{}, fmt.Errorf("%w: empty prompt", ErrBadEnvelope)
	}
	if raw, ok := obj["attachments"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &env.Attachments); err != nil {
			return Envelope{}, fmt.Errorf("%w: attachments is not an array", ErrBadEnvelope)
		}
		for i, a := range env.Attachments {
			if err := checkAttachment(a); err != nil {
				return Envelope{}, fmt.Errorf("%w: attachment %d: %w", ErrBadEnvelope, i, err)
			}
		}
	}
	delete(obj, "prompt")
	delete(obj, "attachments")
	env.Extra = obj
	return env, nil
}

// checkAttachment holds an attachment to section 5.2: an object with a
// string filename and a string content in standard, padded base64 without
// whitespace (Go's decoder would skip line breaks, the protocol forbids
// them).
func checkAttachment(raw json.RawMessage) error {
	var a struct {
		Filename *string `json:"filename"`
		Content  *string `json:"content"`
	}
	if err := json.Unmarshal(raw, &a); err != nil || a.Filename == nil || a.Content == nil {
		return errors.New(`want an object with string "filename" and "content"`)
	}
	if strings.ContainsAny(*a.Content, " \t\r\n") {
		return errors.New("content holds whitespace")
	}
	if _, err := base64.StdEncoding.Strict().DecodeString(*a.Content); err != nil {
		return fmt.Errorf("content is not standard padded base64: %w", err)
	}
	return nil
}

// Encode writes the envelope as JSON, unknown members included.
func (e Envelope) Encode() []byte {
	obj := make(map[string]any, len(e.Extra)+2)
	for k, v := range e.Extra {
		obj[k] = v
	}
	obj["prompt"] = e.Prompt
	if len(e.Attachments) > 0 {
		obj["attachments"] = e.Attachments
	}
	return encode(obj)
}

// Chunk is one non-terminating message of a response stream (section
// 6.2); Data is kept raw, for its shape depends on Type.
type Chunk struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// ResponseText is the text of a response chunk's data: the string itself,
// or the text member of the object form (section 6.3).
func ResponseText(data json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(data, &s) == nil {
		return s, nil
	}
	var obj struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(data, &obj); err != nil || obj.Text == nil {
		return "", fmt.Errorf("response data is neither a string nor an object with a text string")
	}
	return *obj.Text, nil
}

// Heartbeat is the payload of a heartbeat (section 8.3).
type Heartbeat struct {
	Agent      string `json:"agent"`
	Owner      string `json:"owner"`
	Session    string `json:"session,omitempty"`
	InstanceID string `json:"instance_id"`
	TS         string `json:"ts"`
	IntervalS  int    `json:"interval_s"`
}

// ErrorBody is the optional JSON body of an error (section 9.1): error is
// the stable code, message the detail; Extra members are written beside
// them.
type ErrorBody struct {
	Error   string
	Message string
	Extra   map[string]any
}

// Encode writes the body as one JSON object.
func (b ErrorBody) Encode() []byte {
	obj := make(map[string]any, len(b.Extra)+2)
	for k, v := range b.Extra {
		obj[k] = v
	}
	obj["error"] = b.Error
	if b.Message != "" {
		obj["message"] = b.Message
	}
	return encode(obj)
}

// ParseSize reads a max_payload value (section 2.1): a positive integer
// followed by B, KB, MB or GB (powers of 1024).
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"B", 1}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			n, err := strconv.ParseInt(num, 10, 64)
			if err != nil || n <= 0 || n > (1<<62)/u.mult {
				break
			}
			return n * u.mult, nil
		}
	}
	return 0, fmt.Errorf("max_payload %q is not a positive integer followed by B, KB, MB or GB", s)
}

// FormatSize writes n bytes as a max_payload value, in whole KB when n is
// a multiple of 1024 bytes and in B otherwise, so that it never
// overstates.
func FormatSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KB"
	}
	return strconv.FormatInt(n, 10) + "B"
}

// encode marshals v without HTML escaping: prompts and answers are read by
// models and people.
func encode(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("agentproto: encoding %T: %v", v, err))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
