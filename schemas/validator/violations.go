package validator

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kaptinlin/jsonschema"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/internal/jsonx"
)

// maxReceivedBytes is the largest JSON encoding of a received value that a
// violation carries.
const maxReceivedBytes = 1024

// maxHints bounds the branches of an anyOf or oneOf whose first failure is
// quoted in the combinator's message.
const maxHints = 4

// violations maps a failed evaluation of doc to contract violations
// (section 4): leaf failures at the path of the value that failed,
// through allOf, $ref, properties, items and the like; one violation for a
// failed anyOf, oneOf or not; a missing required member once, at its own
// path; each member a closed object forbids at its own path. The result is
// sorted and free of duplicates; nil when nothing is reported.
func violations(res *jsonschema.EvaluationResult, doc any) []contract.Violation {
	m := newMapper()
	m.walk(res, "$", doc, frame{})
	if len(m.out) == 0 {
		return nil
	}
	contract.SortViolations(m.out)
	return m.out
}

// frame says how an evaluation result was reached from its parent.
type frame struct {
	applicator string // keyword that moved to this value ("additionalProperties", "items", ...)
	member     string // the member's name, when reached through an object applicator
	isMember   bool
}

type mapper struct {
	out  []contract.Violation
	seen map[string]bool
}

func newMapper() *mapper { return &mapper{seen: make(map[string]bool)} }

func (m *mapper) add(v contract.Violation) {
	key := v.Path + "\x00" + v.Keyword + "\x00" + v.Message
	if m.seen[key] {
		return
	}
	m.seen[key] = true
	m.out = append(m.out, v)
}

// walk maps result r, evaluated against inst found at path.
func (m *mapper) walk(r *jsonschema.EvaluationResult, path string, inst any, fr frame) {
	if r == nil || r.Valid {
		return
	}
	node := resultSchema(r)
	for _, kw := range slices.Sorted(maps.Keys(r.Errors)) {
		m.keyword(r, node, kw, r.Errors[kw], path, inst, fr)
	}
	for _, d := range r.Details {
		if d == nil || d.Valid {
			continue
		}
		ep := d.EvaluationPath
		switch {
		case strings.HasPrefix(ep, "/anyOf/"), strings.HasPrefix(ep, "/oneOf/"),
			strings.HasPrefix(ep, "/propertyNames/"),
			ep == "/not", ep == "/if", ep == "/contains", ep == "/contentSchema":
			// Reported by the parent's keyword, or not at all.
			continue
		case d.InstanceLocation == "", strings.HasPrefix(ep, "/dependentSchemas/"):
			// Same value: $ref, allOf, then, else, dependentSchemas (whose
			// InstanceLocation names the trigger member, not the value).
			m.walk(d, path, inst, fr)
			continue
		}
		// kaptinlin writes a child's location as "/" + the raw member name or
		// index, unescaped: one step down.
		tok := d.InstanceLocation[1:]
		childPath, child, ok := step(path, inst, tok)
		if !ok {
			// A required member that is absent is still evaluated, as null
			// (properties.go:38): its errors are spurious, the parent's
			// required error reports it.
			continue
		}
		_, isMember := inst.(map[string]any)
		m.walk(d, childPath, child, frame{applicator: applicatorOf(ep, node), member: tok, isMember: isMember})
	}
}

// step moves from inst at path to its member or item tok, deciding which by
// the instance, not by the look of tok.
func step(path string, inst any, tok string) (string, any, bool) {
	switch v := inst.(type) {
	case map[string]any:
		child, ok := v[tok]
		if !ok {
			return "", nil, false
		}
		return contract.Member(path, tok), child, true
	case []any:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i >= len(v) {
			return "", nil, false
		}
		return contract.Index(path, i), v[i], true
	}
	return "", nil, false
}

// applicatorOf names the keyword behind a child's evaluation path.
func applicatorOf(ep string, parent *jsonschema.Schema) string {
	kw, _, _ := strings.Cut(strings.TrimPrefix(ep, "/"), "/")
	draft07 := parent != nil && parent.Dialect() == jsonschema.Draft7
	switch kw {
	case "items":
		// kaptinlin decodes draft-07's tuple "items" as prefixItems and
		// "additionalItems" as items.
		if draft07 && len(parent.PrefixItems) > 0 {
			return "additionalItems"
		}
	case "prefixItems":
		if draft07 {
			return "items"
		}
	}
	return kw
}

// keyword maps one error of result r.
func (m *mapper) keyword(r *jsonschema.EvaluationResult, node *jsonschema.Schema, kw string, e *jsonschema.EvaluationError, path string, inst any, fr frame) {
	v := contract.Violation{Path: path, Keyword: kw}
	got := func() { v.Received, v.HasReceived = received(inst) }
	switch kw {
	case "properties", "items", "prefixItems", "patternProperties", "$ref", "$dynamicRef",
		"allOf", "dependentSchemas", "then", "else":
		return // summaries: the failures are in the details
	case "contentEncoding", "contentMediaType", "contentSchema":
		// Annotations in draft 2020-12 (validation spec section 8), which
		// kaptinlin asserts.
		return
	case "additionalProperties":
		if e.Code == "additional_property_false" {
			m.forbidden(node, path, inst)
		}
		return
	case "unevaluatedItems":
		if e.Code == "unevaluated_items_not_allowed" {
			m.unevaluatedItems(e, path, inst)
		}
		return
	case "required":
		m.required(node, e, path, inst)
		return
	case "dependentRequired":
		m.dependentRequired(node, e, path, inst)
		return
	case "propertyNames":
		m.propertyNames(r, path, inst)
		return
	case "schema": // a false schema
		v.Keyword = cmp.Or(fr.applicator, "false")
		switch {
		case fr.isMember:
			v.Message = fmt.Sprintf("member %s is not allowed", quote(fr.member))
		case slices.Contains([]string{"items", "prefixItems", "additionalItems", "unevaluatedItems"}, v.Keyword):
			v.Message = "item is not allowed here"
		default:
			v.Message = "no value is allowed here"
		}
		got()
	case "type":
		var want []string
		if node != nil {
			want = node.Type
		} else if s, ok := e.Params["expected"].(string); ok {
			want = strings.Split(s, ", ")
		}
		if len(want) == 1 {
			v.Expected = want[0]
		} else if len(want) > 1 {
			v.Expected = want
		}
		v.Message = fmt.Sprintf("expected %s, got %s", strings.Join(want, " or "), jsonx.TypeName(inst, jsonx.IntegerApart))
		got()
	case "enum":
		if node != nil {
			v.Expected = node.Enum
			v.Message = "value must be one of " + joinJSON(node.Enum)
		}
		got()
	case "const":
		if node != nil && node.Const != nil {
			v.Expected, v.HasExpected = node.Const.Value, true
			v.Message = "value must be " + compactJSON(node.Const.Value)
		}
		got()
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		if r := ratOf(node, kw); r != nil {
			n := json.Number(jsonschema.FormatRat(r))
			v.Expected = n
			op := map[string]string{"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}[kw]
			if kw == "multipleOf" {
				v.Message = fmt.Sprintf("value must be a multiple of %s", n)
			} else {
				v.Message = fmt.Sprintf("value must be %s %s", op, n)
			}
		}
		got()
	case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains":
		if n, ok := countOf(node, kw, e); ok {
			if kw != "minContains" || node.MinContains != nil {
				v.Expected = json.Number(strconv.Itoa(n))
			} else {
				v.Keyword = "contains" // no minContains in the schema: the default of 1
			}
			v.Message = countMessage(kw, n)
		}
		got()
	case "pattern":
		if node != nil && node.Pattern != nil {
			v.Expected = *node.Pattern
			v.Message = fmt.Sprintf("string must match the pattern %s", quote(*node.Pattern))
		}
		got()
	case "format":
		switch f := formatOf(node); {
		case strings.HasPrefix(f, ecmaPatternFormat):
			// A pattern that runs on the ECMA-262 engine (see correct).
			p := strings.TrimPrefix(f, ecmaPatternFormat)
			v.Keyword = "pattern"
			v.Expected = p
			v.Message = fmt.Sprintf("string must match the pattern %s", quote(p))
			if s, ok := inst.(string); ok && ecmaTimedOut(p, s) {
				v.Message += fmt.Sprintf(" (the match ran past the %s limit)", PatternMatchTimeout)
			}
		case f == emptyEnumFormat:
			v.Keyword = "enum"
			v.Expected = []any{}
			v.Message = "no value is allowed: the enum is empty"
		case f != "":
			v.Expected = f
			v.Message = fmt.Sprintf("value must be a valid %s", f)
		}
		got()
	case "uniqueItems":
		v.Expected = true
		v.Message = "array items must be unique"
		got()
	case "anyOf":
		v.Message = "value must match at least one of the allowed schemas" + m.hints(r, "/anyOf/", path, inst, fr)
		got()
	case "oneOf":
		if e.Code == "one_of_multiple_matches" {
			v.Message = fmt.Sprintf("value must match exactly one of the allowed schemas, but matches several (%v)", e.Params["matches"])
		} else {
			v.Message = "value must match exactly one of the allowed schemas" + m.hints(r, "/oneOf/", path, inst, fr)
		}
		got()
	case "not":
		v.Message = "value must not match the forbidden schema"
		got()
	default:
		got()
	}
	if v.Message == "" {
		v.Message = e.Error()
	}
	m.add(v)
}

// required reports each missing required member at its own path.
func (m *mapper) required(node *jsonschema.Schema, e *jsonschema.EvaluationError, path string, inst any) {
	obj, _ := inst.(map[string]any)
	var names []string
	if node != nil {
		names = node.Required
	} else {
		names = unquoteList(e.Params["property"], e.Params["properties"])
	}
	for _, name := range names {
		if _, ok := obj[name]; ok {
			continue
		}
		m.add(contract.Violation{
			Path:    contract.Member(path, name),
			Keyword: "required",
			Message: fmt.Sprintf("missing required member %s", quote(name)),
		})
	}
}

// dependentRequired reports each member that another member's presence
// requires, at its own path.
func (m *mapper) dependentRequired(node *jsonschema.Schema, e *jsonschema.EvaluationError, path string, inst any) {
	obj, _ := inst.(map[string]any)
	deps := map[string][]string{}
	if node != nil {
		deps = node.DependentRequired
	} else if s, ok := e.Params["missing_properties"].(string); ok {
		_ = json.Unmarshal([]byte(s), &deps)
	}
	for _, trigger := range slices.Sorted(maps.Keys(deps)) {
		if _, ok := obj[trigger]; !ok {
			continue
		}
		for _, name := range deps[trigger] {
			if _, ok := obj[name]; ok {
				continue
			}
			m.add(contract.Violation{
				Path:    contract.Member(path, name),
				Keyword: "dependentRequired",
				Message: fmt.Sprintf("missing member %s, required when %s is present", quote(name), quote(trigger)),
			})
		}
	}
}

// forbidden reports the members a closed object does not allow, when
// kaptinlin reports them itself (on a recursive schema, validate.go,
// checkAdditionalPropertiesForCircular)
// rather than through a false-schema detail per member.
func (m *mapper) forbidden(node *jsonschema.Schema, path string, inst any) {
	obj, _ := inst.(map[string]any)
	if node == nil || obj == nil {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		if node.Properties != nil {
			if _, ok := (*node.Properties)[name]; ok {
				continue
			}
		}
		if matchesPattern(node, name) {
			continue
		}
		v := contract.Violation{
			Path:    contract.Member(path, name),
			Keyword: "additionalProperties",
			Message: fmt.Sprintf("member %s is not allowed", quote(name)),
		}
		v.Received, v.HasReceived = received(obj[name])
		m.add(v)
	}
}

func matchesPattern(node *jsonschema.Schema, name string) bool {
	if node.PatternProperties == nil {
		return false
	}
	for p := range *node.PatternProperties {
		if re, err := regexp.Compile(p); err == nil && re.MatchString(name) {
			return true
		}
	}
	return false
}

// unevaluatedItems reports each item "unevaluatedItems": false forbids.
func (m *mapper) unevaluatedItems(e *jsonschema.EvaluationError, path string, inst any) {
	arr, _ := inst.([]any)
	s, _ := e.Params["indexes"].(string)
	for f := range strings.SplitSeq(s, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || i < 0 || i >= len(arr) {
			continue
		}
		v := contract.Violation{Path: contract.Index(path, i), Keyword: "unevaluatedItems", Message: "item is not allowed here"}
		v.Received, v.HasReceived = received(arr[i])
		m.add(v)
	}
}

// propertyNames reports each member whose name fails propertyNames.
func (m *mapper) propertyNames(r *jsonschema.EvaluationResult, path string, inst any) {
	obj, _ := inst.(map[string]any)
	for _, d := range r.Details {
		if d == nil || d.Valid {
			continue
		}
		name, ok := strings.CutPrefix(d.EvaluationPath, "/propertyNames/")
		if !ok {
			continue
		}
		if _, present := obj[name]; !present {
			continue
		}
		msg := fmt.Sprintf("member name %s is not allowed", quote(name))
		sub := newMapper()
		sub.walk(d, "$", name, frame{})
		if len(sub.out) > 0 {
			contract.SortViolations(sub.out)
			msg += ": " + sub.out[0].Message
		}
		m.add(contract.Violation{
			Path: contract.Member(path, name), Keyword: "propertyNames",
			Received: name, HasReceived: true, Message: msg,
		})
	}
}

// hints quotes the first failure of each failed branch of an anyOf or oneOf.
func (m *mapper) hints(r *jsonschema.EvaluationResult, prefix, path string, inst any, fr frame) string {
	var hints []string
	for _, d := range r.Details {
		if d == nil || d.Valid || !strings.HasPrefix(d.EvaluationPath, prefix) {
			continue
		}
		sub := newMapper()
		sub.walk(d, path, inst, fr)
		if len(sub.out) == 0 {
			continue
		}
		contract.SortViolations(sub.out)
		first := sub.out[0]
		h := first.Message
		if first.Path != path {
			h = first.Path + ": " + h
		}
		if !slices.Contains(hints, h) {
			hints = append(hints, h)
		}
	}
	if len(hints) == 0 || len(hints) > maxHints {
		return ""
	}
	return ": " + strings.Join(hints, "; or ")
}

// formatOf returns node's format, or "".
func formatOf(node *jsonschema.Schema) string {
	if node == nil || node.Format == nil {
		return ""
	}
	return *node.Format
}

// ratOf returns a numeric keyword's value.
func ratOf(node *jsonschema.Schema, kw string) *jsonschema.Rat {
	if node == nil {
		return nil
	}
	switch kw {
	case "minimum":
		return node.Minimum
	case "maximum":
		return node.Maximum
	case "exclusiveMinimum":
		return node.ExclusiveMinimum
	case "exclusiveMaximum":
		return node.ExclusiveMaximum
	case "multipleOf":
		return node.MultipleOf
	}
	return nil
}

// countOf returns a count keyword's value.
func countOf(node *jsonschema.Schema, kw string, e *jsonschema.EvaluationError) (int, bool) {
	if node == nil {
		return 0, false
	}
	var p *float64
	switch kw {
	case "minLength":
		p = node.MinLength
	case "maxLength":
		p = node.MaxLength
	case "minItems":
		p = node.MinItems
	case "maxItems":
		p = node.MaxItems
	case "minProperties":
		p = node.MinProperties
	case "maxProperties":
		p = node.MaxProperties
	case "minContains":
		if node.MinContains == nil {
			n, ok := e.Params["min_contains"].(int)
			return n, ok
		}
		p = node.MinContains
	case "maxContains":
		p = node.MaxContains
	}
	if p == nil {
		return 0, false
	}
	return int(*p), true
}

func countMessage(kw string, n int) string {
	plural := func(word string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s", n, word)
		}
		return fmt.Sprintf("%d %ss", n, word)
	}
	switch kw {
	case "minLength":
		return "string must be at least " + plural("character") + " long"
	case "maxLength":
		return "string must be at most " + plural("character") + " long"
	case "minItems":
		return "array must have at least " + plural("item")
	case "maxItems":
		return "array must have at most " + plural("item")
	case "minProperties":
		return "object must have at least " + plural("member")
	case "maxProperties":
		return "object must have at most " + plural("member")
	case "minContains":
		return "array must contain at least " + plural("matching item")
	default: // maxContains
		return "array must contain at most " + plural("matching item")
	}
}

// received returns a copy of v to report as a violation's received value,
// or false when its JSON encoding exceeds maxReceivedBytes.
func received(v any) (any, bool) {
	if _, ok := jsonSize(v, maxReceivedBytes); !ok {
		return nil, false
	}
	switch v.(type) {
	case map[string]any, []any:
		// A copy, so that later changes to the document do not reach it.
		b, err := json.Marshal(v)
		if err != nil {
			return nil, false
		}
		out, err := decodeAny(b)
		if err != nil {
			return nil, false
		}
		return out, true
	}
	return v, true
}

// jsonSize returns the length of v's encoding by json.Marshal, stopping as
// soon as it exceeds budget.
func jsonSize(v any, budget int) (int, bool) {
	switch t := v.(type) {
	case nil:
		return 4, budget >= 4
	case bool:
		if t {
			return 4, budget >= 4
		}
		return 5, budget >= 5
	case string:
		if len(t)+2 > budget {
			return 0, false
		}
		b, _ := json.Marshal(t)
		return len(b), len(b) <= budget
	case map[string]any:
		n := 2 + max(len(t)-1, 0) // braces and commas
		for k, c := range t {
			ks, ok := jsonSize(k, budget-n)
			if !ok {
				return 0, false
			}
			n += ks + 1
			cs, ok := jsonSize(c, budget-n)
			if !ok {
				return 0, false
			}
			n += cs
		}
		return n, n <= budget
	case []any:
		n := 2 + max(len(t)-1, 0)
		for _, c := range t {
			cs, ok := jsonSize(c, budget-n)
			if !ok {
				return 0, false
			}
			n += cs
		}
		return n, n <= budget
	default:
		b, err := json.Marshal(t)
		if err != nil {
			return 0, false
		}
		return len(b), len(b) <= budget
	}
}

// decodeAny decodes JSON with UseNumber.
func decodeAny(b []byte) (any, error) {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// joinJSON renders values as JSON, comma-separated.
func joinJSON(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = compactJSON(v)
	}
	return strings.Join(parts, ", ")
}

// quote renders s as a JSON string.
func quote(s string) string { return compactJSON(s) }

// unquoteList reads kaptinlin's "'a', 'b'" parameter lists.
func unquoteList(params ...any) []string {
	var out []string
	for _, p := range params {
		s, _ := p.(string)
		if s == "" {
			continue
		}
		for f := range strings.SplitSeq(s, "', '") {
			out = append(out, strings.Trim(f, "'"))
		}
	}
	return out
}

// compactJSON renders v for an error message.
// It leaves <, > and & as they are: messages are read by people and
// models, not embedded in HTML.
func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
