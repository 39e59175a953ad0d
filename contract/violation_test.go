package contract_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/contract"
)

func TestMember(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, given, want string }{
		{"identifier", "comments", "$.comments"},
		{"underscore and digits", "_a1", "$._a1"},
		{"space", "odd key", "$['odd key']"},
		{"hyphen", "pr-id", "$['pr-id']"},
		{"leading digit", "1st", "$['1st']"},
		{"quote", "it's", `$['it\'s']`},
		{"empty", "", "$['']"},
		{"non-ascii", "größe", "$.größe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := contract.Member("$", tt.given); got != tt.want {
				t.Errorf("Member(%q) = %q, want %q", tt.given, got, tt.want)
			}
		})
	}
}

func TestSplitPath_roundTrip(t *testing.T) {
	t.Parallel()
	p := contract.Index(contract.Member(contract.Member(contract.Index(contract.Member("$", "a"), 12), "it's]x"), "b"), 3)
	want := []string{".a", "[12]", `['it\'s]x']`, ".b", "[3]"}
	if got := contract.SplitPath(p); !slices.Equal(got, want) {
		t.Errorf("SplitPath(%q) = %q, want %q", p, got, want)
	}
}

func TestSortViolations_indicesAsNumbers(t *testing.T) {
	t.Parallel()
	vs := []contract.Violation{
		{Path: "$.comments[10].line", Keyword: "type"},
		{Path: "$.comments[2].severity", Keyword: "enum"},
		{Path: "$.comments[2]", Keyword: "required"},
		{Path: "$", Keyword: "required"},
		{Path: "$.comments[2].line", Keyword: "type"},
		{Path: "$.comments[2].line", Keyword: "minimum"},
		{Path: "$.approval", Keyword: "enum"},
	}
	contract.SortViolations(vs)
	var got []string
	for _, v := range vs {
		got = append(got, v.Path+" "+v.Keyword)
	}
	want := []string{
		"$ required", "$.approval enum", "$.comments[2] required", "$.comments[2].line minimum",
		"$.comments[2].line type", "$.comments[2].severity enum", "$.comments[10].line type",
	}
	if !slices.Equal(got, want) {
		t.Errorf("sorted:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestViolation_JSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		given contract.Violation
		want  string
	}{
		{"received absent", contract.Violation{Path: "$.line", Keyword: "required", Message: "m"},
			`{"path":"$.line","keyword":"required","message":"m"}`},
		{"received null", contract.Violation{Path: "$.a", Keyword: "type", Expected: "string", HasReceived: true, Message: "m"},
			`{"path":"$.a","keyword":"type","expected":"string","received":null,"message":"m"}`},
		{"received value", contract.Violation{Path: "$.a", Keyword: "enum", Expected: []any{"x"}, HasExpected: true, Received: "y", HasReceived: true, Message: "m"},
			`{"path":"$.a","keyword":"enum","expected":["x"],"received":"y","message":"m"}`},
		{"expected null", contract.Violation{Path: "$.a", Keyword: "const", HasExpected: true, Received: 1.0, HasReceived: true, Message: "m"},
			`{"path":"$.a","keyword":"const","expected":null,"received":1,"message":"m"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tt.given)
			if err != nil || string(b) != tt.want {
				t.Fatalf("Marshal = %s, %v; want %s", b, err, tt.want)
			}
			var back contract.Violation
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			again, _ := json.Marshal(back)
			if string(again) != tt.want {
				t.Errorf("round trip = %s, want %s", again, tt.want)
			}
		})
	}
}

func TestTruncateRaw(t *testing.T) {
	t.Parallel()
	short := strings.Repeat("a", contract.RawOutputLimit)
	if got := contract.TruncateRaw([]byte(short)); got != short {
		t.Errorf("a raw output at the limit was cut")
	}
	// A multi-byte rune straddling the limit is not split.
	long := strings.Repeat("a", contract.RawOutputLimit-1) + "é" + "tail"
	got := contract.TruncateRaw([]byte(long))
	if !strings.HasSuffix(got, contract.RawOutputMarker) || strings.Contains(got, "é") || len(got) != contract.RawOutputLimit-1+len(contract.RawOutputMarker) {
		t.Errorf("TruncateRaw = ...%q", got[len(got)-20:])
	}
}

func TestNextAttempt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		given *contract.RunState
		want  int
	}{
		{"new run", nil, 1},
		{"after a retry request", &contract.RunState{Status: contract.RunRetryRequested, Attempts: 1}, 2},
		{"finished run: its last attempt", &contract.RunState{Status: contract.RunCompleted, Attempts: 2}, 2},
		{"failed run", &contract.RunState{Status: contract.RunFailed, Attempts: 1}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := contract.NextAttempt(tt.given); got != tt.want {
				t.Errorf("NextAttempt = %d, want %d", got, tt.want)
			}
		})
	}
}
