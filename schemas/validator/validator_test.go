package validator_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/schemas/validator"
)

func decode(t *testing.T, raw string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// The seam's round trip: check, compile, validate, violations.
func TestCompileValidate(t *testing.T) {
	raw := `{"type": "object", "required": ["a"], "properties": {"a": {"type": "string", "pattern": "^(?=x)"}}}`
	c := validator.New(validator.Options{})
	src, err := c.Check([]byte(raw), decode(t, raw))
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(src, "urn:test:x")
	if err != nil {
		t.Fatal(err)
	}
	if vs := s.Validate(decode(t, `{"a": "xy"}`)); vs != nil || !s.Valid(decode(t, `{"a": "xy"}`)) {
		t.Fatalf("valid document: %v", vs)
	}
	vs := s.Validate(decode(t, `{"a": "y"}`))
	if len(vs) != 1 || vs[0].Path != "$.a" || vs[0].Keyword != "pattern" || vs[0].Expected != "^(?=x)" {
		t.Fatalf("violations = %+v, want one pattern violation at $.a (the ECMA-262 route)", vs)
	}
	if vs := s.Validate(decode(t, `{}`)); len(vs) != 1 || vs[0].Path != "$.a" || vs[0].Keyword != "required" {
		t.Fatalf("violations = %+v, want required at $.a", vs)
	}
}

func TestErrors(t *testing.T) {
	c := validator.New(validator.Options{})
	check := func(raw string) (*validator.Source, error) { return c.Check([]byte(raw), decode(t, raw)) }

	_, err := check(`{"type": "strnig"}`)
	var meta *validator.MetaSchemaError
	if !errors.As(err, &meta) || !errors.Is(err, validator.ErrMetaSchema) || !strings.Contains(meta.Summary(), "$.type") {
		t.Fatalf("meta-schema failure: %v", err)
	}
	if _, err := check(`{"patternProperties": {"^(?=a)": {}}}`); !errors.Is(err, validator.ErrUnsupportedPattern) {
		t.Fatalf("lookahead patternProperties: %v, want ErrUnsupportedPattern", err)
	}

	src, err := check(`{"$ref": "https://elsewhere.example/x"}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compile(src, ""); !errors.Is(err, validator.ErrUnresolvedRef) {
		t.Fatalf("external $ref: %v, want ErrUnresolvedRef", err)
	}
	// A compiler that serves documents knows which are outside them.
	c.Serve(nil, nil)
	if _, err := c.Compile(src, ""); !errors.Is(err, validator.ErrUnresolvedRef) || !errors.Is(err, validator.ErrExternalRef) {
		t.Fatalf("external $ref with Serve: %v, want ErrUnresolvedRef and ErrExternalRef", err)
	}
}

// Serve makes a $ref reach a document the compiler was given, and nothing
// else.
func TestServe(t *testing.T) {
	c := validator.New(validator.Options{})
	common := `{"$id": "https://t.dev/common/1.0.0", "type": "string"}`
	src, err := c.Check([]byte(common), decode(t, common))
	if err != nil {
		t.Fatal(err)
	}
	c.Serve(map[string]*validator.Source{"https://t.dev/common/1.0.0": src}, nil)
	s, err := c.CompileID("https://t.dev/common/1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if s.ID() != "https://t.dev/common/1.0.0" || s.Valid(json.Number("1")) {
		t.Fatalf("served schema: id %q, valid(1) %v", s.ID(), s.Valid(json.Number("1")))
	}
	raw := `{"$ref": "https://t.dev/common/1.0.0"}`
	user, err := c.Check([]byte(raw), decode(t, raw))
	if err != nil {
		t.Fatal(err)
	}
	u, err := c.Compile(user, "urn:test:user")
	if err != nil {
		t.Fatal(err)
	}
	if !u.Valid("x") || u.Valid(true) {
		t.Fatal("the $ref to a served document does not validate through it")
	}
}
