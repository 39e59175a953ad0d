package rules_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/rules"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestEval(t *testing.T) {
	t.Parallel()
	blocker := rules.Spec{Name: "blocker-has-line", Expr: `output.severity != "blocker" || has(output.line)`,
		Message: "a blocker must name its line", Path: "$.line"}
	order := rules.Spec{Name: "end-after-start", Expr: `timestamp(output.end) > timestamp(output.start)`}
	total := rules.Spec{Name: "total", Expr: `output.total == output.items.map(i, i.price).sum()`, Message: "total must equal the sum of the prices"}
	tests := []struct {
		name     string
		rule     rules.Spec
		doc      string
		wantFail bool
		wantMsg  string
	}{
		{"blocker with line", blocker, `{"severity": "blocker", "line": 3}`, false, ""},
		{"blocker without line", blocker, `{"severity": "blocker"}`, true, "a blocker must name its line (rule blocker-has-line)"},
		{"nitpick without line", blocker, `{"severity": "nitpick"}`, false, ""},
		{"end after start", order, `{"start": "2026-01-01T00:00:00Z", "end": "2026-01-02T00:00:00Z"}`, false, ""},
		{"end before start", order, `{"start": "2026-01-02T00:00:00Z", "end": "2026-01-01T00:00:00Z"}`, true,
			`must hold: timestamp(output.end) > timestamp(output.start) (rule end-after-start)`},
		{"sum of ints", total, `{"total": 6, "items": [{"price": 1}, {"price": 2}, {"price": 3}]}`, false, ""},
		{"sum of doubles vs int total", total, `{"total": 3, "items": [{"price": 1.5}, {"price": 1.5}]}`, false, ""},
		{"sum wrong", total, `{"total": 7, "items": [{"price": 1}, {"price": 2}]}`, true, "total must equal the sum of the prices (rule total)"},
		{"empty sum", total, `{"total": 0, "items": []}`, false, ""},
		{"absent member fails closed", order, `{"start": "2026-01-01T00:00:00Z"}`, true,
			"must hold: timestamp(output.end) > timestamp(output.start) (rule end-after-start could not be evaluated: no such key: end)"},
		{"non-number in sum", total, `{"total": 1, "items": [{"price": "1"}]}`, true,
			"total must equal the sum of the prices (rule total could not be evaluated: sum(): element of type string is not a number)"},
		{"dyn result not bool", rules.Spec{Name: "x", Expr: `output.flag`}, `{"flag": 1}`, true, "must hold: output.flag (rule x yielded int, not a boolean)"},
		{"large int exact", rules.Spec{Name: "big", Expr: `output.n == 9007199254740993`}, `{"n": 9007199254740993}`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			set, err := rules.Compile([]rules.Spec{tt.rule}, rules.Config{})
			if err != nil {
				t.Fatal(err)
			}
			vs := set.Eval(decode(t, tt.doc))
			if got := len(vs) > 0; got != tt.wantFail {
				t.Fatalf("failed = %v, want %v (%v)", got, tt.wantFail, vs)
			}
			if !tt.wantFail {
				return
			}
			v := vs[0]
			wantPath := tt.rule.Path
			if wantPath == "" {
				wantPath = "$"
			}
			if v.Keyword != "rule" || v.Path != wantPath || v.Rule != tt.rule.Name || v.HasExpected || v.Message != tt.wantMsg {
				t.Errorf("violation = %+v\nwant message %q", v, tt.wantMsg)
			}
		})
	}
}

func TestCompile_errors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		specs   []rules.Spec
		wantErr error
		wantMsg string
	}{
		{"syntax", []rules.Spec{{Name: "bad", Expr: "output.a ==="}}, rules.ErrCompile, `rule "bad"`},
		{"unknown variable", []rules.Spec{{Name: "v", Expr: "input.a == 1"}}, rules.ErrCompile, "undeclared reference to 'input'"},
		{"not a bool", []rules.Spec{{Name: "s", Expr: `"yes"`}}, rules.ErrCompile, "yields string, want bool"},
		{"type error", []rules.Spec{{Name: "t", Expr: `1 + "a" == 2`}}, rules.ErrCompile, "no matching overload"},
		{"no name", []rules.Spec{{Expr: "true"}}, rules.ErrBadRule, "rule 0"},
		{"duplicate", []rules.Spec{{Name: "a", Expr: "true"}, {Name: "a", Expr: "false"}}, rules.ErrBadRule, "used twice"},
		{"no expr", []rules.Spec{{Name: "e"}}, rules.ErrBadRule, "no expr"},
		{"bad path", []rules.Spec{{Name: "p", Expr: "true", Path: "line"}}, rules.ErrBadRule, "not a JSONPath"},
		{"over the cost limit", []rules.Spec{{Name: "quadratic",
			Expr: `output.items.all(a, output.items.all(b, a == b || a.id != b.id))`}}, rules.ErrCostLimit, `rule "quadratic"`},
		{"cubic over the limit", []rules.Spec{{Name: "cubic",
			Expr: `output.a.all(x, output.b.all(y, output.c.all(z, x + y + z > 0)))`}}, rules.ErrCostLimit, "over the limit of 1000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			set, err := rules.Compile(tt.specs, rules.Config{})
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("err = %v, want %v containing %q", err, tt.wantErr, tt.wantMsg)
			}
			if set != nil {
				t.Fatal("a set came back with the error")
			}
		})
	}
}

// The estimate bounds a linear rule; the cost counted at evaluation bounds
// an output larger than the estimate assumed.
func TestEval_costLimitAtEvaluation(t *testing.T) {
	t.Parallel()
	set, err := rules.Compile([]rules.Spec{{Name: "ids", Expr: `output.items.all(i, i.id > 0)`}}, rules.Config{MaxCost: 20_000, EstimateSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	items := func(n int) string {
		var b bytes.Buffer
		b.WriteString(`{"items": [`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id": %d}`, i+1)
		}
		b.WriteString("]}")
		return b.String()
	}
	if vs := set.Eval(decode(t, items(100))); vs != nil {
		t.Fatalf("100 items: %v", vs)
	}
	vs := set.Eval(decode(t, items(50_000)))
	if len(vs) != 1 || !strings.Contains(vs[0].Message, "too large to check within the rule's cost limit") {
		t.Fatalf("50000 items: %v", vs)
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	specs, err := rules.Parse(json.RawMessage(`[{"name": "a", "expr": "true", "message": "m", "path": "$.x"}]`))
	if err != nil || len(specs) != 1 || specs[0] != (rules.Spec{Name: "a", Expr: "true", Message: "m", Path: "$.x"}) {
		t.Fatalf("Parse = %v, %v", specs, err)
	}
	if _, err := rules.Parse(json.RawMessage(`[{"name": "a", "expresion": "true"}]`)); !errors.Is(err, rules.ErrBadRule) {
		t.Fatalf("unknown member: err = %v", err)
	}
	if specs, err := rules.Parse(nil); specs != nil || err != nil {
		t.Fatalf("nil: %v, %v", specs, err)
	}
}

func TestSet_nil(t *testing.T) {
	t.Parallel()
	var s *rules.Set
	if s.Len() != 0 || s.Eval(map[string]any{}) != nil || s.Specs() != nil {
		t.Fatal("a nil set is not empty")
	}
}

func BenchmarkEval(b *testing.B) {
	set, err := rules.Compile([]rules.Spec{
		{Name: "blocker", Expr: `output.comments.all(c, c.severity != "blocker" || has(c.line))`},
		{Name: "total", Expr: `output.total == output.items.map(i, i.price).sum()`},
	}, rules.Config{})
	if err != nil {
		b.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(`{"total": 6, "items": [{"price": 1}, {"price": 2}, {"price": 3}],
		"comments": [{"severity": "blocker", "line": 1}, {"severity": "nitpick"}, {"severity": "concern", "line": 9}]}`))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if vs := set.Eval(doc); vs != nil {
			b.Fatal(vs)
		}
	}
}
