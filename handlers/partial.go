package handlers

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/schemas"
)

// Bounds of a partial re-ask: past them, the retry asks for the whole
// document again.
const (
	// maxPartialMembers bounds the members one partial re-ask asks for.
	maxPartialMembers = 32
	// maxPartialDocument bounds the previous document a retry request
	// carries (compact JSON bytes), keeping outcomes small.
	maxPartialDocument = 64 << 10
)

// notAllowedSchema is what a partial re-ask shows for a member the schema
// does not allow.
const notAllowedSchema = "false (this member is not allowed: set it to null to remove it)"

// partialAsk builds the partial re-ask of a failed verdict against s: the
// members that failed (each violation's path up to its first array index,
// as a merge patch can replace an array but not one item), their
// sub-schemas as the model should see them, and the normalized document.
// Nil when a partial re-ask cannot say it all: a violation at the root, a
// document that is not an object, a member whose sub-schema is not plain
// properties, or past the bounds.
func partialAsk(s *schemas.Schema, v Verdict) (*PartialAsk, *contract.PartialRetry) {
	if _, ok := v.Data.(map[string]any); !ok || s == nil || len(v.Violations) == 0 {
		return nil, nil
	}
	var paths []string
	notAllowed := map[string]bool{}
	for _, viol := range v.Violations {
		p := memberPath(viol.Path)
		if p == "$" {
			return nil, nil
		}
		paths = append(paths, p)
		if viol.Keyword == "additionalProperties" || viol.Keyword == "unevaluatedProperties" {
			notAllowed[p] = true
		}
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	// A member inside another one asked for is asked for with it.
	paths = slices.DeleteFunc(paths, func(p string) bool {
		return slices.ContainsFunc(paths, func(q string) bool { return q != p && within(p, q) })
	})
	if len(paths) > maxPartialMembers {
		return nil, nil
	}
	doc, err := json.Marshal(v.Data)
	if err != nil || len(doc) > maxPartialDocument {
		return nil, nil
	}
	ask := &PartialAsk{Document: v.Data}
	for _, p := range paths {
		m := schemas.RetryMember{Path: p}
		switch sub := s.SubSchemaForModel(p); {
		case sub != nil:
			m.Schema = schemas.ModelJSON(sub, "")
		case notAllowed[p]:
			m.Schema = notAllowedSchema
		default:
			return nil, nil
		}
		ask.Members = append(ask.Members, m)
	}
	return ask, &contract.PartialRetry{Paths: paths, Document: v.Data}
}

// memberPath is path up to its first array index: "$.a.b[2].c" is
// "$.a.b".
func memberPath(path string) string {
	for i := 0; i < len(path); i++ {
		switch path[i] {
		case '[':
			if strings.HasPrefix(path[i:], "['") {
				end := strings.Index(path[i:], "']")
				if end < 0 {
					return path
				}
				i += end + 1
				continue
			}
			return path[:i]
		}
	}
	return path
}

// within reports whether path p lies inside member path q.
func within(p, q string) bool {
	return strings.HasPrefix(p, q) && len(p) > len(q) && (p[len(q)] == '.' || p[len(q)] == '[')
}

// partialBase returns the document the answer of attempt merges into: the
// one the run's recorded retry request (of attempt-1) asked a partial
// re-ask on. Nil when the attempt answers no partial re-ask.
func partialBase(bp *schemas.Blueprint, st *contract.RunState, attempt int) any {
	if bp == nil || bp.Retry != schemas.RetryPartial || st == nil ||
		st.Status != contract.RunRetryRequested || st.Attempts != attempt-1 || len(st.Outcome) == 0 {
		return nil
	}
	var ev struct {
		EventType string                 `json:"event_type"`
		Partial   *contract.PartialRetry `json:"partial"`
	}
	dec := json.NewDecoder(bytes.NewReader(st.Outcome))
	dec.UseNumber()
	if dec.Decode(&ev) != nil || ev.EventType != contract.EventRetryRequested || ev.Partial == nil {
		return nil
	}
	return ev.Partial.Document
}
