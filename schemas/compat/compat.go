// Package compat compares two versions of a JSON Schema and classifies
// every change as compatible or breaking for the consumers of valid output
// (`agentgate schema diff`).
//
// The rule: a change is breaking when an output that was valid under the
// old schema may be refused by the new one, or when a member that
// consumers read may no longer be there; it is compatible when everything
// that was valid stays valid. So an added required member, a removed
// property, a narrowed type or enum, a tightened bound and a closed object
// are breaking; an added optional member, a widened type, enum or bound and
// a dropped constraint are compatible. Where the package cannot tell (a
// changed pattern, a changed "not", a different external $ref), it says so
// and counts the change as breaking.
//
// The package works on the schema documents alone: it follows local $refs
// ("#/$defs/x", "#/definitions/x") and compares other $refs by their text.
// It knows nothing of the registry, the gateway or NATS: it must never
// import schemas, the pipeline or the bus.
package compat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/internal/jsonx"
)

// ErrInvalidSchema is returned by Compare for a document that is not a JSON
// object or boolean.
var ErrInvalidSchema = errors.New("invalid schema document")

// Change is one difference between the old and the new schema.
type Change struct {
	// Path is where in a valid output the change applies: a contract
	// JSONPath, with [*] for every item of an array and .* for every
	// member an additionalProperties schema covers.
	Path string `json:"path"`
	// Keyword is the schema keyword that changed ("required",
	// "properties", "type", "enum", "maximum", "additionalProperties", ...).
	Keyword  string `json:"keyword"`
	Breaking bool   `json:"breaking"`
	Message  string `json:"message"`
}

// Report is the result of Compare.
type Report struct {
	OldID      string   `json:"old_id"`
	NewID      string   `json:"new_id"`
	OldVersion string   `json:"old_version"` // semver ending $id, "" when absent
	NewVersion string   `json:"new_version"`
	Changes    []Change `json:"changes"` // sorted by path, then keyword
}

// Breaking reports whether any change is breaking.
func (r *Report) Breaking() bool {
	return slices.ContainsFunc(r.Changes, func(c Change) bool { return c.Breaking })
}

// MajorBump reports whether the version in the new $id is a major bump
// over the old one: a greater major version, or, below 1.0.0, a greater
// minor version (semver.org item 4: anything may change in 0.y.z).
func (r *Report) MajorBump() bool {
	o, okO := parseSemver(r.OldVersion)
	n, okN := parseSemver(r.NewVersion)
	if !okO || !okN {
		return false
	}
	return n[0] > o[0] || o[0] == 0 && n[0] == 0 && n[1] > o[1]
}

// OK reports whether the versions are honest: no breaking change, or a
// major bump.
func (r *Report) OK() bool { return !r.Breaking() || r.MajorBump() }

// Compare classifies the changes from the schema document oldDoc to
// newDoc. It returns ErrInvalidSchema (wrapped) for a document that is not
// a JSON object or boolean.
func Compare(oldDoc, newDoc []byte) (*Report, error) {
	o, err := decode(oldDoc)
	if err != nil {
		return nil, fmt.Errorf("old schema: %w", err)
	}
	n, err := decode(newDoc)
	if err != nil {
		return nil, fmt.Errorf("new schema: %w", err)
	}
	c := &comparer{oldRoot: o, newRoot: n, seen: make(map[[2]any]bool), dedup: make(map[Change]bool)}
	r := &Report{Changes: []Change{}}
	if m, ok := o.(map[string]any); ok {
		r.OldID, _ = m["$id"].(string)
	}
	if m, ok := n.(map[string]any); ok {
		r.NewID, _ = m["$id"].(string)
	}
	r.OldVersion, r.NewVersion = versionOf(r.OldID), versionOf(r.NewID)
	c.compare(o, n, "$")
	r.Changes = c.out
	slices.SortStableFunc(r.Changes, func(a, b Change) int {
		if d := contract.ComparePaths(a.Path, b.Path); d != 0 {
			return d
		}
		return strings.Compare(a.Keyword, b.Keyword)
	})
	return r, nil
}

func decode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: data after the top-level value", ErrInvalidSchema)
	}
	switch v.(type) {
	case map[string]any, bool:
		return v, nil
	}
	return nil, fmt.Errorf("%w: want a JSON object or boolean", ErrInvalidSchema)
}

type comparer struct {
	oldRoot, newRoot any
	seen             map[[2]any]bool // node pairs compared, against $ref cycles
	out              []Change
	dedup            map[Change]bool
}

func (c *comparer) add(path, kw string, breaking bool, format string, args ...any) {
	ch := Change{Path: path, Keyword: kw, Breaking: breaking, Message: fmt.Sprintf(format, args...)}
	if !c.dedup[ch] {
		c.dedup[ch] = true
		c.out = append(c.out, ch)
	}
}

// handled are the keywords compare understands.
var handled = map[string]bool{
	"$ref": true, "type": true, "enum": true, "const": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"minLength": true, "maxLength": true, "minItems": true, "maxItems": true, "minProperties": true,
	"maxProperties": true, "minContains": true, "maxContains": true,
	"pattern": true, "format": true, "uniqueItems": true, "required": true, "properties": true,
	"additionalProperties": true, "items": true, "prefixItems": true, "additionalItems": true,
	"allOf": true, "anyOf": true, "oneOf": true,
}

// compare compares the old and new schema of the values at path.
func (c *comparer) compare(o, n any, path string) {
	o, oRef := c.resolve(c.oldRoot, o)
	n, nRef := c.resolve(c.newRoot, n)
	if oRef != "" || nRef != "" {
		if oRef != nRef {
			c.add(path, "$ref", true, "$ref changed from %s to %s: cannot compare a schema outside the document", orNone(oRef), orNone(nRef))
		}
		return
	}
	key := [2]any{ptr(o), ptr(n)}
	if key[0] != nil && key[1] != nil {
		if c.seen[key] {
			return
		}
		c.seen[key] = true
	}
	ob, oIsBool := o.(bool)
	nb, nIsBool := n.(bool)
	switch {
	case oIsBool && nIsBool:
		if ob && !nb {
			c.add(path, "false", true, "no value is allowed any more")
		} else if !ob && nb {
			c.add(path, "false", false, "any value is allowed now")
		}
		return
	case oIsBool:
		if !ob {
			c.add(path, "false", false, "values are allowed now")
			return
		}
		o = map[string]any{}
	case nIsBool:
		if !nb {
			c.add(path, "false", true, "no value is allowed any more")
			return
		}
		n = map[string]any{}
	}
	om, _ := o.(map[string]any)
	nm, _ := n.(map[string]any)
	if om == nil || nm == nil {
		return
	}
	c.types(om, nm, path)
	c.values(om, nm, path)
	c.bounds(om, nm, path)
	c.stringRules(om, nm, path)
	c.objects(om, nm, path)
	c.arrays(om, nm, path)
	c.combinators(om, nm, path)
	for _, kw := range slices.Sorted(maps.Keys(union(om, nm))) {
		if jsonx.Annotation(kw) || handled[kw] || strings.HasPrefix(kw, "x-") {
			continue
		}
		ov, inO := om[kw]
		nv, inN := nm[kw]
		switch {
		case !inO:
			c.add(path, kw, true, "%s added: cannot tell whether it refuses values that were valid", kw)
		case !inN:
			c.add(path, kw, false, "%s removed", kw)
		case !jsonx.Equal(ov, nv):
			c.add(path, kw, true, "%s changed: cannot tell whether it refuses values that were valid", kw)
		}
	}
}

// resolve follows local $refs; it returns the external $ref it stops at.
func (c *comparer) resolve(root, node any) (any, string) {
	for range 32 {
		m, ok := node.(map[string]any)
		if !ok {
			return node, ""
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return node, ""
		}
		frag, local := strings.CutPrefix(ref, "#")
		if !local {
			return node, ref
		}
		target := jsonx.Fragment(root, frag)
		if target == nil {
			return node, ref
		}
		// Draft 2020-12 applies a $ref's siblings too: keep them.
		if len(m) > 1 {
			merged := maps.Clone(m)
			delete(merged, "$ref")
			return map[string]any{"allOf": []any{target, merged}}, ""
		}
		node = target
	}
	return node, ""
}

// types compares "type".
func (c *comparer) types(o, n map[string]any, path string) {
	ot, nt := typeSet(o["type"]), typeSet(n["type"])
	if ot == nil && nt == nil {
		return
	}
	all := []string{"array", "boolean", "null", "number", "object", "string"}
	if ot == nil {
		ot = all
	}
	if nt == nil {
		nt = all
	}
	var removed, added []string
	for _, t := range ot {
		if !allows(nt, t) {
			removed = append(removed, t)
		}
	}
	for _, t := range nt {
		if !allows(ot, t) {
			added = append(added, t)
		}
	}
	if len(removed) > 0 {
		c.add(path, "type", true, "type narrowed: %s no longer allowed", strings.Join(removed, ", "))
	}
	if len(added) > 0 {
		c.add(path, "type", false, "type widened: %s now allowed", strings.Join(added, ", "))
	}
}

func typeSet(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// allows reports whether the type list allows t ("number" allows "integer").
func allows(types []string, t string) bool {
	return slices.Contains(types, t) || t == "integer" && slices.Contains(types, "number")
}

// values compares "enum" and "const" as one set of allowed values.
func (c *comparer) values(o, n map[string]any, path string) {
	ov, okO := valueSet(o)
	nv, okN := valueSet(n)
	switch {
	case !okO && !okN:
	case !okO:
		c.add(path, keywordOf(n), true, "values narrowed to %s", list(nv))
	case !okN:
		c.add(path, keywordOf(o), false, "values no longer restricted (was %s)", list(ov))
	default:
		var removed, added []any
		for _, v := range ov {
			if !containsJSON(nv, v) {
				removed = append(removed, v)
			}
		}
		for _, v := range nv {
			if !containsJSON(ov, v) {
				added = append(added, v)
			}
		}
		if len(removed) > 0 {
			c.add(path, keywordOf(n), true, "enum narrowed: %s no longer allowed", list(removed))
		}
		if len(added) > 0 {
			c.add(path, keywordOf(n), false, "enum widened: %s now allowed", list(added))
		}
	}
}

func valueSet(m map[string]any) ([]any, bool) {
	if v, ok := m["const"]; ok {
		return []any{v}, true
	}
	if e, ok := m["enum"].([]any); ok {
		return e, true
	}
	return nil, false
}

func keywordOf(m map[string]any) string {
	if _, ok := m["const"]; ok {
		return "const"
	}
	return "enum"
}

// bound is a numeric bound: a value and whether it is exclusive.
type bound struct {
	v         *big.Rat
	exclusive bool
}

// bounds compares the numeric and count bounds.
func (c *comparer) bounds(o, n map[string]any, path string) {
	c.bound(lowerBound(o), lowerBound(n), path, "minimum", true)
	c.bound(upperBound(o), upperBound(n), path, "maximum", false)
	for _, kw := range []string{"minLength", "minItems", "minProperties", "minContains"} {
		c.bound(countBound(o, kw), countBound(n, kw), path, kw, true)
	}
	for _, kw := range []string{"maxLength", "maxItems", "maxProperties", "maxContains"} {
		c.bound(countBound(o, kw), countBound(n, kw), path, kw, false)
	}
	om, nm := jsonx.Rat(o["multipleOf"]), jsonx.Rat(n["multipleOf"])
	switch {
	case om == nil && nm == nil:
	case nm == nil:
		c.add(path, "multipleOf", false, "multipleOf %s removed", om.RatString())
	case om == nil:
		c.add(path, "multipleOf", true, "multipleOf %s added", nm.RatString())
	case om.Cmp(nm) != 0:
		// Every multiple of the old step is a multiple of the new one
		// exactly when old/new is an integer.
		if q := new(big.Rat).Quo(om, nm); q.IsInt() {
			c.add(path, "multipleOf", false, "multipleOf loosened from %s to %s", om.RatString(), nm.RatString())
		} else {
			c.add(path, "multipleOf", true, "multipleOf changed from %s to %s", om.RatString(), nm.RatString())
		}
	}
}

// bound compares one bound; lower tells a lower bound from an upper one.
func (c *comparer) bound(o, n *bound, path, kw string, lower bool) {
	switch {
	case o == nil && n == nil:
		return
	case o == nil:
		c.add(path, kw, true, "%s added: %s", kw, n)
		return
	case n == nil:
		c.add(path, kw, false, "%s removed (was %s)", kw, o)
		return
	}
	d := n.v.Cmp(o.v)
	if !lower {
		d = -d
	}
	tighter := d > 0 || d == 0 && n.exclusive && !o.exclusive
	looser := d < 0 || d == 0 && !n.exclusive && o.exclusive
	switch {
	case tighter:
		c.add(path, kw, true, "%s tightened from %s to %s", kw, o, n)
	case looser:
		c.add(path, kw, false, "%s loosened from %s to %s", kw, o, n)
	}
}

func (b *bound) String() string {
	if b.exclusive {
		return "exclusive " + b.v.RatString()
	}
	return b.v.RatString()
}

// lowerBound is the tighter of minimum and exclusiveMinimum (draft-07 and
// 2020-12 form: a number).
func lowerBound(m map[string]any) *bound {
	return tighter(jsonx.Rat(m["minimum"]), jsonx.Rat(m["exclusiveMinimum"]), true)
}

func upperBound(m map[string]any) *bound {
	return tighter(jsonx.Rat(m["maximum"]), jsonx.Rat(m["exclusiveMaximum"]), false)
}

func tighter(inclusive, exclusive *big.Rat, lower bool) *bound {
	switch {
	case inclusive == nil && exclusive == nil:
		return nil
	case exclusive == nil:
		return &bound{v: inclusive}
	case inclusive == nil:
		return &bound{v: exclusive, exclusive: true}
	}
	d := exclusive.Cmp(inclusive)
	if !lower {
		d = -d
	}
	if d >= 0 {
		return &bound{v: exclusive, exclusive: true}
	}
	return &bound{v: inclusive}
}

func countBound(m map[string]any, kw string) *bound {
	if r := jsonx.Rat(m[kw]); r != nil {
		return &bound{v: r}
	}
	return nil
}

// stringRules compares pattern, format and uniqueItems.
func (c *comparer) stringRules(o, n map[string]any, path string) {
	for _, kw := range []string{"pattern", "format"} {
		ov, inO := o[kw].(string)
		nv, inN := n[kw].(string)
		switch {
		case !inO && !inN, inO && inN && ov == nv:
		case !inO:
			c.add(path, kw, true, "%s %q added", kw, nv)
		case !inN:
			c.add(path, kw, false, "%s %q removed", kw, ov)
		default:
			c.add(path, kw, true, "%s changed from %q to %q: cannot tell whether it refuses values that were valid", kw, ov, nv)
		}
	}
	ou, _ := o["uniqueItems"].(bool)
	nu, _ := n["uniqueItems"].(bool)
	if !ou && nu {
		c.add(path, "uniqueItems", true, "items must now be unique")
	} else if ou && !nu {
		c.add(path, "uniqueItems", false, "items need no longer be unique")
	}
}

// objects compares required, properties and additionalProperties.
func (c *comparer) objects(o, n map[string]any, path string) {
	oreq, nreq := names(o["required"]), names(n["required"])
	oprops, _ := o["properties"].(map[string]any)
	nprops, _ := n["properties"].(map[string]any)
	for _, name := range nreq {
		if !slices.Contains(oreq, name) {
			what := "added required member"
			if _, existed := oprops[name]; existed {
				what = "optional member made required"
			}
			c.add(contract.Member(path, name), "required", true, "%s: outputs without it are refused", what)
		}
	}
	for _, name := range oreq {
		if !slices.Contains(nreq, name) {
			c.add(contract.Member(path, name), "required", false, "member is optional now: consumers may no longer find it")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(oprops)) {
		if _, ok := nprops[name]; !ok {
			c.add(contract.Member(path, name), "properties", true, "property removed: consumers may no longer find it, or it is refused")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(nprops)) {
		op, ok := oprops[name]
		if !ok {
			if !slices.Contains(nreq, name) {
				c.add(contract.Member(path, name), "properties", false, "added optional member")
			}
			continue
		}
		c.compare(op, nprops[name], contract.Member(path, name))
	}
	oap, inO := o["additionalProperties"]
	nap, inN := n["additionalProperties"]
	oClosed := inO && reflect.DeepEqual(oap, false)
	nClosed := inN && reflect.DeepEqual(nap, false)
	switch {
	case !oClosed && nClosed:
		c.add(path, "additionalProperties", true, "object closed: members other than the declared properties are refused")
	case oClosed && !nClosed:
		c.add(path, "additionalProperties", false, "object opened: other members are allowed")
	case inO || inN:
		c.compare(orTrue(oap, inO), orTrue(nap, inN), path+".*")
	}
}

// arrays compares items, prefixItems and draft-07 tuple items.
func (c *comparer) arrays(o, n map[string]any, path string) {
	otuple, orest := itemSchemas(o)
	ntuple, nrest := itemSchemas(n)
	for i := range max(len(otuple), len(ntuple)) {
		ov, nv := any(true), any(true)
		if i < len(otuple) {
			ov = otuple[i]
		} else if orest != nil {
			ov = orest
		}
		if i < len(ntuple) {
			nv = ntuple[i]
		} else if nrest != nil {
			nv = nrest
		}
		c.compare(ov, nv, contract.Index(path, i))
	}
	if orest != nil || nrest != nil {
		c.compare(orTrue(orest, orest != nil), orTrue(nrest, nrest != nil), path+"[*]")
	}
}

// itemSchemas returns the positional item schemas and the schema of the
// other items (nil when unconstrained), in both drafts' forms.
func itemSchemas(m map[string]any) ([]any, any) {
	if prefix, ok := m["prefixItems"].([]any); ok {
		return prefix, m["items"]
	}
	if tuple, ok := m["items"].([]any); ok {
		return tuple, m["additionalItems"]
	}
	return nil, m["items"]
}

// combinators compares allOf, anyOf and oneOf branch by branch.
func (c *comparer) combinators(o, n map[string]any, path string) {
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		ol, _ := o[kw].([]any)
		nl, _ := n[kw].([]any)
		switch {
		case len(ol) == len(nl):
			for i := range ol {
				c.compare(ol[i], nl[i], path)
			}
		case kw == "allOf" && len(nl) > len(ol), kw != "allOf" && len(nl) < len(ol):
			c.add(path, kw, true, "%s went from %d to %d branches: cannot tell which values it refuses now", kw, len(ol), len(nl))
		default:
			for i := range min(len(ol), len(nl)) {
				c.compare(ol[i], nl[i], path)
			}
			c.add(path, kw, false, "%s went from %d to %d branches", kw, len(ol), len(nl))
		}
	}
}

func names(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func orTrue(v any, present bool) any {
	if !present || v == nil {
		return true
	}
	return v
}

func orNone(ref string) string {
	if ref == "" {
		return "none"
	}
	return strconv.Quote(ref)
}

func union(a, b map[string]any) map[string]any {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

func ptr(v any) any {
	if m, ok := v.(map[string]any); ok {
		return reflect.ValueOf(m).UnsafePointer()
	}
	return nil
}

func containsJSON(list []any, v any) bool {
	return slices.ContainsFunc(list, func(x any) bool { return jsonx.Equal(x, v) })
}

// list renders values as JSON, comma-separated.
func list(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
		parts[i] = strings.TrimSpace(b.String())
	}
	return strings.Join(parts, ", ")
}

// semverRE is the regular expression semver.org gives for SemVer 2.0.0.
var semverRE = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// versionOf returns the semantic version ending an $id, or "".
func versionOf(id string) string {
	v := id[strings.LastIndexAny(id, "/:")+1:]
	if !semverRE.MatchString(v) {
		return ""
	}
	return v
}

// parseSemver returns major, minor and patch.
func parseSemver(v string) ([3]int, bool) {
	m := semverRE.FindStringSubmatch(v)
	if m == nil {
		return [3]int{}, false
	}
	var out [3]int
	for i := range out {
		n, err := strconv.Atoi(m[i+1])
		if err != nil {
			return [3]int{}, false
		}
		out[i] = n
	}
	return out, true
}
