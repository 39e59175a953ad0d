package handlers

import (
	"fmt"
	"strings"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers/jsontext"
	"github.com/agentgate/agentgate/handlers/normalize"
	"github.com/agentgate/agentgate/schemas"
)

// Tool calls (contract section 9): a blueprint with reply "tool_or_answer"
// accepts {"tool": "<name>", "args": {...}} or {"answer": "<text>"} and
// nothing else (tier 1); a tool call's args must match that tool's input
// schema (tier 2), with violation paths under $.args.

// ReplyCheck is the pipeline for a tool_or_answer blueprint. Of several
// candidate documents it takes the first that passes both tiers, else the
// first. The schema id returned is the called tool's schema; for an answer,
// or an output that is neither a known tool call nor an answer, it is the
// reply's own, urn:agentgate:inline:<agent>.
func ReplyCheck(payload []byte, bp *schemas.Blueprint, opts CheckOptions) (Verdict, string) {
	cands, bad := jsontext.ExtractAll(payload, opts.MaxDepth)
	if bad != nil {
		return Verdict{Normalizations: []contract.Normalization{}, Violations: []contract.Violation{*bad}}, schemas.InlinePrefix + bp.Name
	}
	var first Verdict
	var firstID string
	for i, c := range cands {
		v, id := checkReply(c, bp, opts)
		applyLosses(&v, c.Losses, len(c.Normalizations), opts.LossyRepair == schemas.LossyRepairAccept)
		v.Valid = len(v.Violations) == 0
		if v.Valid {
			return v, id
		}
		if i == 0 {
			first, firstID = v, id
		}
	}
	return first, firstID
}

func checkReply(c jsontext.Candidate, bp *schemas.Blueprint, opts CheckOptions) (Verdict, string) {
	v := Verdict{Data: c.Doc, Normalizations: append([]contract.Normalization{}, c.Normalizations...)}
	replyID := schemas.InlinePrefix + bp.Name
	obj, ok := c.Doc.(map[string]any)
	shape := contract.Violation{Path: "$", Keyword: "oneOf", HasReceived: false,
		Message: `expected {"tool": "<name>", "args": {...}} or {"answer": "<text>"} and nothing else`}
	switch {
	case !ok:
		v.Violations = []contract.Violation{shape}
	case len(obj) == 1 && obj["answer"] != nil:
		if _, isText := obj["answer"].(string); !isText {
			v.Violations = []contract.Violation{{Path: "$.answer", Keyword: "type", Expected: "string",
				Received: obj["answer"], HasReceived: true, Message: "the answer must be a string"}}
		}
	case len(obj) == 2 && obj["tool"] != nil && obj["args"] != nil:
		return checkToolCall(v, obj, bp, opts)
	default:
		v.Violations = []contract.Violation{shape}
	}
	v.Valid = len(v.Violations) == 0
	return v, replyID
}

func checkToolCall(v Verdict, obj map[string]any, bp *schemas.Blueprint, opts CheckOptions) (Verdict, string) {
	name, _ := obj["tool"].(string)
	tool, known := bp.Tools[name]
	if !known {
		names := bp.ToolNames()
		expected := make([]any, len(names))
		for i, n := range names {
			expected[i] = n
		}
		v.Violations = []contract.Violation{{Path: "$.tool", Keyword: "enum", Expected: expected,
			Received: obj["tool"], HasReceived: true,
			Message: "tool must be one of " + quoteList(names)}}
		return v, schemas.InlinePrefix + bp.Name
	}
	args, norms := normalize.Normalize(obj["args"], tool.Doc, tool, normalize.Options{ExtraFields: opts.ExtraFields, Coerce: opts.Coerce})
	for _, n := range norms {
		n.Path = underArgs(n.Path)
		v.Normalizations = append(v.Normalizations, n)
	}
	for _, viol := range tool.Validate(args) {
		viol.Path = underArgs(viol.Path)
		v.Violations = append(v.Violations, viol)
	}
	v.Data = map[string]any{"tool": name, "args": args}
	v.Valid = len(v.Violations) == 0
	return v, tool.ID
}

// underArgs moves a path of the args document under $.args.
func underArgs(path string) string {
	return "$.args" + strings.TrimPrefix(path, "$")
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// ReplyModelSchema is the schema of what a tool_or_answer blueprint
// accepts (one branch per tool call, one for the answer) as a model should
// see it: each tool's input schema as Schema.ForModel shows it, under $defs.tool_<name>, with
// its own local references moved there.
func ReplyModelSchema(bp *schemas.Blueprint) any {
	defs := map[string]any{}
	var branches []any
	for _, name := range bp.ToolNames() {
		key := "tool_" + name
		defs[key] = rebaseRefs(bp.Tools[name].ForModel(), "#/$defs/"+key)
		branches = append(branches, map[string]any{
			"type": "object", "additionalProperties": false, "required": []any{"tool", "args"},
			"properties": map[string]any{"tool": map[string]any{"const": name}, "args": map[string]any{"$ref": "#/$defs/" + key}},
		})
	}
	branches = append(branches, map[string]any{
		"type": "object", "additionalProperties": false, "required": []any{"answer"},
		"properties": map[string]any{"answer": map[string]any{"type": "string"}},
	})
	return map[string]any{"oneOf": branches, "$defs": defs}
}

// rebaseRefs copies v with every local $ref ("#", "#/...") moved under
// base.
func rebaseRefs(v any, base string) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, c := range t {
			if ref, ok := c.(string); ok && k == "$ref" && (ref == "#" || strings.HasPrefix(ref, "#/")) {
				out[k] = base + strings.TrimPrefix(ref, "#")
				continue
			}
			if k == "enum" || k == "const" || k == "default" || k == "examples" {
				out[k] = c
				continue
			}
			out[k] = rebaseRefs(c, base)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, c := range t {
			out[i] = rebaseRefs(c, base)
		}
		return out
	}
	return v
}
