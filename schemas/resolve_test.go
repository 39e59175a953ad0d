package schemas_test

import (
	"reflect"
	"testing"
)

// same reports whether two nodes are the same map.
func same(a, b map[string]any) bool {
	return a != nil && b != nil && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// at walks a decoded document along keys.
func at(t *testing.T, doc map[string]any, keys ...string) map[string]any {
	t.Helper()
	cur := doc
	for _, k := range keys {
		next, ok := cur[k].(map[string]any)
		if !ok {
			t.Fatalf("no object at %v", keys)
		}
		cur = next
	}
	return cur
}

func TestResolve_registry(t *testing.T) {
	t.Parallel()
	r := loadGood(t)
	pr, _ := r.Schema(prReviewID)
	common, _ := r.Schema("https://agentgate.dev/schemas/common/1.0.0")
	triage, _ := r.Schema("https://agentgate.dev/schemas/triage/2.1.0-beta.1")
	labels, _ := r.Schema("https://agentgate.dev/schemas/zz-labels/1.0.0")

	tests := []struct {
		name string
		node func() map[string]any // the node, found in its document
		want func() map[string]any // the expected target
		via  string                // schema whose Resolve is called
	}{
		{"no $ref: the node itself", func() map[string]any { return at(t, pr.Doc, "properties", "summary") },
			func() map[string]any { return at(t, pr.Doc, "properties", "summary") }, "pr"},
		{"local $defs", func() map[string]any { return at(t, pr.Doc, "properties", "comments", "items") },
			func() map[string]any { return at(t, pr.Doc, "$defs", "comment") }, "pr"},
		{"absolute id with a pointer into draft-07 definitions", func() map[string]any { return at(t, pr.Doc, "properties", "reviewer") },
			func() map[string]any { return at(t, common.Doc, "definitions", "person") }, "pr"},
		{"local definitions, draft-07", func() map[string]any { return at(t, common.Doc, "definitions", "tag") },
			func() map[string]any { return at(t, common.Doc, "definitions", "slug") }, "common"},
		{"another schema's node resolves against its own document", func() map[string]any { return at(t, common.Doc, "definitions", "tag") },
			func() map[string]any { return at(t, common.Doc, "definitions", "slug") }, "pr"},
		{"relative to the schema's $id", func() map[string]any { return at(t, triage.Doc, "properties", "labels", "items") },
			func() map[string]any { return at(t, labels.Doc, "$defs", "label") }, "triage"},
	}
	by := map[string]interface {
		Resolve(map[string]any) map[string]any
	}{"pr": pr, "common": common, "triage": triage}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := by[tt.via].Resolve(tt.node()); !same(got, tt.want()) {
				t.Errorf("Resolve = %v, want %v", got, tt.want())
			}
		})
	}
}

func TestResolve_chainsAnchorsAndFailures(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, `{
		"$defs": {
			"a": {"$ref": "#/$defs/b"},
			"b": {"$ref": "`+testID+`#/$defs/c"},
			"c": {"type": "string"},
			"named": {"$anchor": "thing", "type": "integer"},
			"toAnchor": {"$ref": "#thing"},
			"odd~key/x": {"type": "boolean"},
			"escaped": {"$ref": "#/$defs/odd~0key~1x"},
			"a b%": {"type": "null"},
			"uriEscaped": {"$ref": "#/$defs/a%20b%25"},
			"uriEscapedAbsolute": {"$ref": "`+testID+`#/$defs/a%20b%25"},
			"root": {"$ref": "#"}
		}
	}`)
	defs := at(t, s.Doc, "$defs")
	tests := []struct {
		name string
		node map[string]any
		want map[string]any
	}{
		{"chain of refs", defs["a"].(map[string]any), defs["c"].(map[string]any)},
		{"anchor", defs["toAnchor"].(map[string]any), defs["named"].(map[string]any)},
		{"escaped pointer", defs["escaped"].(map[string]any), defs["odd~key/x"].(map[string]any)},
		{"URI-escaped pointer", defs["uriEscaped"].(map[string]any), defs["a b%"].(map[string]any)},
		{"URI-escaped pointer after a URI", defs["uriEscapedAbsolute"].(map[string]any), defs["a b%"].(map[string]any)},
		{"document root", defs["root"].(map[string]any), s.Doc},
		{"unresolvable", map[string]any{"$ref": "#/$defs/none"}, nil},
		{"outside the registry", map[string]any{"$ref": "https://example.com/x.json"}, nil},
		{"nil", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := s.Resolve(tt.node)
			if tt.want == nil {
				if got != nil {
					t.Errorf("Resolve = %v, want nil", got)
				}
				return
			}
			if !same(got, tt.want) {
				t.Errorf("Resolve = %v, want %v", got, tt.want)
			}
		})
	}
}
