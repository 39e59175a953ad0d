package router_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/internal/natstest"
	"github.com/agentgate/agentgate/router"
	"github.com/agentgate/agentgate/topology"
)

// A republished outcome is stored at most once, also long after the
// de-duplication window: Outcomes finds the copy already stored. Past its
// scan limit it publishes again (at least once rather than never).
func TestOutcomes_republishBeyondTheWindow(t *testing.T) {
	t.Parallel()
	srv := natstest.Server(t)
	nc, js := natstest.Connect(t, srv)
	ctx := context.Background()
	if _, err := topology.Ensure(ctx, js, topology.StreamsConfig{Duplicates: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	pub, err := router.NewPublisher(nc, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := router.Outcomes{Publisher: pub, JS: js}
	decision := func(run string) handlers.Decision {
		return handlers.Decision{Outcome: contract.OutcomeValid, RunID: run, AgentID: "a", Attempt: 1,
			MsgID: contract.MsgID(run, 1, contract.OutcomeValid), Payload: []byte(`{}`), RecordedAt: time.Now()}
	}
	var first uint64
	for _, run := range []string{"r1", "r2", "r3"} {
		seq, err := out.Emit(ctx, decision(run))
		if err != nil {
			t.Fatal(err)
		}
		if run == "r1" {
			first = seq
		}
	}
	time.Sleep(300 * time.Millisecond) // past the window
	count := func() uint64 {
		s, err := js.Stream(ctx, topology.StreamValid)
		if err != nil {
			t.Fatal(err)
		}
		info, err := s.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return info.State.Msgs
	}

	again := decision("r1")
	again.Republish, again.RecordedAt = true, again.RecordedAt.Add(-time.Second)
	if seq, err := out.Emit(ctx, again); err != nil || seq != first {
		t.Fatalf("republish = %d, %v; want the stored copy at %d", seq, err, first)
	}
	if n := count(); n != 3 {
		t.Fatalf("%d outcomes stored, want 3", n)
	}

	// Not stored yet: published.
	missing := decision("r4")
	missing.Republish = true
	if seq, err := out.Emit(ctx, missing); err != nil || seq == 0 {
		t.Fatalf("republish of an outcome never stored = %d, %v", seq, err)
	}
	// Too many to look through: published again.
	limited := router.Outcomes{Publisher: pub, JS: js, MaxScan: 2}
	if _, err := limited.Emit(ctx, again); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 5 {
		t.Fatalf("%d outcomes stored, want 5", n)
	}

	// An emission whose time is out looks nothing up and publishes
	// nothing: the input comes again.
	expired, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	late := decision("r5")
	late.Republish, late.RecordedAt = true, late.RecordedAt.Add(-time.Second)
	if _, err := out.Emit(expired, late); err == nil {
		t.Fatal("a look-up out of time published")
	}
	if n := count(); n != 5 {
		t.Fatalf("%d outcomes stored, want 5", n)
	}
	// Each look-up's consumer is gone once it is done.
	s, err := js.Stream(ctx, topology.StreamValid)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := s.Info(ctx); err != nil || info.State.Consumers != 0 {
		t.Fatalf("consumers left on the outcome stream: %+v, %v", info.State, err)
	}
}
