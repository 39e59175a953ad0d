package schemas

import (
	"fmt"
	"io"
	"text/template"
)

// Values of Blueprint.Retry.
const (
	// RetryFull asks the model for the whole document again (the default).
	RetryFull = "full"
	// RetryPartial asks only for the failing members; the answer is merged
	// into the previous attempt's normalized document (RFC 7386).
	RetryPartial = "partial"
)

// PromptData is what a blueprint's prompt_template is executed with, for
// the system prompt of GET /v1/agents/{name}/prompt.
type PromptData struct {
	Agent        string // the agent's name
	Description  string // the blueprint's description
	SystemPrompt string // the blueprint's system_prompt
	// Schema is the output schema as the model should see it (x- keywords,
	// $id and $schema removed, every $ref bundled), indented JSON; "" for
	// an agent with free-text output.
	Schema string
}

// RetryData is what a blueprint's retry_template is executed with, for the
// retry_prompt of a retry request.
type RetryData struct {
	Agent       string
	Attempt     int // the attempt that failed
	NextAttempt int
	// Violations are the reasons, one line each.
	Violations []RetryViolation
	// Schema is the schema as the model should see it, indented JSON.
	Schema string
	// Partial is set for a partial re-ask: Members then lists the failing
	// members and Document is the rest of the previous answer, as context.
	Partial  bool
	Members  []RetryMember
	Document string // the previous attempt's normalized document, indented JSON
}

// RetryViolation is one violation as a retry prompt shows it.
type RetryViolation struct {
	Path     string // JSONPath, "$.priority"
	Keyword  string // the JSON Schema keyword that failed
	Message  string // the validator's message
	Got      string // what was received, as JSON cut to about 80 characters; "" when absent
	Expected string // what the schema expects, in words
	Line     string // the whole line as the default prompt shows it
}

// RetryMember is one member a partial re-ask asks for again.
type RetryMember struct {
	Path   string // JSONPath of the member, "$.priority"
	Schema string // its sub-schema as the model should see it, compact JSON
}

// parseTemplate parses a blueprint's prompt text and executes it once on
// sample data, so that a template that does not parse, or names a field
// that does not exist, is a start-up error and never the first request's.
func parseTemplate(name, text string, sample any) (*template.Template, error) {
	t, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadBlueprint, name, err)
	}
	if err := t.Execute(io.Discard, sample); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadBlueprint, name, err)
	}
	return t, nil
}

// samplePrompt and sampleRetry exercise every field of the template data.
var (
	samplePrompt = PromptData{Agent: "a", Description: "d", SystemPrompt: "p", Schema: "{}"}
	sampleRetry  = RetryData{
		Agent: "a", Attempt: 1, NextAttempt: 2, Schema: "{}", Partial: true, Document: "{}",
		Violations: []RetryViolation{{Path: "$.a", Keyword: "type", Message: "m", Got: `"x"`, Expected: "integer", Line: "$.a: got \"x\", expected integer"}},
		Members:    []RetryMember{{Path: "$.a", Schema: `{"type":"integer"}`}},
	}
)
