package handlers

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/agentgate/agentgate/contract"
)

// RetryPrompt is the text an executor sends back to the model when its
// output failed validation (contract section 3.2): the violations, then the
// schema the output must match.
func RetryPrompt(violations []contract.Violation, schema json.RawMessage) string {
	var b strings.Builder
	b.WriteString("<output-validation-error>\nYour output did not match the required schema.\n\n## Validation Errors\n")
	for _, v := range violations {
		b.WriteString("- ")
		b.WriteString(ViolationLine(v))
		b.WriteByte('\n')
	}
	b.WriteString("\n## Required Schema\n```json\n")
	b.WriteString(indentJSON(schema))
	b.WriteString("\n```\n\nPlease provide output matching the schema exactly.\n</output-validation-error>")
	return b.String()
}

// ViolationLine is a violation as one line of text: "$.path: message".
func ViolationLine(v contract.Violation) string { return v.Path + ": " + v.Message }

// SystemPrompt is a blueprint's system prompt with the output schema
// appended as the last section (GET /v1/agents/{name}/prompt).
func SystemPrompt(prompt string, schema json.RawMessage) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(prompt, "\n"))
	if b.Len() > 0 {
		b.WriteString("\n\n")
	}
	b.WriteString("## Required Output Format\nRespond with a single JSON document that matches this JSON Schema, and nothing else.\n\n```json\n")
	b.WriteString(indentJSON(schema))
	b.WriteString("\n```\n")
	return b.String()
}

func indentJSON(raw json.RawMessage) string {
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSpace(raw), "", "  "); err != nil {
		return strings.TrimSpace(string(raw))
	}
	return out.String()
}
