package registry_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/agentgate/agentgate/registry"
)

// doc builds a schema document of version v of .../thing with the given
// properties (name: type) and required members.
func doc(v string, props map[string]string, required ...string) []byte {
	p := "{"
	i := 0
	for name, typ := range props {
		if i > 0 {
			p += ","
		}
		p += fmt.Sprintf("%q:{\"type\":%q}", name, typ)
		i++
	}
	p += "}"
	req := "["
	for i, r := range required {
		if i > 0 {
			req += ","
		}
		req += fmt.Sprintf("%q", r)
	}
	req += "]"
	return fmt.Appendf(nil, `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://example.com/schemas/thing/%s","type":"object","properties":%s,"required":%s}`, v, p, req)
}

func TestCheck_levels(t *testing.T) {
	t.Parallel()
	base := doc("1.0.0", map[string]string{"a": "string", "b": "string"}, "a")
	prior := []registry.Prior{{Version: "1.0.0", Doc: base}}
	// Adding a required member: old outputs may lack it (breaks
	// backward); new outputs are still valid under the old schema.
	addRequired := doc("1.1.0", map[string]string{"a": "string", "b": "string"}, "a", "b")
	// Dropping a requirement: old outputs stay valid (backward), new
	// outputs may lack a member old consumers required (breaks forward).
	dropRequired := doc("1.1.0", map[string]string{"a": "string", "b": "string"})
	// A new description only: compatible both ways.
	same := doc("1.1.0", map[string]string{"a": "string", "b": "string"}, "a")

	tests := []struct {
		level registry.Level
		doc   []byte
		want  bool // compatible
	}{
		{registry.Backward, addRequired, false},
		{registry.Backward, dropRequired, true},
		{registry.Backward, same, true},
		{registry.Forward, addRequired, true},
		{registry.Forward, dropRequired, false},
		{registry.Forward, same, true},
		{registry.Full, addRequired, false},
		{registry.Full, dropRequired, false},
		{registry.Full, same, true},
		{registry.None, addRequired, true},
		{registry.None, dropRequired, true},
		{registry.BackwardTransitive, addRequired, false},
		{registry.BackwardTransitive, dropRequired, true},
		{registry.ForwardTransitive, dropRequired, false},
		{registry.ForwardTransitive, addRequired, true},
		{registry.FullTransitive, same, true},
		{registry.FullTransitive, addRequired, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s", tt.level, tt.doc[len(tt.doc)-20:]), func(t *testing.T) {
			t.Parallel()
			err := registry.Check(tt.level, "https://example.com/schemas/thing", "1.1.0", tt.doc, prior)
			if got := err == nil; got != tt.want {
				t.Fatalf("Check(%s) = %v, want compatible %v", tt.level, err, tt.want)
			}
			var ie *registry.IncompatibleError
			if err != nil && (!errors.As(err, &ie) || len(ie.Changes) == 0 || !errors.Is(err, registry.ErrIncompatible)) {
				t.Fatalf("error %v is not an IncompatibleError with changes", err)
			}
		})
	}
}

// The transitive levels compare with every earlier version of the line,
// the others with the previous one only.
func TestCheck_transitive(t *testing.T) {
	t.Parallel()
	v1 := doc("1.0.0", map[string]string{"a": "string"}, "a")
	v11 := doc("1.1.0", map[string]string{"a": "string", "b": "string"}, "a")      // b optional
	v12 := doc("1.2.0", map[string]string{"a": "string", "b": "string"}, "a", "b") // b required: breaks 1.0.0... and 1.1.0
	v12b := doc("1.2.0", map[string]string{"a": "string"}, "a")                    // drops b: breaks 1.1.0 backward, not 1.0.0
	priors := []registry.Prior{{Version: "1.0.0", Doc: v1}, {Version: "1.1.0", Doc: v11}}
	name := "https://example.com/schemas/thing"
	if err := registry.Check(registry.Backward, name, "1.2.0", v12b, priors); err == nil {
		t.Fatal("BACKWARD: dropping property b of 1.1.0 accepted")
	}
	var ie *registry.IncompatibleError
	err := registry.Check(registry.BackwardTransitive, name, "1.2.0", v12, priors)
	if !errors.As(err, &ie) {
		t.Fatalf("BACKWARD_TRANSITIVE: %v", err)
	}
	against := map[string]bool{}
	for _, c := range ie.Changes {
		against[c.Against] = true
	}
	if !against["1.0.0"] || !against["1.1.0"] {
		t.Fatalf("BACKWARD_TRANSITIVE compared against %v, want 1.0.0 and 1.1.0", against)
	}
}

func TestCheck_majorBumpAndOrder(t *testing.T) {
	t.Parallel()
	name := "https://example.com/schemas/thing"
	v1 := doc("1.0.0", map[string]string{"a": "string"}, "a")
	breaking := doc("2.0.0", map[string]string{"a": "integer"}, "a")
	priors := []registry.Prior{{Version: "1.0.0", Doc: v1}, {Version: "1.3.0", Doc: v1}}
	if err := registry.Check(registry.FullTransitive, name, "2.0.0", breaking, priors); err != nil {
		t.Fatalf("a major bump was refused: %v", err)
	}
	if err := registry.Check(registry.Backward, name, "1.2.0", v1, priors); !errors.Is(err, registry.ErrVersionOrder) {
		t.Fatalf("1.2.0 after 1.3.0: %v, want ErrVersionOrder", err)
	}
	// Below 1.0.0 a minor bump is a major one (semver item 4).
	if err := registry.Check(registry.Backward, name, "0.2.0", breaking, []registry.Prior{{Version: "0.1.0", Doc: v1}}); err != nil {
		t.Fatalf("0.1.0 -> 0.2.0 refused: %v", err)
	}
	if err := registry.Check(registry.Backward, name, "0.1.1", breaking, []registry.Prior{{Version: "0.1.0", Doc: v1}}); !errors.Is(err, registry.ErrIncompatible) {
		t.Fatalf("0.1.0 -> 0.1.1 breaking: %v, want ErrIncompatible", err)
	}
}

func TestParseLevel(t *testing.T) {
	t.Parallel()
	if l, err := registry.ParseLevel("full_transitive"); err != nil || l != registry.FullTransitive {
		t.Fatalf("ParseLevel = %v, %v", l, err)
	}
	if _, err := registry.ParseLevel("SIDEWAYS"); !errors.Is(err, registry.ErrBadLevel) {
		t.Fatalf("ParseLevel(SIDEWAYS) = %v", err)
	}
}
