package main

import (
	"testing"
	"time"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/schemas"
)

// The load is the mix it claims: exact shares, 1 to 4 KB, and each kind of
// output gets from the gateway the outcome the bench expects of it.
func TestGenerate_mixAndOutcomes(t *testing.T) {
	t.Parallel()
	reg, err := schemas.Load("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	gate, err := handlers.NewGate(handlers.GateConfig{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	l, mix := generate(400, 7)
	want := map[string]int{"valid": 280, "drifted": 40, "invalid": 40, "refusal": 20, "garbage": 20}
	for k, n := range want {
		if mix.Count[k] != n {
			t.Errorf("%s: %d outputs, want %d (%v)", k, mix.Count[k], n, mix.Count)
		}
	}
	if mix.ByAgent["pr-reviewer"] != 200 || mix.ByAgent["tripwire-candidates"] != 200 || mix.MinBytes < 1000 || mix.MaxBytes > 4200 {
		t.Errorf("mix = %+v", mix)
	}
	outcome := map[string]contract.Outcome{
		"valid": contract.OutcomeValid, "drifted": contract.OutcomeValid, "invalid": contract.OutcomeRetry,
		"refusal": contract.OutcomeRefused, "garbage": contract.OutcomeDLQ,
	}
	for i := range 400 {
		p := l.at(i)
		d := gate.Decide(handlers.Envelope{Agent: p.agent, Payload: p.data,
			Headers: map[string][]string{contract.HeaderRunID: {runID(i)}}}, nil)
		if d.Outcome != outcome[p.kind.String()] {
			t.Fatalf("output %d (%s, %s): outcome %s: %s", i, p.agent, p.kind, d.Outcome, d.Payload)
		}
		if p.kind.String() == "drifted" && len(d.Normalizations) == 0 {
			t.Errorf("output %d: drifted but not normalized", i)
		}
	}
}

func TestPercentiles(t *testing.T) {
	t.Parallel()
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	p50, p99, mx := percentiles(ds)
	if p50 != 51 || p99 != 100 || mx != 100 {
		t.Errorf("percentiles = %v %v %v", p50, p99, mx)
	}
	if a, b, c := percentiles(nil); a != 0 || b != 0 || c != 0 {
		t.Error("percentiles of nothing")
	}
}
