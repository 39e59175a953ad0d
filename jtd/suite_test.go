package jtd_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/agentgate/agentgate/jtd"
)

// The official JTD test suite (jsontypedef/json-typedef-spec, transcribed in
// testdata/json-typedef-spec with its origin): every invalid schema must be
// refused, and every validation case must give exactly the suite's error
// indicators, compared as a set (Validate has its own stable order: object
// members sorted).
func TestSuite_invalidSchemas(t *testing.T) {
	t.Parallel()
	var cases map[string]json.RawMessage
	readJSON(t, "testdata/json-typedef-spec/invalid_schemas.json", &cases)
	if len(cases) != 48 {
		t.Fatalf("read %d invalid schemas, want 48", len(cases))
	}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := jtd.Parse(raw); !errors.Is(err, jtd.ErrInvalidSchema) {
				t.Fatalf("Parse(%s) = %v, want ErrInvalidSchema", raw, err)
			}
		})
	}
}

func TestSuite_validation(t *testing.T) {
	t.Parallel()
	var cases map[string]struct {
		Schema   json.RawMessage `json:"schema"`
		Instance json.RawMessage `json:"instance"`
		Errors   []struct {
			InstancePath []string `json:"instancePath"`
			SchemaPath   []string `json:"schemaPath"`
		} `json:"errors"`
	}
	readJSON(t, "testdata/json-typedef-spec/validation.json", &cases)
	if len(cases) != 299 {
		t.Fatalf("read %d validation cases, want 299", len(cases))
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err := jtd.Parse(tc.Schema)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			errs, err := s.Validate(decode(t, string(tc.Instance)), jtd.ValidateOptions{})
			if err != nil {
				t.Fatalf("Validate: %v", err)
			}
			var got, want []string
			for _, e := range errs {
				got = append(got, pointer(e.InstancePath)+" "+pointer(e.SchemaPath))
			}
			for _, e := range tc.Errors {
				want = append(want, pointer(e.InstancePath)+" "+pointer(e.SchemaPath))
			}
			slices.Sort(got)
			slices.Sort(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("errors (instancePath schemaPath) = %q, want %q", got, want)
			}
		})
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
