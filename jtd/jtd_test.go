package jtd_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/jtd"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding %s: %v", s, err)
	}
	return v
}

// RFC 8927 section 2: what makes a schema correct, case by case.
func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		schema  string
		wantErr string // "" for a correct schema
	}{
		{"empty", `{}`, ""},
		{"empty with metadata and nullable", `{"metadata": {"description": "x"}, "nullable": true}`, ""},
		{"ref", `{"definitions": {"a": {}}, "ref": "a"}`, ""},
		{"every type", `{"properties": {"a": {"type": "boolean"}, "b": {"type": "float32"}, "c": {"type": "float64"}, "d": {"type": "int8"}, "e": {"type": "uint8"}, "f": {"type": "int16"}, "g": {"type": "uint16"}, "h": {"type": "int32"}, "i": {"type": "uint32"}, "j": {"type": "string"}, "k": {"type": "timestamp"}}}`, ""},
		{"enum", `{"enum": ["a", "b"]}`, ""},
		{"elements", `{"elements": {"type": "string"}}`, ""},
		{"properties and optional", `{"properties": {"a": {}}, "optionalProperties": {"b": {}}, "additionalProperties": true}`, ""},
		{"optional only", `{"optionalProperties": {"b": {}}}`, ""},
		{"values", `{"values": {"type": "uint8"}}`, ""},
		{"discriminator", `{"discriminator": "kind", "mapping": {"a": {"properties": {"x": {}}}, "b": {"optionalProperties": {}}}}`, ""},
		{"recursive through properties", `{"definitions": {"node": {"optionalProperties": {"next": {"ref": "node"}}}}, "ref": "node"}`, ""},

		{"not an object", `[]`, "a schema must be a JSON object"},
		{"unknown keyword", `{"type": "string", "format": "email"}`, `unknown keyword "format"`},
		{"definitions below the root", `{"properties": {"a": {"definitions": {}}}}`, `at /properties/a/definitions: "definitions" is allowed only at the root`},
		{"ref to nothing", `{"definitions": {"a": {}}, "ref": "b"}`, `ref "b" names no definition`},
		{"ref without definitions", `{"ref": "a"}`, `ref "a" names no definition`},
		{"ref in a definition to nothing", `{"definitions": {"a": {"ref": "b"}}}`, `at /definitions/a/ref`},
		{"bad type", `{"type": "int64"}`, `"type" must be one of`},
		{"empty enum", `{"enum": []}`, "non-empty array of strings"},
		{"enum of numbers", `{"enum": [1]}`, "strings only"},
		{"enum repeats", `{"enum": ["a", "a"]}`, `repeats "a"`},
		{"enum repeats, RFC 8927 2.2.4 example", `{"enum": ["a\\b", "a\u005Cb"]}`, `repeats "a\\b"`},
		{"two forms", `{"type": "string", "enum": ["a"]}`, "do not make one of the forms"},
		{"additionalProperties alone", `{"additionalProperties": true}`, "do not make one of the forms"},
		{"shared property", `{"properties": {"a": {}}, "optionalProperties": {"a": {}}}`, `"a" is both in properties and in optionalProperties`},
		{"nullable not boolean", `{"nullable": "yes"}`, `"nullable" must be a boolean`},
		{"metadata not object", `{"metadata": 1}`, `"metadata" must be an object`},
		{"discriminator without mapping", `{"discriminator": "k"}`, "do not make one of the forms"},
		{"mapping not properties", `{"discriminator": "k", "mapping": {"a": {"type": "string"}}}`, "must be of the properties form, not type"},
		{"mapping nullable", `{"discriminator": "k", "mapping": {"a": {"properties": {}, "nullable": true}}}`, `must not be "nullable"`},
		{"mapping redeclares the tag", `{"discriminator": "k", "mapping": {"a": {"properties": {"k": {}}}}}`, `must not declare the discriminator "k"`},
		{"ref cycle", `{"definitions": {"a": {"ref": "b"}, "b": {"ref": "a"}}, "ref": "a"}`, "leads back to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := jtd.Parse([]byte(tt.schema))
			if tt.wantErr == "" {
				if err != nil || s == nil {
					t.Fatalf("Parse = %v", err)
				}
				return
			}
			if !errors.Is(err, jtd.ErrInvalidSchema) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want ErrInvalidSchema saying %q", err, tt.wantErr)
			}
		})
	}
}

// RFC 8927 section 3.3: each form's acceptance and its error indicators
// (instancePath, schemaPath as JSON Pointers).
func TestValidate_errorIndicators(t *testing.T) {
	t.Parallel()
	const coords = `{"definitions": {"coordinates": {"properties": {"lat": {"type": "float32"}, "lng": {"type": "float32"}}}},
		"properties": {"userLoc": {"ref": "coordinates"}, "serverLoc": {"ref": "coordinates"}}}`
	const disc = `{"discriminator": "version", "mapping": {
		"v1": {"properties": {"a": {"type": "float32"}}},
		"v2": {"properties": {"a": {"type": "string"}}}}}`
	// RFC 8927 section 3.3.8's worked example.
	const events = `{"discriminator": "event_type", "mapping": {
		"account_deleted": {"properties": {"account_id": {"type": "string"}}},
		"account_payment_plan_changed": {"properties": {"account_id": {"type": "string"}, "payment_plan": {"enum": ["FREE", "PAID"]}},
			"optionalProperties": {"upgraded_by": {"type": "string"}}}}}`
	tests := []struct {
		name     string
		schema   string
		instance string
		want     [][2]string // {instancePath, schemaPath}
	}{
		{"RFC events: deleted", events, `{"event_type": "account_deleted", "account_id": "abc-123"}`, nil},
		{"RFC events: plan changed", events, `{"event_type": "account_payment_plan_changed", "account_id": "abc-123", "payment_plan": "PAID", "upgraded_by": "users/mkhwarizmi"}`, nil},
		{"RFC events: empty", events, `{}`, [][2]string{{"", "/discriminator"}}},
		{"RFC events: other type", events, `{"event_type": "some_other_event_type"}`, [][2]string{{"/event_type", "/mapping"}}},
		{"RFC events: missing member", events, `{"event_type": "account_deleted"}`, [][2]string{{"", "/mapping/account_deleted/properties/account_id"}}},
		{"RFC events: additional member", events, `{"event_type": "account_payment_plan_changed", "account_id": "abc-123", "payment_plan": "PAID", "xxx": "asdf"}`,
			[][2]string{{"/xxx", "/mapping/account_payment_plan_changed"}}},
		{"RFC elements example", `{"elements": {"type": "float32"}}`, `[1, 2, "foo", 3, "bar"]`, [][2]string{{"/2", "/elements/type"}, {"/4", "/elements/type"}}},
		{"RFC values example", `{"values": {"type": "float32"}}`, `{"a": 1, "b": 2, "c": "foo", "d": 3, "e": "bar"}`, [][2]string{{"/c", "/values/type"}, {"/e", "/values/type"}}},
		{"RFC int8 examples", `{"elements": {"type": "int8"}}`, `[10, 10.0, 1.0e1, 10.5, false]`, [][2]string{{"/3", "/elements/type"}, {"/4", "/elements/type"}}},
		{"empty accepts null", `{}`, `null`, nil},
		{"empty accepts anything", `{}`, `[1, {"a": "b"}]`, nil},
		{"nullable accepts null", `{"type": "string", "nullable": true}`, `null`, nil},
		{"not nullable", `{"type": "string"}`, `null`, [][2]string{{"", "/type"}}},
		{"ref valid", coords, `{"userLoc": {"lat": 50, "lng": -0.5}, "serverLoc": {"lat": -12.3, "lng": 45.6}}`, nil},
		{"ref errors start at the definition", coords, `{"userLoc": {"lat": "50", "lng": -0.5}, "serverLoc": {"lat": -12.3, "lng": false}}`,
			[][2]string{{"/serverLoc/lng", "/definitions/coordinates/properties/lng/type"}, {"/userLoc/lat", "/definitions/coordinates/properties/lat/type"}}},
		{"nullable ref", `{"definitions": {"a": {"type": "string"}}, "ref": "a", "nullable": true}`, `null`, nil},
		{"boolean", `{"type": "boolean"}`, `"true"`, [][2]string{{"", "/type"}}},
		{"float64 any number", `{"type": "float64"}`, `1e300`, nil},
		{"int8 with zero fraction", `{"type": "int8"}`, `3.0`, nil},
		{"int8 exponent", `{"type": "int8"}`, `1.2e1`, nil},
		{"int8 fraction", `{"type": "int8"}`, `3.5`, [][2]string{{"", "/type"}}},
		{"int8 too small", `{"type": "int8"}`, `-129`, [][2]string{{"", "/type"}}},
		{"uint8 max", `{"type": "uint8"}`, `255`, nil},
		{"uint8 too large", `{"type": "uint8"}`, `256`, [][2]string{{"", "/type"}}},
		{"uint8 negative", `{"type": "uint8"}`, `-1`, [][2]string{{"", "/type"}}},
		{"int16 bounds", `{"elements": {"type": "int16"}}`, `[-32768, 32767, 32768]`, [][2]string{{"/2", "/elements/type"}}},
		{"uint16 bounds", `{"elements": {"type": "uint16"}}`, `[0, 65535, 65536]`, [][2]string{{"/2", "/elements/type"}}},
		{"int32 bounds", `{"elements": {"type": "int32"}}`, `[-2147483648, 2147483647, 2147483648]`, [][2]string{{"/2", "/elements/type"}}},
		{"uint32 bounds", `{"elements": {"type": "uint32"}}`, `[4294967295, 4294967296]`, [][2]string{{"/1", "/elements/type"}}},
		{"string", `{"type": "string"}`, `1`, [][2]string{{"", "/type"}}},
		{"timestamps", `{"elements": {"type": "timestamp"}}`,
			`["1985-04-12T23:20:50.52Z", "1996-12-19T16:39:57-08:00", "1990-12-31T23:59:60Z", "1990-12-31T15:59:60-08:00", "1937-01-01T12:00:27.87+00:20"]`, nil},
		// RFC 8927 3.3.3: RFC 3339 "as refined by Section 3.3 of RFC 4287",
		// which wants "T" and "Z" uppercase.
		{"lowercase t and z", `{"elements": {"type": "timestamp"}}`, `["1990-12-31t15:59:60-08:00", "1985-04-12T23:20:50.52z"]`,
			[][2]string{{"/0", "/elements/type"}, {"/1", "/elements/type"}}},
		{"bad timestamps", `{"elements": {"type": "timestamp"}}`,
			`["1985-04-12", "1985-13-12T23:20:50Z", "2021-02-29T00:00:00Z", "1985-04-12T23:20:50", 0]`,
			[][2]string{{"/0", "/elements/type"}, {"/1", "/elements/type"}, {"/2", "/elements/type"}, {"/3", "/elements/type"}, {"/4", "/elements/type"}}},
		{"enum", `{"enum": ["PENDING", "DONE"]}`, `"DONE"`, nil},
		{"enum miss", `{"enum": ["PENDING", "DONE"]}`, `"done"`, [][2]string{{"", "/enum"}}},
		{"enum not a string", `{"enum": ["PENDING"]}`, `1`, [][2]string{{"", "/enum"}}},
		{"elements not array", `{"elements": {"type": "string"}}`, `{}`, [][2]string{{"", "/elements"}}},
		{"elements each", `{"elements": {"type": "string"}}`, `["a", 1, "b", null]`, [][2]string{{"/1", "/elements/type"}, {"/3", "/elements/type"}}},
		{"properties not object", `{"properties": {"a": {}}}`, `[]`, [][2]string{{"", "/properties"}}},
		{"optionalProperties not object", `{"optionalProperties": {"a": {}}}`, `"x"`, [][2]string{{"", "/optionalProperties"}}},
		{"missing required", `{"properties": {"name": {"type": "string"}, "age": {"type": "uint8"}}}`, `{"name": "x"}`,
			[][2]string{{"", "/properties/age"}}},
		{"optional absent is fine", `{"optionalProperties": {"a": {"type": "string"}}}`, `{}`, nil},
		{"optional wrong", `{"optionalProperties": {"a": {"type": "string"}}}`, `{"a": 1}`, [][2]string{{"/a", "/optionalProperties/a/type"}}},
		{"additional refused", `{"properties": {"a": {}}}`, `{"a": 1, "b": 2, "c": 3}`, [][2]string{{"/b", ""}, {"/c", ""}}},
		{"additional refused, optional only", `{"optionalProperties": {"a": {}}}`, `{"b": 2}`, [][2]string{{"/b", ""}}},
		{"additional allowed", `{"properties": {"a": {}}, "additionalProperties": true}`, `{"a": 1, "b": 2}`, nil},
		{"nested additional", `{"properties": {"a": {"properties": {}}}}`, `{"a": {"x": 1}}`, [][2]string{{"/a/x", "/properties/a"}}},
		{"RFC 8927 3.3.6 example", `{"properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "optionalProperties": {"c": {"type": "string"}, "d": {"type": "string"}}}`,
			`{"b": 3, "c": 3, "e": 3}`, [][2]string{{"", "/properties/a"}, {"/b", "/properties/b/type"}, {"/c", "/optionalProperties/c/type"}, {"/e", ""}}},
		{"RFC 8927 3.3.6 example, additionalProperties", `{"properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "optionalProperties": {"c": {"type": "string"}, "d": {"type": "string"}}, "additionalProperties": true}`,
			`{"b": 3, "c": 3, "e": 3}`, [][2]string{{"", "/properties/a"}, {"/b", "/properties/b/type"}, {"/c", "/optionalProperties/c/type"}}},
		{"values", `{"values": {"type": "uint8"}}`, `{"a": 1, "b": 300}`, [][2]string{{"/b", "/values/type"}}},
		{"values not object", `{"values": {}}`, `[]`, [][2]string{{"", "/values"}}},
		{"discriminator valid", disc, `{"version": "v2", "a": "x"}`, nil},
		{"discriminator not object", disc, `"v1"`, [][2]string{{"", "/discriminator"}}},
		{"discriminator tag missing", disc, `{"a": 1}`, [][2]string{{"", "/discriminator"}}},
		{"discriminator tag not string", disc, `{"version": 1}`, [][2]string{{"/version", "/discriminator"}}},
		{"discriminator tag not in mapping", disc, `{"version": "v3"}`, [][2]string{{"/version", "/mapping"}}},
		{"discriminator branch errors", disc, `{"version": "v1", "a": "x", "b": 1}`,
			[][2]string{{"/a", "/mapping/v1/properties/a/type"}, {"/b", "/mapping/v1"}}},
		{"nullable discriminator", `{"discriminator": "k", "mapping": {"a": {"properties": {}}}, "nullable": true}`, `null`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := jtd.Parse([]byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			errs, err := s.Validate(decode(t, tt.instance), jtd.ValidateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got [][2]string
			for _, e := range errs {
				got = append(got, [2]string{pointer(e.InstancePath), pointer(e.SchemaPath)})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("errors = %v, want %v", got, tt.want)
			}
		})
	}
}

func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteString("/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}

// RFC 8927 section 3.1: maxErrors and maxDepth.
func TestValidate_limits(t *testing.T) {
	t.Parallel()
	s, err := jtd.Parse([]byte(`{"elements": {"type": "string"}}`))
	if err != nil {
		t.Fatal(err)
	}
	errs, err := s.Validate(decode(t, `[1, 2, 3, 4]`), jtd.ValidateOptions{MaxErrors: 2})
	if err != nil || len(errs) != 2 {
		t.Fatalf("maxErrors 2: %v, %v", errs, err)
	}
	deep, err := jtd.Parse([]byte(`{"definitions": {"l": {"elements": {"ref": "l"}}}, "ref": "l"}`))
	if err != nil {
		t.Fatal(err)
	}
	nested := strings.Repeat("[", 40) + strings.Repeat("]", 40)
	if _, err := deep.Validate(decode(t, nested), jtd.ValidateOptions{MaxDepth: 32}); !errors.Is(err, jtd.ErrMaxDepth) {
		t.Fatalf("maxDepth: err = %v", err)
	}
	if errs, err := deep.Validate(decode(t, nested), jtd.ValidateOptions{MaxDepth: 64}); err != nil || errs != nil {
		t.Fatalf("within maxDepth: %v, %v", errs, err)
	}
}

// Indicators become contract violations: JSONPath, keyword, expected and
// received.
func TestViolations(t *testing.T) {
	t.Parallel()
	s, err := jtd.Parse([]byte(`{"properties": {
		"severity": {"enum": ["low", "high"]},
		"line": {"type": "uint32"},
		"tags": {"elements": {"type": "string"}},
		"event": {"discriminator": "kind", "mapping": {"a": {"properties": {}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	vs := s.Violations(decode(t, `{"severity": "critical", "tags": ["a", 2], "event": {"kind": "b"}, "extra": 1, "odd key": 2}`))
	got, _ := json.Marshal(vs)
	want := `[{"path":"$.event.kind","keyword":"mapping","expected":["a"],"received":"b","message":"value must be one of \"a\""},` +
		`{"path":"$.extra","keyword":"additionalProperties","message":"member is not allowed"},` +
		`{"path":"$.line","keyword":"properties","message":"required member is missing"},` +
		`{"path":"$.severity","keyword":"enum","expected":["low","high"],"received":"critical","message":"value must be one of \"low\", \"high\""},` +
		`{"path":"$.tags[1]","keyword":"type","expected":"string","received":2,"message":"value must be a string"},` +
		`{"path":"$['odd key']","keyword":"additionalProperties","message":"member is not allowed"}]`
	if string(got) != want {
		t.Errorf("violations:\n%s\nwant:\n%s", got, want)
	}
	if vs := s.Violations(decode(t, `{"severity": "low", "line": 3, "tags": [], "event": {"kind": "a"}}`)); vs != nil {
		t.Errorf("valid instance: %v", vs)
	}
}

func BenchmarkViolations(b *testing.B) {
	s, err := jtd.Parse([]byte(`{"definitions": {"c": {"properties": {"file": {"type": "string"}, "line": {"type": "uint32"},
		"severity": {"enum": ["nitpick", "suggestion", "concern", "blocker"]}}}},
		"properties": {"summary": {"type": "string"}, "at": {"type": "timestamp"}, "comments": {"elements": {"ref": "c"}}}}`))
	if err != nil {
		b.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(`{"summary": "s", "at": "2026-11-24T10:00:00Z", "comments": [
		{"file": "a.go", "line": 1, "severity": "nitpick"}, {"file": "b.go", "line": 2, "severity": "blocker"},
		{"file": "c.go", "line": 3, "severity": "concern"}]}`))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if vs := s.Violations(doc); vs != nil {
			b.Fatal(vs)
		}
	}
}
