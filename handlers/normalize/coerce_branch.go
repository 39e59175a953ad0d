package normalize

import (
	"encoding/json"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/internal/jsonx"
)

// branchJudgeBudget bounds the schema nodes judged by one Normalize call
// for anyOf/oneOf coercion; past it no more branch coercion is tried (the
// document is left as it is there, and validation reports it).
const branchJudgeBudget = 1 << 14

// maxCoerceBranches is the most branches an anyOf or oneOf may have for
// coercion to be tried under it.
const maxCoerceBranches = 16

// verdict is what judge can tell about an instance and a schema.
type verdict int8

const (
	rejects verdict = iota
	accepts
	unsure
)

// annotationKeyword reports whether kw asserts nothing at the node judge
// evaluates: the shared annotations, the dynamic anchors (judge resolves no
// dynamic reference), and then and else, judged with "if".
func annotationKeyword(kw string) bool {
	switch kw {
	case "$dynamicAnchor", "$recursiveAnchor", "then", "else":
		return true
	}
	return jsonx.Annotation(kw)
}

// coerceBranches converts v under an anyOf or oneOf, only where it is
// unambiguous: s has exactly one such combinator, no branch accepts v as it
// is, and of the conversions each branch asks for (see conversion), exactly
// one result is accepted by exactly one branch and by the rest of s. Where
// judge cannot tell (a keyword it does not evaluate, such as format or
// multipleOf, or the budget is spent) nothing is converted.
func (n *normalizer) coerceBranches(v any, s schemaSet, path string) any {
	if v == nil || s.partial || n.judgeBudget <= 0 {
		return v
	}
	owner, kw, branches := soleCombinator(s)
	if owner == nil || len(branches) == 0 || len(branches) > maxCoerceBranches {
		return v
	}
	for _, b := range branches {
		if n.judge(v, b) != rejects {
			return v // valid as it is, or cannot tell
		}
	}
	type result struct {
		to     any
		detail string
		nulls  []string // members removed as nulls, when that is the conversion
	}
	var found []result
	for _, b := range branches {
		bs := n.flatten(b)
		if bs.partial {
			return v
		}
		to, detail, ok := n.conversion(v, bs)
		var nulls []string
		if obj, isObj := v.(map[string]any); !ok && isObj {
			to, nulls = n.nullMembersRemoved(obj, bs)
			ok, detail = nulls != nil, "null in optional member removed"
		}
		if !ok {
			continue
		}
		accepted := 0
		for _, other := range branches {
			switch n.judge(to, other) {
			case unsure:
				return v
			case accepts:
				accepted++
			}
		}
		if accepted != 1 || n.judgeRest(to, s, owner, kw) != accepts {
			continue
		}
		if !slices.ContainsFunc(found, func(r result) bool { return jsonx.Equal(r.to, to) }) {
			found = append(found, result{to, detail, nulls})
		}
	}
	if len(found) != 1 {
		return v
	}
	if nulls := found[0].nulls; nulls != nil {
		for _, name := range nulls {
			n.ops = append(n.ops, contract.Normalization{
				Op: contract.OpCoerce, Path: contract.Member(path, name), From: "null", Detail: found[0].detail + " (" + kw + ")",
			})
		}
		return found[0].to
	}
	n.ops = append(n.ops, contract.Normalization{
		Op: contract.OpCoerce, Path: path, From: shortJSON(v), To: shortJSON(found[0].to), Detail: found[0].detail + " (" + kw + ")",
	})
	return found[0].to
}

// nullMembersRemoved is obj without its null members that branch bs does
// not require and whose schema there leaves null out: what walkObject does
// for the members an object's own schema declares, done for a branch's
// (the optional members a provider's strict mode exports as required and
// nullable, inside the branches of a discriminator, say).
// It returns the names removed, sorted, or nil when there are none.
func (n *normalizer) nullMembersRemoved(obj map[string]any, bs schemaSet) (map[string]any, []string) {
	f := n.facts(bs)
	var removed []string
	for name, v := range obj {
		if v == nil && !f.required[name] && excludesNull(n.child(bs, f, name)) {
			removed = append(removed, name)
		}
	}
	if removed == nil {
		return nil, nil
	}
	slices.Sort(removed)
	out := maps.Clone(obj)
	for _, name := range removed {
		delete(out, name)
	}
	return out, removed
}

// soleCombinator returns the node of s holding its only anyOf or oneOf,
// with the keyword and the branches; nil when there is none or several.
func soleCombinator(s schemaSet) (owner map[string]any, kw string, branches []any) {
	count := 0
	for _, node := range s.nodes {
		for _, k := range []string{"anyOf", "oneOf"} {
			v, ok := node[k]
			if !ok {
				continue
			}
			count++
			owner, kw = node, k
			branches, _ = v.([]any)
		}
	}
	if count != 1 {
		return nil, "", nil
	}
	return owner, kw, branches
}

// branchesExcludeNull reports whether null is rejected by every branch of
// the only anyOf or oneOf of s, so that a null member can never be valid.
func (n *normalizer) branchesExcludeNull(s schemaSet) bool {
	if s.partial || n.judgeBudget <= 0 {
		return false
	}
	owner, _, branches := soleCombinator(s)
	if owner == nil || len(branches) == 0 || len(branches) > maxCoerceBranches {
		return false
	}
	for _, b := range branches {
		if n.judge(nil, b) != rejects {
			return false
		}
	}
	return true
}

// judgeRest judges v against every node of s, leaving out the combinator
// kw of owner (whose branches were judged already).
func (n *normalizer) judgeRest(v any, s schemaSet, owner map[string]any, kw string) verdict {
	res := accepts
	for _, node := range s.nodes {
		skip := ""
		if sameNode(node, owner) {
			skip = kw
		}
		res = and(res, n.judgeNode(v, node, skip))
		if res == rejects {
			return rejects
		}
	}
	return res
}

// sameNode reports whether a and b are the same map (not equal maps).
func sameNode(a, b map[string]any) bool {
	return a != nil && b != nil && reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer()
}

// judge tells whether instance v is valid against schema sch, as far as the
// keywords it knows go: type, enum, const, numeric bounds, string lengths
// and patterns, array items and lengths, object properties, required,
// additionalProperties and sizes, $ref, allOf, anyOf, oneOf, not and
// if/then/else. Any other assertion makes it unsure. It is pure, reads no
// network and spends one unit of the call's budget per schema node.
func (n *normalizer) judge(v any, sch any) verdict {
	switch t := sch.(type) {
	case bool:
		if t {
			return accepts
		}
		return rejects
	case map[string]any:
		return n.judgeNode(v, t, "")
	default:
		return unsure
	}
}

func and(a, b verdict) verdict {
	switch {
	case a == rejects || b == rejects:
		return rejects
	case a == unsure || b == unsure:
		return unsure
	default:
		return accepts
	}
}

func (n *normalizer) judgeNode(v any, node map[string]any, skip string) verdict {
	n.judgeBudget--
	if n.judgeBudget < 0 {
		return unsure
	}
	res := accepts
	for _, kw := range slices.Sorted(maps.Keys(node)) {
		if kw == skip || annotationKeyword(kw) || strings.HasPrefix(kw, "x-") {
			continue
		}
		res = and(res, n.judgeKeyword(v, node, kw, node[kw]))
		if res == rejects {
			return rejects
		}
	}
	return res
}

func (n *normalizer) judgeKeyword(v any, node map[string]any, kw string, val any) verdict {
	switch kw {
	case "$ref":
		if n.resolver == nil {
			return unsure
		}
		target := n.resolver.Resolve(node)
		if target == nil || sameNode(target, node) {
			return unsure
		}
		return n.judgeNode(v, target, "")
	case "type":
		return judgeType(v, val)
	case "enum":
		list, ok := val.([]any)
		if !ok {
			return unsure
		}
		return boolVerdict(slices.ContainsFunc(list, func(m any) bool { return jsonx.Equal(m, v) }))
	case "const":
		return boolVerdict(jsonx.Equal(val, v))
	case "allOf", "anyOf", "oneOf":
		return n.judgeCombinator(v, kw, val)
	case "not":
		switch n.judge(v, val) {
		case accepts:
			return rejects
		case rejects:
			return accepts
		}
		return unsure
	case "if":
		switch n.judge(v, val) {
		case accepts:
			if then, ok := node["then"]; ok {
				return n.judge(v, then)
			}
			return accepts
		case rejects:
			if els, ok := node["else"]; ok {
				return n.judge(v, els)
			}
			return accepts
		}
		return unsure
	case "$dynamicRef", "$recursiveRef":
		return unsure
	}
	switch x := v.(type) {
	case json.Number, float64:
		return judgeNumber(x, kw, val)
	case string:
		return n.judgeString(x, kw, val)
	case []any:
		return n.judgeArray(x, node, kw, val)
	case map[string]any:
		return n.judgeObject(x, node, kw, val)
	case nil, bool:
		if typeSpecific[kw] {
			return accepts
		}
	}
	return unsure
}

// typeSpecific lists the keywords that assert only on one JSON type and
// that judge knows; on other types they hold.
var typeSpecific = map[string]bool{
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"minLength": true, "maxLength": true, "pattern": true, "format": true,
	"items": true, "prefixItems": true, "additionalItems": true, "minItems": true, "maxItems": true,
	"uniqueItems": true, "contains": true, "minContains": true, "maxContains": true, "unevaluatedItems": true,
	"properties": true, "patternProperties": true, "additionalProperties": true, "required": true,
	"minProperties": true, "maxProperties": true, "propertyNames": true, "dependentRequired": true,
	"dependentSchemas": true, "dependencies": true, "unevaluatedProperties": true,
}

func boolVerdict(ok bool) verdict {
	if ok {
		return accepts
	}
	return rejects
}

func (n *normalizer) judgeCombinator(v any, kw string, val any) verdict {
	list, ok := val.([]any)
	if !ok || len(list) == 0 {
		return unsure
	}
	acc, uns := 0, 0
	for _, b := range list {
		switch n.judge(v, b) {
		case accepts:
			acc++
		case unsure:
			uns++
		case rejects:
			if kw == "allOf" {
				return rejects
			}
		}
	}
	switch kw {
	case "allOf":
		if uns > 0 {
			return unsure
		}
		return accepts
	case "anyOf":
		switch {
		case acc > 0:
			return accepts
		case uns > 0:
			return unsure
		}
		return rejects
	default: // oneOf
		switch {
		case acc > 1:
			return rejects
		case uns > 0:
			return unsure
		}
		return boolVerdict(acc == 1)
	}
}

func judgeType(v any, val any) verdict {
	types, ok := typeKeyword(val)
	if !ok {
		return unsure
	}
	return boolVerdict(typeAllows(types, v))
}

func numberValue(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil && !math.IsInf(f, 0)
	case float64:
		return x, true
	}
	return 0, false
}

func judgeNumber(v any, kw string, val any) verdict {
	switch kw {
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
	default:
		if typeSpecific[kw] && kw != "multipleOf" {
			return accepts
		}
		return unsure
	}
	x, okX := numberValue(v)
	lim, okL := numberValue(val)
	if !okX || !okL {
		return unsure // a draft-04 boolean exclusive bound, or out of range
	}
	if x == lim {
		if !jsonx.Equal(v, val) {
			return unsure // equal as floats only
		}
		return boolVerdict(kw == "minimum" || kw == "maximum")
	}
	switch kw {
	case "minimum", "exclusiveMinimum":
		return boolVerdict(x > lim)
	default:
		return boolVerdict(x < lim)
	}
}

func (n *normalizer) judgeString(s string, kw string, val any) verdict {
	switch kw {
	case "minLength", "maxLength":
		lim, ok := numberValue(val)
		if !ok {
			return unsure
		}
		l := float64(utf8.RuneCountInString(s))
		if kw == "minLength" {
			return boolVerdict(l >= lim)
		}
		return boolVerdict(l <= lim)
	case "pattern":
		p, ok := val.(string)
		if !ok {
			return unsure
		}
		re := n.pattern(p)
		if re == nil {
			return unsure
		}
		return boolVerdict(re.MatchString(s))
	case "format":
		return unsure
	}
	if typeSpecific[kw] {
		return accepts
	}
	return unsure
}

func (n *normalizer) judgeArray(a []any, node map[string]any, kw string, val any) verdict {
	switch kw {
	case "minItems", "maxItems":
		lim, ok := numberValue(val)
		if !ok {
			return unsure
		}
		if kw == "minItems" {
			return boolVerdict(float64(len(a)) >= lim)
		}
		return boolVerdict(float64(len(a)) <= lim)
	case "items", "prefixItems", "additionalItems":
		res := accepts
		for i, item := range a {
			sub, ok := itemSchema(node, kw, i)
			if !ok {
				continue
			}
			if res = and(res, n.judge(item, sub)); res == rejects {
				return rejects
			}
		}
		return res
	case "uniqueItems":
		if b, ok := val.(bool); ok && (!b || len(a) < 2) {
			return accepts
		}
		return unsure
	}
	if typeSpecific[kw] && !strings.Contains(kw, "ontains") && kw != "unevaluatedItems" {
		return accepts
	}
	return unsure
}

// itemSchema is the schema that keyword kw of node applies to element i,
// if any (prefixItems and the draft-07 tuple form of items included).
func itemSchema(node map[string]any, kw string, i int) (any, bool) {
	prefix, hasPrefix := node["prefixItems"].([]any)
	tuple, isTuple := node["items"].([]any)
	switch kw {
	case "prefixItems":
		if hasPrefix && i < len(prefix) {
			return prefix[i], true
		}
	case "items":
		switch {
		case isTuple:
			if i < len(tuple) {
				return tuple[i], true
			}
		case hasPrefix:
			if i >= len(prefix) {
				return node["items"], true
			}
		default:
			return node["items"], true
		}
	case "additionalItems":
		if isTuple && i >= len(tuple) {
			return node["additionalItems"], true
		}
	}
	return nil, false
}

func (n *normalizer) judgeObject(obj map[string]any, node map[string]any, kw string, val any) verdict {
	switch kw {
	case "required":
		list, ok := val.([]any)
		if !ok {
			return unsure
		}
		for _, r := range list {
			name, ok := r.(string)
			if !ok {
				return unsure
			}
			if _, present := obj[name]; !present {
				return rejects
			}
		}
		return accepts
	case "minProperties", "maxProperties":
		lim, ok := numberValue(val)
		if !ok {
			return unsure
		}
		if kw == "minProperties" {
			return boolVerdict(float64(len(obj)) >= lim)
		}
		return boolVerdict(float64(len(obj)) <= lim)
	case "properties":
		props, ok := val.(map[string]any)
		if !ok {
			return unsure
		}
		res := accepts
		for _, name := range slices.Sorted(maps.Keys(obj)) {
			if sub, ok := props[name]; ok {
				if res = and(res, n.judge(obj[name], sub)); res == rejects {
					return rejects
				}
			}
		}
		return res
	case "patternProperties", "additionalProperties":
		props, _ := node["properties"].(map[string]any)
		pp, _ := node["patternProperties"].(map[string]any)
		res := accepts
		for _, name := range slices.Sorted(maps.Keys(obj)) {
			matched := false
			for _, pat := range slices.Sorted(maps.Keys(pp)) {
				re := n.pattern(pat)
				if re == nil {
					return unsure
				}
				if re.MatchString(name) {
					matched = true
					if kw == "patternProperties" {
						res = and(res, n.judge(obj[name], pp[pat]))
					}
				}
			}
			if _, declared := props[name]; kw == "additionalProperties" && !declared && !matched {
				res = and(res, n.judge(obj[name], val))
			}
			if res == rejects {
				return rejects
			}
		}
		return res
	case "propertyNames", "dependentRequired", "dependentSchemas", "dependencies", "unevaluatedProperties":
		return unsure
	}
	if typeSpecific[kw] {
		return accepts // a keyword of another type
	}
	return unsure
}
