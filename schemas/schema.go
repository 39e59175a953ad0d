package schemas

import (
	"encoding/json"
	"net/url"
	"strings"
	"sync"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/internal/jsonx"
	"github.com/agentgate/agentgate/jtd"
	"github.com/agentgate/agentgate/rules"
	"github.com/agentgate/agentgate/schemas/validator"
)

// Draft names, as found in Schema.Draft.
const (
	Draft07   = "draft-07"
	Draft2020 = "2020-12"
)

// InlinePrefix starts the id of a schema given inline in a blueprint:
// "urn:agentgate:inline:<agent>".
const InlinePrefix = "urn:agentgate:inline:"

// maxRefHops bounds the $ref chains Resolve follows.
const maxRefHops = 32

// Schema is one compiled schema.
type Schema struct {
	ID          string          // $id, or "urn:agentgate:inline:<agent>" for an inline blueprint schema
	DeclaredID  string          // an inline schema's own root $id, "" when it declares none (and for file schemas)
	Version     string          // semver from the last path segment of $id ("" for inline)
	Title       string          // "title", "" when absent
	Description string          // "description", "" when absent
	Draft       string          // Draft07, Draft2020 or DraftJTD
	Source      string          // file path it came from, or "inline:<agent>"
	Raw         json.RawMessage // the schema document as loaded (for DraftJTD, the JTD document)
	Doc         map[string]any  // decoded document (encoding/json, UseNumber), for walking by the normalizer; nil for the boolean schemas true and false; for DraftJTD its JSON Schema translation
	// Rules are the schema's business rules ("x-rules"), checked after the
	// schema on the normalized document; nil for none.
	Rules *rules.Set

	compiled *validator.Schema
	jtd      *jtd.Schema // for DraftJTD: validation follows RFC 8927, not compiled
	reg      *Registry
	memo     sync.Map
}

// Memo is a cache for what other packages derive from this schema's
// immutable document (the normalizer's view of its object nodes, say), so
// that it is computed once rather than per output. Keys are the deriving
// package's own types; values must never be modified once stored.
func (s *Schema) Memo() *sync.Map { return &s.memo }

// Validate validates an instance decoded with encoding/json and UseNumber
// (numbers are json.Number, objects map[string]any, arrays []any) and
// returns the violations, sorted with contract.SortViolations; nil when the
// instance is valid. Safe for concurrent use.
//
// A Schema that did not come from a Registry validates nothing: it returns
// one violation at $ saying so.
func (s *Schema) Validate(doc any) []contract.Violation {
	if s != nil && s.jtd != nil {
		return s.jtd.Violations(doc)
	}
	if s == nil || s.compiled == nil {
		return []contract.Violation{{Path: "$", Keyword: "$schema", Message: "schema is not compiled"}}
	}
	return s.compiled.Validate(doc)
}

// Resolve follows $ref from a schema node (and chains of them, at most 32
// hops) and returns the target node; it returns node itself when node has
// no $ref, and nil when the reference cannot be resolved within the
// registry or the chain is too long. References may be local JSON pointers
// ("#/$defs/x", "#/definitions/x"), anchors ("#name"), absolute registry ids
// ("https://.../common/1.0.0", optionally with "#/pointer"), or relative to
// the id of the schema the node belongs to. Nodes found through Resolve in
// another schema's Doc resolve their own refs against that schema.
// Safe for concurrent use.
func (s *Schema) Resolve(node map[string]any) map[string]any {
	if s == nil || node == nil {
		return nil
	}
	owner := s
	if o := s.reg.ownerOf(node); o != nil {
		owner = o
	}
	cur := node
	for range maxRefHops {
		ref, ok := cur["$ref"].(string)
		if !ok {
			return cur
		}
		cur, owner = owner.resolveRef(ref)
		if cur == nil {
			return nil
		}
	}
	return nil
}

// BaseURI is the URI the schema's relative references resolve against:
// its declared $id for an inline schema that has one, else ID.
func (s *Schema) BaseURI() string {
	if s.DeclaredID != "" {
		return s.DeclaredID
	}
	return s.ID
}

// resolveRef resolves one $ref found in s's document. An inline schema's
// own $id names the schema itself, ahead of any registry schema of that
// $id.
func (s *Schema) resolveRef(ref string) (map[string]any, *Schema) {
	target, frag := s, ""
	if rest, ok := strings.CutPrefix(ref, "#"); ok {
		frag = rest
	} else {
		r, err := url.Parse(ref)
		if err != nil {
			return nil, nil
		}
		if !r.IsAbs() {
			base, err := url.Parse(s.BaseURI())
			if err != nil || base.Opaque != "" {
				return nil, nil
			}
			r = base.ResolveReference(r)
		}
		frag = r.EscapedFragment()
		r.Fragment, r.RawFragment = "", ""
		if doc := r.String(); s.DeclaredID == "" || doc != strings.TrimSuffix(s.DeclaredID, "#") {
			var ok bool
			if target, ok = s.reg.lookup(doc); !ok {
				return nil, nil
			}
		}
	}
	m, _ := jsonx.Fragment(target.Doc, frag).(map[string]any)
	if m == nil {
		return nil, nil
	}
	return m, target
}
