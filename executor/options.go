package executor

import "github.com/agentgate/agentgate/contract"

// SubmitOption tunes one Submit.
type SubmitOption interface {
	applySubmit(*submitOptions)
}

// RunOption tunes one Run.
type RunOption interface {
	applyRun(*runOptions)
}

// Option tunes both Submit and Run.
type Option interface {
	SubmitOption
	RunOption
}

type submitOptions struct {
	sessionID string
	schemaID  string
	refusal   bool
}

type runOptions struct {
	submit    submitOptions
	input     string
	hasInput  bool
	onOutcome func(*Outcome)
}

// WithSessionID sets the Session-Id header, which the gateway passes
// through untouched into the outcomes (default: none).
func WithSessionID(id string) Option { return sessionOption(id) }

type sessionOption string

func (o sessionOption) applySubmit(s *submitOptions) { s.sessionID = string(o) }
func (o sessionOption) applyRun(r *runOptions)       { r.submit.sessionID = string(o) }

// WithSchemaID sets the Schema-Id header: the schema to validate against,
// honoured by the gateway only for agents whose blueprint has no
// output_schema (default: none).
func WithSchemaID(id string) Option { return schemaOption(id) }

type schemaOption string

func (o schemaOption) applySubmit(s *submitOptions) { s.schemaID = string(o) }
func (o schemaOption) applyRun(r *runOptions)       { r.submit.schemaID = string(o) }

// AsRefusal marks the output as the model's refusal text (Output-Kind:
// refusal): its outcome is a refusal, never a retry request.
func AsRefusal() SubmitOption { return refusalOption{} }

type refusalOption struct{}

func (refusalOption) applySubmit(s *submitOptions) { s.refusal = true }

// WithInput is the conversation's first user message, after the system
// prompt: the task itself (a diff to review, files to analyze). Without it
// the model gets the system prompt alone.
func WithInput(text string) RunOption { return inputOption(text) }

type inputOption string

func (o inputOption) applyRun(r *runOptions) { r.input, r.hasInput = string(o), true }

// WithOutcomeHook calls fn with every outcome Run receives, retry requests
// included, before Run acts on it: for logging and metrics. fn runs on
// Run's goroutine and must not block for long.
func WithOutcomeHook(fn func(*Outcome)) RunOption { return hookOption(fn) }

type hookOption func(*Outcome)

func (o hookOption) applyRun(r *runOptions) { r.onOutcome = o }

// headers are the contract headers (section 2) of a raw output.
func (s submitOptions) headers(runID string, attempt int) map[string]string {
	h := map[string]string{contract.HeaderRunID: runID}
	if attempt > 0 {
		h[contract.HeaderAttempt] = itoa(attempt)
	}
	if s.sessionID != "" {
		h[contract.HeaderSessionID] = s.sessionID
	}
	if s.schemaID != "" {
		h[contract.HeaderSchemaID] = s.schemaID
	}
	if s.refusal {
		h[contract.HeaderOutputKind] = contract.OutputKindRefusal
	}
	return h
}
