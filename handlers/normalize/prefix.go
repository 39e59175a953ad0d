package normalize

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/agentgate/agentgate/contract"
)

// PrefixViolations judges prefix, the beginning of a streamed output,
// against schema loosely (contract section 8), following its $refs through
// r (which may memoize what is derived from the schema, as schemas.Schema
// does): it returns what makes the output unable to become valid whatever
// follows — a root of the wrong type, a member a closed
// object forbids (with extra_fields "reject"; stripped members do no harm),
// a finished string outside its enum — and nil while the output may still
// become valid or cannot be judged yet (prose before the JSON, a syntax
// error that repair may mend). It is pure and bounded by the prefix.
func PrefixViolations(prefix []byte, schema map[string]any, r Resolver, opts Options) []contract.Violation {
	body := bytes.TrimSpace(prefix)
	if bytes.HasPrefix(body, []byte("```")) || bytes.HasPrefix(body, []byte("~~~")) {
		nl := bytes.IndexByte(body, '\n')
		if nl < 0 {
			return nil
		}
		body = bytes.TrimSpace(body[nl+1:])
	}
	if len(body) == 0 || (body[0] != '{' && body[0] != '[') {
		return nil
	}
	n := newNormalizer(r, opts)
	root := n.flatten(schema)
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	// The opening bracket and the token after it must parse before the
	// root is judged: "[Review] {...}" is prose, not an array.
	var pending []json.Token
	for range 2 {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		pending = append(pending, tok)
	}
	if v, bad := wrongType(root, body[0], n.opts.Coerce); bad {
		return []contract.Violation{v}
	}
	next := func() (json.Token, error) {
		if len(pending) > 0 {
			tok := pending[0]
			pending = pending[1:]
			return tok, nil
		}
		return dec.Token()
	}

	type frame struct {
		object    bool
		set       schemaSet
		path      string
		expectKey bool
		key       string
		// alias is set while the member's name is an alias: the member
		// may be dropped in favour of its canonical one, so what it holds
		// is not judged.
		alias bool
		index int
	}
	var stack []frame
	var out []contract.Violation
	// childOf is the set and path of the value about to come.
	childOf := func() (schemaSet, string) {
		if len(stack) == 0 {
			return root, "$"
		}
		f := &stack[len(stack)-1]
		if f.object {
			if f.alias {
				return schemaSet{}, contract.Member(f.path, f.key)
			}
			canon := f.key
			// Paths name the normalized document, so an alias is named by
			// its canonical member.
			return n.child(f.set, n.facts(f.set), canon), contract.Member(f.path, canon)
		}
		return n.item(f.set, f.index), contract.Index(f.path, f.index)
	}
	advance := func() {
		if len(stack) == 0 {
			return
		}
		f := &stack[len(stack)-1]
		if f.object {
			f.expectKey = true
		} else {
			f.index++
		}
	}
	for len(out) == 0 {
		tok, err := next()
		if errors.Is(err, io.EOF) || err != nil {
			// The end of the prefix, or a syntax error repair may mend.
			return nil
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				set, path := root, "$"
				if len(stack) > 0 {
					set, path = childOf()
				}
				stack = append(stack, frame{object: t == '{', set: set, path: path, expectKey: t == '{'})
			default:
				stack = stack[:len(stack)-1]
				advance()
			}
		case string:
			if len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].expectKey {
				f := &stack[len(stack)-1]
				if len(stack) == 1 && t == "refusal" {
					return nil // maybe a refusal: not the schema's to judge
				}
				facts := n.facts(f.set)
				_, alias := facts.canonOf[t]
				f.key, f.expectKey, f.alias = t, false, alias
				if !alias && n.opts.ExtraFields == extraFieldsReject && facts.closed && !n.allowed(f.set, t) {
					out = append(out, contract.Violation{Path: contract.Member(f.path, t), Keyword: "additionalProperties",
						Message: "member " + quote(t) + " is not allowed"})
				}
				continue
			}
			set, path := childOf()
			if v, bad := outsideEnum(set, t, path, n.opts.Coerce); bad {
				out = append(out, v)
			}
			advance()
		default:
			advance()
		}
	}
	return out
}

// wrongType reports a root that the schema's type rules out (an object
// where an array is wanted may still be coerced to one).
func wrongType(s schemaSet, open byte, coerce bool) (contract.Violation, bool) {
	got := "object"
	if open == '[' {
		got = "array"
	}
	var allowed []any
	for _, node := range s.nodes {
		switch t := node["type"].(type) {
		case string:
			allowed = append(allowed, t)
		case []any:
			allowed = append(allowed, t...)
		}
	}
	if len(allowed) == 0 {
		return contract.Violation{}, false
	}
	for _, a := range allowed {
		if a == got || coerce && got == "object" && a == "array" {
			return contract.Violation{}, false
		}
	}
	exp := any(allowed)
	if len(allowed) == 1 {
		exp = allowed[0]
	}
	return contract.Violation{Path: "$", Keyword: "type", Expected: exp,
		Message: "the output is " + article(got) + "; expected " + describeTypes(allowed)}, true
}

// outsideEnum reports a finished string that no enum of s accepts, even
// after the coercion the blueprint allows (case and surrounding space).
func outsideEnum(s schemaSet, v, path string, coerce bool) (contract.Violation, bool) {
	for _, node := range s.nodes {
		list, ok := node["enum"].([]any)
		if !ok {
			continue
		}
		match := false
		for _, e := range list {
			es, isString := e.(string)
			if !isString {
				match = true // not a string enum: not judged here
				break
			}
			if es == v || coerce && strings.EqualFold(strings.TrimSpace(v), es) {
				match = true
				break
			}
		}
		if !match {
			return contract.Violation{Path: path, Keyword: "enum", Expected: list, Received: v, HasReceived: true,
				Message: "value must be one of " + quoteAll(list)}, true
		}
	}
	return contract.Violation{}, false
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func quoteAll(list []any) string {
	q := make([]string, len(list))
	for i, v := range list {
		b, _ := json.Marshal(v)
		q[i] = string(b)
	}
	return strings.Join(q, ", ")
}

func article(t string) string {
	if t == "array" || t == "object" || t == "integer" {
		return "an " + t
	}
	return "a " + t
}

func describeTypes(ts []any) string {
	q := make([]string, len(ts))
	for i, t := range ts {
		q[i], _ = t.(string)
	}
	return strings.Join(q, " or ")
}
