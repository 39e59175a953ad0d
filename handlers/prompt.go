package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/schemas"
)

// maxGot bounds the received value a violation line quotes, in characters.
const maxGot = 80

// RetryRequest is what a retry prompt is built from.
type RetryRequest struct {
	Agent      string
	Attempt    int // the attempt that failed
	Violations []contract.Violation
	// Schema is the schema as the model should see it (Schema.ForModel).
	Schema any
	// Partial, when set, makes the prompt a partial re-ask.
	Partial *PartialAsk
	// Template is the blueprint's retry_template; nil for the default text.
	Template *template.Template
}

// PartialAsk is what a partial re-ask asks for: the failing members with
// their sub-schemas, and the previous answer as context.
type PartialAsk struct {
	Members  []schemas.RetryMember
	Document any // the previous attempt's normalized document
}

// BuildRetryPrompt is the retry_prompt of a retry request (contract
// section 3.2): the blueprint's retry_template executed with
// schemas.RetryData, or else the default text, full or partial. A template
// that fails at run time (it was tried at load, so only on data it could
// not foresee) gives the default text.
func BuildRetryPrompt(r RetryRequest) string {
	data := retryData(r)
	if r.Template != nil {
		var b strings.Builder
		if err := r.Template.Execute(&b, data); err == nil {
			return b.String()
		}
	}
	var b strings.Builder
	if data.Partial {
		b.WriteString("<output-validation-error>\nSome members of your output did not match the required schema.\n\n## Validation Errors\n")
	} else {
		b.WriteString("<output-validation-error>\nYour output did not match the required schema.\n\n## Validation Errors\n")
	}
	for _, v := range data.Violations {
		b.WriteString("- ")
		b.WriteString(v.Line)
		b.WriteByte('\n')
	}
	if !data.Partial {
		b.WriteString("\n## Required Schema\n```json\n")
		b.WriteString(data.Schema)
		b.WriteString("\n```\n\nPlease provide output matching the schema exactly.\n</output-validation-error>")
		return b.String()
	}
	b.WriteString("\n## Members to correct\n")
	for _, m := range data.Members {
		b.WriteString("- ")
		b.WriteString(m.Path)
		b.WriteString(" must match: ")
		b.WriteString(m.Schema)
		b.WriteByte('\n')
	}
	b.WriteString("\n## Your previous output\n```json\n")
	b.WriteString(data.Document)
	b.WriteString("\n```\n\nReply with a JSON object that holds only the corrected members, each at its place in the document, for example ")
	b.WriteString(patchExample(r.Partial.Members))
	b.WriteString(". Members you leave out keep their previous value; a member set to null is removed. You may instead send the whole corrected document.\n</output-validation-error>")
	return b.String()
}

// RetryPrompt is the default full retry prompt for violations against a
// schema given as JSON (shown as it is).
func RetryPrompt(violations []contract.Violation, schema json.RawMessage) string {
	var s any
	if err := json.Unmarshal(schema, &s); err != nil {
		s = string(schema)
	}
	return BuildRetryPrompt(RetryRequest{Violations: violations, Schema: s})
}

func retryData(r RetryRequest) schemas.RetryData {
	d := schemas.RetryData{
		Agent: r.Agent, Attempt: r.Attempt, NextAttempt: r.Attempt + 1,
		Schema: schemas.ModelJSON(r.Schema, "  "),
	}
	for _, v := range r.Violations {
		got, expected := gotExpected(v)
		d.Violations = append(d.Violations, schemas.RetryViolation{
			Path: v.Path, Keyword: v.Keyword, Message: v.Message, Got: got, Expected: expected, Line: ViolationLine(v),
		})
	}
	if r.Partial != nil {
		d.Partial = true
		d.Members = r.Partial.Members
		d.Document = indentValue(r.Partial.Document)
	}
	return d
}

// ViolationLine is a violation as one line of text: what was received
// next to what is expected where both are known
// (`$.priority: got "critical", expected one of "low", "high"`), else the
// message, with what was received when known.
func ViolationLine(v contract.Violation) string {
	got, expected := gotExpected(v)
	switch {
	case got != "" && expected != "":
		return v.Path + ": got " + got + ", expected " + expected
	case got != "" && !strings.Contains(v.Message, "got "):
		return v.Path + ": " + v.Message + " (got " + got + ")"
	}
	return v.Path + ": " + v.Message
}

// gotExpected renders what a violation received (compact JSON cut to
// about maxGot characters; "" when absent) and what its keyword expects
// in words ("" when the message says it better).
func gotExpected(v contract.Violation) (got, expected string) {
	if v.HasReceived {
		got = cut(compact(v.Received), maxGot)
	}
	switch v.Keyword {
	case "enum":
		if vals, ok := v.Expected.([]any); ok && len(vals) > 0 {
			parts := make([]string, len(vals))
			for i, x := range vals {
				parts[i] = compact(x)
			}
			expected = "one of " + strings.Join(parts, ", ")
		}
	case "const":
		if v.HasExpected || v.Expected != nil {
			expected = compact(v.Expected)
		}
	case "type":
		switch t := v.Expected.(type) {
		case string:
			expected = t
		case []string:
			expected = strings.Join(t, " or ")
		case []any:
			parts := make([]string, len(t))
			for i, x := range t {
				parts[i] = fmt.Sprint(x)
			}
			expected = strings.Join(parts, " or ")
		}
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
		"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "pattern", "format":
		for _, prefix := range []string{"value must be ", "string must ", "array must ", "object must "} {
			if rest, ok := strings.CutPrefix(v.Message, prefix); ok {
				expected = rest
				if prefix == "string must " {
					expected = "a string that must " + rest
				}
				break
			}
		}
		if expected == "" {
			expected = v.Message
		}
	}
	return got, expected
}

// patchExample is a merge patch skeleton of the members asked for.
func patchExample(members []schemas.RetryMember) string {
	root := map[string]any{}
	for _, m := range members {
		node := root
		names := schemas.MemberNames(m.Path)
		for i, name := range names {
			if i == len(names)-1 {
				node[name] = "..."
				break
			}
			next, _ := node[name].(map[string]any)
			if next == nil {
				next = map[string]any{}
				node[name] = next
			}
			node = next
		}
	}
	return compact(root)
}

// AgentPrompt is the system prompt of GET /v1/agents/{name}/prompt: the
// blueprint's prompt_template executed with schemas.PromptData, or else its
// system_prompt with the output schema, as the model should see it,
// appended as the last section; the bare system_prompt for free-text
// output.
func AgentPrompt(bp *schemas.Blueprint) string {
	schema := modelSchema(bp)
	data := schemas.PromptData{Agent: bp.Name, Description: bp.Description, SystemPrompt: bp.SystemPrompt}
	if schema != nil {
		data.Schema = schemas.ModelJSON(schema, "  ")
	}
	if t, _ := bp.Templates(); t != nil {
		var b strings.Builder
		if err := t.Execute(&b, data); err == nil {
			return b.String()
		}
	}
	if schema == nil {
		return bp.SystemPrompt
	}
	return systemPrompt(bp.SystemPrompt, data.Schema)
}

// modelSchema is the schema a blueprint's prompts show, as a model should
// see it: the reply schema of a tool_or_answer blueprint, else its output
// schema (Schema.ForModel: a JSON Type Definition as its JSON Schema
// translation); nil for a free-text blueprint.
func modelSchema(bp *schemas.Blueprint) any {
	switch {
	case bp.Reply == schemas.ReplyToolOrAnswer:
		return ReplyModelSchema(bp)
	case bp.OutputSchema != nil:
		return bp.OutputSchema.ForModel()
	}
	return nil
}

// WithOutputFormat is prompt with the blueprint's output-format section
// appended: the section GET /v1/agents/{name}/prompt ends with, the schema
// as the model should see it (contract section 10.3). A free-text
// blueprint's prompt is returned unchanged.
func WithOutputFormat(prompt string, bp *schemas.Blueprint) string {
	schema := modelSchema(bp)
	if schema == nil {
		return prompt
	}
	return systemPrompt(prompt, schemas.ModelJSON(schema, "  "))
}

func systemPrompt(prompt, schema string) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(prompt, "\n"))
	if b.Len() > 0 {
		b.WriteString("\n\n")
	}
	b.WriteString("## Required Output Format\nRespond with a single JSON document that matches this JSON Schema, and nothing else.\n\n```json\n")
	b.WriteString(schema)
	b.WriteString("\n```\n")
	return b.String()
}

// indentValue is v as indented JSON, HTML characters left as they are.
func indentValue(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// compact is v as compact JSON, HTML characters left as they are.
func compact(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// cut shortens s to about n characters, on a rune boundary, marking the cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}
