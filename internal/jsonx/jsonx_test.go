package jsonx_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/jsonx"
)

func decode(t *testing.T, text string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding %s: %v", text, err)
	}
	return v
}

func TestEqual(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("9", 100)
	tests := []struct {
		name string
		a, b any
		want bool
	}{
		{"null", nil, nil, true},
		{"null is not false", nil, false, false},
		{"booleans", true, true, true},
		{"strings", "a", "a", true},
		{"a string is not a number", "1", json.Number("1"), false},
		{"a number is not a string", json.Number("1"), "1", false},
		{"1 and 1.0", json.Number("1"), json.Number("1.0"), true},
		{"1 and 1e0", json.Number("1"), json.Number("1e0"), true},
		{"10 and 1e1", json.Number("10"), json.Number("1E+1"), true},
		{"0.5 and 5e-1", json.Number("0.5"), json.Number("5e-1"), true},
		{"-0 and 0", json.Number("-0"), json.Number("0"), true},
		{"1 and -1", json.Number("1"), json.Number("-1"), false},
		{"json.Number and float64", json.Number("1.5"), 1.5, true},
		{"float64 and json.Number", 100.0, json.Number("1e2"), true},
		{"int and json.Number", 3, json.Number("3.00"), true},
		{"past 2^53, by digits", json.Number("9007199254740993"), json.Number("9007199254740992"), false},
		{"long numbers by value", json.Number(big), json.Number(big + ".0"), true},
		{"long numbers that differ", json.Number(big + "8"), json.Number(big + "9"), false},
		{"huge exponent: same text", json.Number("1e2000000000"), json.Number("1e2000000000"), true},
		{"huge exponent: other text", json.Number("1e2000000000"), json.Number("10e1999999999"), false},
		{"not a number", json.Number("abc"), json.Number("abc"), false},
		{"NaN", nanFloat(), nanFloat(), false},
		{"arrays", decode(t, `[1, "a", [true]]`), decode(t, `[1.0, "a", [true]]`), true},
		{"arrays in order", decode(t, `[1, 2]`), decode(t, `[2, 1]`), false},
		{"arrays of other length", decode(t, `[1]`), decode(t, `[1, 1]`), false},
		{"objects whatever the order", decode(t, `{"a": 1, "b": {"c": null}}`), decode(t, `{"b": {"c": null}, "a": 1e0}`), true},
		{"objects with other members", decode(t, `{"a": 1}`), decode(t, `{"b": 1}`), false},
		{"an object is not an array", decode(t, `{}`), decode(t, `[]`), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := jsonx.Equal(tt.a, tt.b); got != tt.want {
				t.Errorf("Equal(%#v, %#v) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := jsonx.Equal(tt.b, tt.a); got != tt.want {
				t.Errorf("Equal(%#v, %#v) = %v, want %v (not symmetric)", tt.b, tt.a, got, tt.want)
			}
		})
	}
}

func nanFloat() float64 {
	zero := 0.0
	return zero / zero
}

func TestTypeName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v             any
		number, apart string
	}{
		{nil, "null", "null"},
		{true, "boolean", "boolean"},
		{"1", "string", "string"},
		{[]any{}, "array", "array"},
		{map[string]any{}, "object", "object"},
		{json.Number("1"), "number", "integer"},
		{json.Number("1.0"), "number", "integer"},
		{json.Number("1e3"), "number", "integer"},
		{json.Number("1.5"), "number", "number"},
		{json.Number("1e-1"), "number", "number"},
		{json.Number("1e2000000000"), "number", "number"},
		{2.0, "number", "integer"},
		{2.5, "number", "number"},
		{int64(7), "number", "integer"},
		{map[string]string{}, "map[string]string", "map[string]string"},
	}
	for _, tt := range tests {
		if got := jsonx.TypeName(tt.v, jsonx.Number); got != tt.number {
			t.Errorf("TypeName(%#v, Number) = %q, want %q", tt.v, got, tt.number)
		}
		if got := jsonx.TypeName(tt.v, jsonx.IntegerApart); got != tt.apart {
			t.Errorf("TypeName(%#v, IntegerApart) = %q, want %q", tt.v, got, tt.apart)
		}
	}
}

func TestIntegral(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text           string
		integral, isOK bool
	}{
		{"0", true, true}, {"-12", true, true}, {"4.0", true, true}, {"4.20e1", true, true},
		{"1e3", true, true}, {"1.5", false, true}, {"1e-1", false, true}, {"100e-2", true, true},
		{"1e1000000001", false, false}, {"1e99999999999999999999", false, false},
	}
	for _, tt := range tests {
		integral, ok := jsonx.Integral(tt.text)
		if integral != tt.integral || ok != tt.isOK {
			t.Errorf("Integral(%q) = %v, %v; want %v, %v", tt.text, integral, ok, tt.integral, tt.isOK)
		}
	}
}

func TestPointer(t *testing.T) {
	t.Parallel()
	doc := decode(t, `{"a": {"b/c": [10, {"d~e": null}]}, "": 1}`)
	tests := []struct {
		ptr  string
		want string // compact JSON; "" when it points at nothing
	}{
		{"", `{"":1,"a":{"b/c":[10,{"d~e":null}]}}`},
		{"/a/b~1c/0", `10`},
		{"/a/b~1c/1/d~0e", `null`},
		{"/", `1`},
		{"/a/b~1c/2", ""},
		{"/x", ""},
		{"/a/b~1c/x", ""},
	}
	for _, tt := range tests {
		v, ok := jsonx.Pointer(doc, tt.ptr)
		got := ""
		if ok {
			b, _ := json.Marshal(v)
			got = string(b)
		}
		if got != tt.want {
			t.Errorf("Pointer(%q) = %s (%v), want %s", tt.ptr, got, ok, tt.want)
		}
	}
}

func TestAnchor(t *testing.T) {
	t.Parallel()
	doc := decode(t, `{"$defs": {"b": {"$anchor": "x", "n": 2}, "a": {"$anchor": "x", "n": 1}, "c": {"$id": "#old"}}, "items": [{"$anchor": "y"}]}`)
	tests := []struct {
		name string
		want string
	}{
		{"x", `{"$anchor":"x","n":1}`}, // declared twice: the first in sorted order
		{"old", `{"$id":"#old"}`},
		{"y", `{"$anchor":"y"}`},
		{"none", `null`},
	}
	for _, tt := range tests {
		b, _ := json.Marshal(jsonx.Anchor(doc, tt.name))
		if string(b) != tt.want {
			t.Errorf("Anchor(%q) = %s, want %s", tt.name, b, tt.want)
		}
	}
}

func TestAnnotation(t *testing.T) {
	for kw, want := range map[string]bool{
		"title": true, "description": true, "$comment": true, "$defs": true, "contentSchema": true, "$id": true,
		// Assertions, and anchors a dynamic reference resolves against.
		"type": false, "const": false, "$ref": false, "$dynamicAnchor": false, "$recursiveAnchor": false,
		"then": false, "x-aliases": false, "": false,
	} {
		if got := jsonx.Annotation(kw); got != want {
			t.Errorf("Annotation(%q) = %v, want %v", kw, got, want)
		}
	}
}

func TestFragment(t *testing.T) {
	doc := decode(t, `{"$defs": {"a b%": {"type": "null"}, "x/y": {"type": "string"}, "n": {"$anchor": "named", "type": "integer"},
		"a%2": {"type": "boolean"}}}`)
	defs := doc.(map[string]any)["$defs"].(map[string]any)
	tests := []struct {
		frag string
		want any
	}{
		{"", doc},
		{"/$defs/a%20b%25", defs["a b%"]},
		{"/$defs/x~1y", defs["x/y"]},
		{"named", defs["n"]},
		{"/$defs/none", nil},
		{"nameless", nil},
		{"/$defs/a%2", defs["a%2"]}, // a bad escape is taken as written
	}
	for _, tt := range tests {
		if got := jsonx.Fragment(doc, tt.frag); !jsonx.Equal(got, tt.want) {
			t.Errorf("Fragment(%q) = %v, want %v", tt.frag, got, tt.want)
		}
	}
}
