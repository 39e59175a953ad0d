package compat_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/schemas/compat"
)

// change is a wanted change: "breaking|compatible path keyword: message prefix".
func render(c compat.Change) string {
	kind := "compatible"
	if c.Breaking {
		kind = "breaking"
	}
	return fmt.Sprintf("%s %s %s: %s", kind, c.Path, c.Keyword, c.Message)
}

func TestCompare(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		old, new string // schema bodies; {} wraps nothing
		want     []string
	}{
		{"identical", `{"type": "string"}`, `{"type": "string"}`, nil},
		{"annotations only", `{"title": "a", "description": "b", "x-aliases": ["c"]}`, `{"title": "x", "examples": [1]}`, nil},
		{"added required member", `{"properties": {"a": {}}}`, `{"properties": {"a": {}, "b": {}}, "required": ["b"]}`,
			[]string{"breaking $.b required: added required member"}},
		{"optional member made required", `{"properties": {"a": {}}}`, `{"properties": {"a": {}}, "required": ["a"]}`,
			[]string{"breaking $.a required: optional member made required"}},
		{"required member made optional", `{"properties": {"a": {}}, "required": ["a"]}`, `{"properties": {"a": {}}}`,
			[]string{"compatible $.a required: member is optional now"}},
		{"added optional member", `{"properties": {"a": {}}}`, `{"properties": {"a": {}, "b": {"type": "string"}}}`,
			[]string{"compatible $.b properties: added optional member"}},
		{"removed property", `{"properties": {"a": {}, "b": {}}}`, `{"properties": {"a": {}}}`,
			[]string{"breaking $.b properties: property removed"}},
		{"narrowed type", `{"type": ["string", "null"]}`, `{"type": "string"}`, []string{"breaking $ type: type narrowed: null no longer allowed"}},
		{"widened type", `{"type": "integer"}`, `{"type": "number"}`, []string{"compatible $ type: type widened: number now allowed"}},
		{"number to integer", `{"type": "number"}`, `{"type": "integer"}`, []string{"breaking $ type: type narrowed: number no longer allowed"}},
		{"type added", `{}`, `{"type": "object"}`, []string{"breaking $ type: type narrowed: array, boolean, null, number, string no longer allowed"}},
		{"narrowed enum", `{"enum": ["a", "b", "c"]}`, `{"enum": ["a", "b"]}`, []string{`breaking $ enum: enum narrowed: "c" no longer allowed`}},
		{"widened enum", `{"enum": ["a"]}`, `{"enum": ["a", "b"]}`, []string{`compatible $ enum: enum widened: "b" now allowed`}},
		{"enum reordered, numbers respelled", `{"enum": [1, "a"]}`, `{"enum": ["a", 1.0]}`, nil},
		{"const to enum", `{"const": "a"}`, `{"enum": ["a", "b"]}`, []string{`compatible $ enum: enum widened: "b" now allowed`}},
		{"enum added", `{"type": "string"}`, `{"type": "string", "enum": ["a"]}`, []string{`breaking $ enum: values narrowed to "a"`}},
		{"enum removed", `{"enum": ["a"]}`, `{}`, []string{`compatible $ enum: values no longer restricted`}},
		{"tightened maximum", `{"maximum": 10}`, `{"maximum": 5}`, []string{"breaking $ maximum: maximum tightened from 10 to 5"}},
		{"loosened minimum", `{"minimum": 1}`, `{"minimum": 0}`, []string{"compatible $ minimum: minimum loosened from 1 to 0"}},
		{"inclusive to exclusive", `{"minimum": 1}`, `{"exclusiveMinimum": 1}`, []string{"breaking $ minimum: minimum tightened from 1 to exclusive 1"}},
		{"bound added", `{}`, `{"maxLength": 5}`, []string{"breaking $ maxLength: maxLength added: 5"}},
		{"bound removed", `{"maxItems": 5}`, `{}`, []string{"compatible $ maxItems: maxItems removed (was 5)"}},
		{"tightened minItems", `{"minItems": 1}`, `{"minItems": 2}`, []string{"breaking $ minItems: minItems tightened from 1 to 2"}},
		{"same bound respelled", `{"maximum": 5}`, `{"maximum": 5.0}`, nil},
		{"multipleOf loosened", `{"multipleOf": 4}`, `{"multipleOf": 2}`, []string{"compatible $ multipleOf: multipleOf loosened from 4 to 2"}},
		{"multipleOf changed", `{"multipleOf": 2}`, `{"multipleOf": 3}`, []string{"breaking $ multipleOf: multipleOf changed from 2 to 3"}},
		{"closed object", `{"properties": {"a": {}}}`, `{"properties": {"a": {}}, "additionalProperties": false}`,
			[]string{"breaking $ additionalProperties: object closed"}},
		{"opened object", `{"additionalProperties": false}`, `{}`, []string{"compatible $ additionalProperties: object opened"}},
		{"additionalProperties schema narrowed", `{"additionalProperties": {"type": ["string", "integer"]}}`, `{"additionalProperties": {"type": "string"}}`,
			[]string{"breaking $.* type: type narrowed: integer no longer allowed"}},
		{"pattern added", `{}`, `{"pattern": "^a"}`, []string{`breaking $ pattern: pattern "^a" added`}},
		{"pattern changed", `{"pattern": "^a"}`, `{"pattern": "^b"}`, []string{`breaking $ pattern: pattern changed from "^a" to "^b": cannot tell`}},
		{"format removed", `{"format": "email"}`, `{}`, []string{`compatible $ format: format "email" removed`}},
		{"uniqueItems added", `{}`, `{"uniqueItems": true}`, []string{"breaking $ uniqueItems: items must now be unique"}},
		{"nested through items and local $ref",
			`{"properties": {"c": {"type": "array", "items": {"$ref": "#/$defs/c"}}}, "$defs": {"c": {"properties": {"s": {"enum": ["x", "y"]}}}}}`,
			`{"properties": {"c": {"type": "array", "items": {"$ref": "#/$defs/c"}}}, "$defs": {"c": {"properties": {"s": {"enum": ["x"]}}}}}`,
			[]string{`breaking $.c[*].s enum: enum narrowed: "y" no longer allowed`}},
		{"draft-07 tuple items", `{"items": [{"type": "string"}], "additionalItems": false}`, `{"items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false}`,
			[]string{"compatible $[1] false: values are allowed now"}},
		{"prefixItems", `{"prefixItems": [{"type": "string"}]}`, `{"prefixItems": [{"type": "integer"}]}`,
			[]string{"breaking $[0] type: type narrowed: string no longer allowed", "compatible $[0] type: type widened: integer now allowed"}},
		{"recursive schema", `{"$defs": {"n": {"properties": {"next": {"$ref": "#/$defs/n"}, "v": {"type": "string"}}}}, "$ref": "#/$defs/n"}`,
			`{"$defs": {"n": {"properties": {"next": {"$ref": "#/$defs/n"}, "v": {"type": "integer"}}}}, "$ref": "#/$defs/n"}`,
			[]string{"breaking $.v type: type narrowed: string no longer allowed", "compatible $.v type: type widened: integer now allowed"}},
		{"external $ref changed", `{"$ref": "https://t.dev/a/1.0.0"}`, `{"$ref": "https://t.dev/a/2.0.0"}`,
			[]string{`breaking $ $ref: $ref changed from "https://t.dev/a/1.0.0" to "https://t.dev/a/2.0.0"`}},
		{"anyOf branch added", `{"anyOf": [{"type": "string"}]}`, `{"anyOf": [{"type": "string"}, {"type": "null"}]}`,
			[]string{"compatible $ anyOf: anyOf went from 1 to 2 branches"}},
		{"allOf branch added", `{"allOf": [{"type": "string"}]}`, `{"allOf": [{"type": "string"}, {"maxLength": 2}]}`,
			[]string{"breaking $ allOf: allOf went from 1 to 2 branches"}},
		{"not added", `{}`, `{"not": {"const": 1}}`, []string{"breaking $ not: not added: cannot tell"}},
		{"false schema", `{"properties": {"a": true}}`, `{"properties": {"a": false}}`, []string{"breaking $.a false: no value is allowed any more"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := compat.Compare([]byte(tt.old), []byte(tt.new))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range r.Changes {
				got = append(got, render(c))
			}
			if len(got) != len(tt.want) {
				t.Fatalf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("change %d:\n%s\nwant it to start with\n%s", i, got[i], tt.want[i])
				}
			}
			if r.Breaking() != strings.Contains(strings.Join(tt.want, "\n"), "breaking") {
				t.Errorf("Breaking() = %v", r.Breaking())
			}
		})
	}
}

func TestReport_versions(t *testing.T) {
	t.Parallel()
	const narrow = `"type": "string"`
	tests := []struct {
		oldID, newID string
		breaking     bool
		wantMajor    bool
		wantOK       bool
	}{
		{"https://t.dev/s/1.2.3", "https://t.dev/s/2.0.0", true, true, true},
		{"https://t.dev/s/1.2.3", "https://t.dev/s/1.3.0", true, false, false},
		{"https://t.dev/s/1.2.3", "https://t.dev/s/1.3.0", false, false, true},
		{"https://t.dev/s/0.1.0", "https://t.dev/s/0.2.0", true, true, true},
		{"https://t.dev/s/0.1.0", "https://t.dev/s/0.1.1", true, false, false},
		{"https://t.dev/s/1.0.0", "https://t.dev/s/2.0.0-rc.1", true, true, true},
		{"https://t.dev/s/latest", "https://t.dev/s/next", true, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.oldID+"->"+tt.newID, func(t *testing.T) {
			t.Parallel()
			newBody := `{"$id": "` + tt.newID + `"}`
			if tt.breaking {
				newBody = `{"$id": "` + tt.newID + `", ` + narrow + `}`
			}
			r, err := compat.Compare([]byte(`{"$id": "`+tt.oldID+`"}`), []byte(newBody))
			if err != nil {
				t.Fatal(err)
			}
			if r.MajorBump() != tt.wantMajor || r.OK() != tt.wantOK {
				t.Errorf("MajorBump %v OK %v, want %v %v (%s -> %s)", r.MajorBump(), r.OK(), tt.wantMajor, tt.wantOK, r.OldVersion, r.NewVersion)
			}
		})
	}
}

func TestCompare_invalid(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{`[]`, `{`, `"s"`, `{} {}`} {
		if _, err := compat.Compare([]byte(doc), []byte(`{}`)); !errors.Is(err, compat.ErrInvalidSchema) {
			t.Errorf("old %s: error %v", doc, err)
		}
		if _, err := compat.Compare([]byte(`{}`), []byte(doc)); !errors.Is(err, compat.ErrInvalidSchema) {
			t.Errorf("new %s: error %v", doc, err)
		}
	}
}
