package schemas_test

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSchema_ForModel(t *testing.T) {
	t.Parallel()
	r, err := inlineAgents(t, map[string]string{
		"schemas/common.schema.json": `{"$schema": "http://json-schema.org/draft-07/schema#", "$id": "https://t.dev/common/1.0.0",
			"definitions": {"person": {"type": "object", "properties": {"name": {"type": "string"}, "tag": {"$ref": "#/definitions/tag"}}},
				"tag": {"type": "string", "x-note": "internal"},
				"odd name%": {"type": "object", "properties": {"m": {"type": "integer"}}}}}`,
	}, map[string]string{
		"a": `{"$id": "https://t.dev/a", "$schema": "https://json-schema.org/draft/2020-12/schema", "$comment": "for people",
			"type": "object", "required": ["priority"],
			"properties": {
				"priority": {"enum": ["low", "high"], "x-aliases": ["prio"]},
				"x-trace": {"type": "string"},
				"author": {"$ref": "https://t.dev/common/1.0.0#/definitions/person"},
				"reviewer": {"$ref": "https://t.dev/common/1.0.0#/definitions/person"},
				"node": {"$ref": "#/$defs/node"},
				"anchored": {"$ref": "#n"},
				"odd": {"$ref": "https://t.dev/common/1.0.0#/definitions/odd%20name%25"},
				"spaced": {"$ref": "#/$defs/a%20b~1c"}},
			"$defs": {"node": {"$anchor": "n", "type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}},
				"a b/c": {"type": "object", "properties": {"m": {"type": "boolean"}, "again": {"$ref": "#/$defs/a%20b~1c"}}}}}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	bp, _ := r.Blueprint("a")
	s := bp.OutputSchema
	got, _ := json.Marshal(s.ForModel())
	text := string(got)
	for _, gone := range []string{"x-aliases", "x-note", `"$id"`, `"$schema"`, "$comment", "https://t.dev"} {
		if strings.Contains(text, gone) {
			t.Errorf("ForModel still holds %s: %s", gone, text)
		}
	}
	for _, kept := range []string{`"x-trace":{"type":"string"}`, `"author":{"$ref":"#/$defs/person"}`, `"reviewer":{"$ref":"#/$defs/person"}`,
		`"person":{"properties":{"name":{"type":"string"},"tag":{"$ref":"#/$defs/tag"}},"type":"object"}`,
		`"tag":{"type":"string"}`, `"node":{"$ref":"#/$defs/node"}`} {
		if !strings.Contains(text, kept) {
			t.Errorf("ForModel lacks %s: %s", kept, text)
		}
	}
	if !strings.Contains(string(s.Raw), "x-aliases") {
		t.Error("the registry lost the original")
	}
	sub, _ := json.Marshal(s.SubSchemaForModel("$.author"))
	if !strings.Contains(string(sub), `"name":{"type":"string"}`) {
		t.Errorf("SubSchemaForModel($.author) = %s", sub)
	}
	// A sub-schema carries the definitions it refers to.
	if sub, _ := json.Marshal(s.SubSchemaForModel("$.node")); !strings.Contains(string(sub), `"$defs":{"node":{`) {
		t.Errorf("SubSchemaForModel($.node) = %s", sub)
	}
	if sub := s.SubSchemaForModel("$.node.next"); sub == nil {
		t.Error("SubSchemaForModel($.node.next) = nil")
	}
	// Names that need escaping in a pointer or a URI: a bundled target is
	// renamed so that its $ref needs none, and a local one is found
	// through its escapes.
	if !strings.Contains(text, `"odd":{"$ref":"#/$defs/odd_name_"}`) {
		t.Errorf("ForModel: the bundled target of an escaped $ref is not under a plain name: %s", text)
	}
	for path, want := range map[string]string{"$.odd.m": `{"type":"integer"}`, "$.spaced.m": `{"type":"boolean"}`} {
		if sub, _ := json.Marshal(s.SubSchemaForModel(path)); string(sub) != want {
			t.Errorf("SubSchemaForModel(%s) = %s, want %s", path, sub, want)
		}
	}
	if sub, _ := json.Marshal(s.SubSchemaForModel("$.spaced")); !strings.Contains(string(sub), `"$defs":{"a b/c":{`) {
		t.Errorf("SubSchemaForModel($.spaced) = %s: want the definition it refers to", sub)
	}
	if sub := s.SubSchemaForModel("$.nope"); sub != nil {
		t.Errorf("SubSchemaForModel($.nope) = %v", sub)
	}
}
