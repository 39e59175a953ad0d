package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/schemas"
)

// Redactor masks sensitive members in the messages of one registry's
// agents. Safe for concurrent use.
type Redactor struct {
	reg Registry
}

// Registry is what a Redactor reads of the registry in force: a static
// *schemas.Registry or the registry service's live view.
type Registry interface {
	Blueprint(name string) (*schemas.Blueprint, bool)
	Schema(id string) (*schemas.Schema, bool)
}

// New returns a Redactor for reg.
func New(reg Registry) *Redactor { return &Redactor{reg: reg} }

// hasSensitiveKey memoizes, per schema, whether it marks anything
// sensitive (in its own document or one it refers to).
type hasSensitiveKey struct{}

// marks reports whether s, or a schema it refers to, marks a member
// sensitive.
func marks(s *schemas.Schema) bool {
	if v, ok := s.Memo().Load(hasSensitiveKey{}); ok {
		return v.(bool)
	}
	found := false
	seen := map[uintptr]bool{}
	var walk func(x any, depth int)
	walk = func(x any, depth int) {
		if found || depth > maxDepth {
			return
		}
		switch n := x.(type) {
		case map[string]any:
			if b, _ := n[Keyword].(bool); b {
				found = true
				return
			}
			if _, ok := n["$ref"]; ok {
				if t := s.Resolve(n); t != nil {
					if id := mapPointer(t); !seen[id] {
						seen[id] = true
						walk(t, depth+1)
					}
				}
			}
			for k, c := range n {
				if k != "enum" && k != "const" && k != "default" && k != "examples" {
					walk(c, depth+1)
				}
			}
		case []any:
			for _, c := range n {
				walk(c, depth+1)
			}
		}
	}
	walk(s.Doc, 0)
	s.Memo().Store(hasSensitiveKey{}, found)
	return found
}

// viewFor is the view of the result documents of agent (for an agent
// without an output schema, of the schema the outcome names); nil when
// nothing there is sensitive.
func (r *Redactor) viewFor(agent, schemaID string) *view {
	bp, ok := r.reg.Blueprint(agent)
	switch {
	case ok && bp.Reply == schemas.ReplyToolOrAnswer:
		// {"tool": name, "args": {...}}: args follow the tool's schema;
		// which tool is not looked at, so any tool's marks apply.
		var args []any
		var resolver *schemas.Schema
		for _, name := range bp.ToolNames() {
			if t := bp.Tools[name]; t != nil && marks(t) {
				args = append(args, t.Doc)
				resolver = t
			}
		}
		if resolver == nil {
			return nil
		}
		root := map[string]any{"properties": map[string]any{"args": map[string]any{"anyOf": args}}}
		return &view{resolver: resolver, roots: []map[string]any{root}}
	}
	// The schema the outcome names comes first: the blueprint may have
	// moved to another version since. Either one's marks mask, so that a
	// change in the registry never unmasks an older outcome.
	if s, ok := r.reg.Schema(schemaID); ok && marks(s) {
		return &view{resolver: s, roots: []map[string]any{s.Doc}}
	}
	if ok && bp.OutputSchema != nil && marks(bp.OutputSchema) {
		return &view{resolver: bp.OutputSchema, roots: []map[string]any{bp.OutputSchema.Doc}}
	}
	return nil
}

// Outcome returns an outcome message (any of contract section 3) with its
// sensitive members masked: in result_data, in each violation's received
// value and message (and the dead letter's validation_errors lines), in the
// from and to of coerce normalizations; the retry prompt and the raw output
// (raw_output, and the dead letter's raw payload) are replaced by a note,
// since they may hold the values in any form. data is returned as it is
// when the agent's schemas mark nothing sensitive.
func (r *Redactor) Outcome(data []byte) ([]byte, error) {
	var head struct {
		AgentID  string `json:"agent_id"`
		SchemaID string `json:"schema_id"`
		Error    struct {
			SchemaID string `json:"schema_id"`
		} `json:"error"`
		Validation struct {
			SchemaID string `json:"schema_id"`
		} `json:"validation"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("redact: outcome: %w", err)
	}
	v := r.viewFor(head.AgentID, firstOf(head.SchemaID, head.Error.SchemaID, head.Validation.SchemaID))
	if v == nil {
		return data, nil
	}
	var msg map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&msg); err != nil {
		return nil, fmt.Errorf("redact: outcome: %w", err)
	}
	if d, ok := msg["result_data"]; ok && d != nil {
		msg["result_data"] = v.doc(d)
	}
	if n, ok := msg["normalizations"].([]any); ok {
		for _, x := range n {
			if m, ok := x.(map[string]any); ok && m["op"] == contract.OpCoerce && v.coercionShows(m) {
				maskMembers(m, "from", "to", "detail")
			}
		}
	}
	if p, ok := msg["partial"].(map[string]any); ok && p["document"] != nil {
		// A partial re-ask carries the previous attempt's document.
		p["document"] = v.doc(p["document"])
	}
	if _, ok := msg["retry_prompt"]; ok {
		msg["retry_prompt"] = Mask + " (the retry prompt may hold sensitive values)"
	}
	for _, key := range []string{"error", "validation"} {
		if e, ok := msg[key].(map[string]any); ok {
			v.validationError(e)
		}
	}
	if raw, ok := msg["raw"].(map[string]any); ok {
		for _, k := range []string{"payload", "payload_base64"} {
			if _, ok := raw[k]; ok {
				raw[k] = Mask
			}
		}
	}
	return json.Marshal(msg)
}

// validationError masks a validation error (section 4), or a dead letter's
// error with its validation_errors lines ("<path>: <message>").
func (v *view) validationError(e map[string]any) {
	if _, ok := e["raw_output"]; ok {
		e["raw_output"] = Mask
	}
	if list, ok := e["violations"].([]any); ok {
		for _, x := range list {
			m, ok := x.(map[string]any)
			if !ok {
				continue
			}
			path := str(m["path"])
			hidden := v.path(path)
			if received, ok := m["received"]; ok {
				// A value at a plain path may still hold sensitive
				// members (a wrong type at the root, say).
				var changed bool
				m["received"], changed = v.valueAt(path, received)
				hidden = hidden || changed
			}
			if hidden {
				m["message"] = Mask
			}
		}
	}
	if lines, ok := e["validation_errors"].([]any); ok {
		for i, x := range lines {
			path, _, _ := strings.Cut(str(x), ": ")
			if v.path(path) {
				lines[i] = path + ": " + Mask
			}
		}
	}
}

// coercionShows reports whether a coerce normalization's from, to or
// detail may show a sensitive value: its path is sensitive, or one of the
// values (JSON text, perhaps cut short) holds a sensitive member or cannot
// be read whole.
func (v *view) coercionShows(m map[string]any) bool {
	path := str(m["path"])
	if v.path(path) {
		return true
	}
	for _, k := range []string{"from", "to"} {
		text, ok := m[k].(string)
		if !ok {
			continue
		}
		var val any
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		if dec.Decode(&val) != nil || dec.More() {
			return true
		}
		if _, changed := v.valueAt(path, val); changed {
			return true
		}
	}
	return false
}

// RunState returns the run state with its latest outcome masked as Outcome
// does.
func (r *Redactor) RunState(st *contract.RunState) (*contract.RunState, error) {
	if st == nil || len(st.Outcome) == 0 {
		return st, nil
	}
	out, err := r.Outcome(st.Outcome)
	if err != nil {
		return nil, err
	}
	c := *st
	c.Outcome = out
	return &c, nil
}

func maskMembers(m map[string]any, keys ...string) {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			m[k] = Mask
		}
	}
}

func str(x any) string { s, _ := x.(string); return s }

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func mapPointer(m map[string]any) uintptr { return reflect.ValueOf(m).Pointer() }
