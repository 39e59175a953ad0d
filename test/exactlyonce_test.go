package test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/router"
	"github.com/agentgate/agentgate/runstate"
	"github.com/agentgate/agentgate/schemas"
	"github.com/agentgate/agentgate/subjects"
)

// assertOneOutcomeEach checks that every run has exactly the outcomes
// wanted (one per attempt), none lost, none doubled.
func assertOneOutcomeEach(t *testing.T, b *bus, want map[string]int) {
	t.Helper()
	got := map[string]int{}
	seen := map[string]bool{}
	for _, o := range b.outcomes() {
		key := o.Headers.Get(contract.HeaderRunID) + "/" + o.Headers.Get(contract.HeaderAttempt)
		if seen[key] {
			t.Errorf("second outcome for %s: %s", key, o.Data)
		}
		seen[key] = true
		got[o.Headers.Get(contract.HeaderRunID)]++
	}
	for run, n := range want {
		if got[run] != n {
			t.Errorf("run %s: %d outcomes, want %d", run, got[run], n)
		}
	}
}

func TestGateway_duplicateDeliveryPublishesNothingNew(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	startGateway(t, b)
	b.publish(raw{agent: "pr-reviewer", run: "dup", attempt: 1, payload: validReview})
	b.awaitOutcomes("dup", 1)
	// The same output again, and once more without an Attempt header: the
	// run is finished, so its last attempt is meant and already answered.
	b.publish(raw{agent: "pr-reviewer", run: "dup", attempt: 1, payload: validReview})
	b.publish(raw{agent: "pr-reviewer", run: "dup", payload: badReview})
	// A marker run published after them: once it has its outcome, the
	// duplicates have been processed (one consumer, in order).
	b.publish(raw{agent: "pr-reviewer", run: "marker", payload: validReview})
	b.awaitOutcomes("marker", 1)
	assertOneOutcomeEach(t, b, map[string]int{"dup": 1, "marker": 1})
}

func TestGateway_restartWithMessagesInFlight(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	b.ensureStreams()
	const runs = 60
	want := map[string]int{}
	for i := range runs {
		run := fmt.Sprintf("restart-%02d", i)
		payload := validReview
		if i%3 == 0 {
			payload = badReview
		}
		b.publish(raw{agent: "pr-reviewer", run: run, payload: payload})
		want[run] = 1
	}
	first := startGateway(t, b)
	waitFor(t, 15*time.Second, "some outcomes", func() bool { return len(b.outcomes()) >= 5 })
	first.stop()

	startGateway(t, b)
	waitFor(t, 30*time.Second, "every outcome", func() bool { return len(b.outcomes()) >= runs })
	assertOneOutcomeEach(t, b, want)
	valid := map[string]bool{}
	for _, o := range b.streamMessages(subjects.StreamValid) {
		run := o.Headers.Get(contract.HeaderRunID)
		if valid[run] {
			t.Errorf("run %s doubled on agent.output.valid", run)
		}
		valid[run] = true
	}
}

func TestGateway_replicasShareTheWork(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	startGateway(t, b)
	startGateway(t, b)
	want := map[string]int{}
	for i := range 40 {
		run := fmt.Sprintf("shared-%02d", i)
		b.publish(raw{agent: "pr-reviewer", run: run, payload: validReview})
		want[run] = 1
	}
	waitFor(t, 30*time.Second, "every outcome", func() bool { return len(b.outcomes()) >= 40 })
	assertOneOutcomeEach(t, b, want)
}

// failFirstPut fails the first recording of each run after the outcome was
// published: the gateway "crashes" between publishing and recording.
type failFirstPut struct {
	handlers.RunStore
	mu     sync.Mutex
	failed map[string]bool
}

func (s *failFirstPut) Put(ctx context.Context, st *contract.RunState, rev uint64) error {
	s.mu.Lock()
	first := !s.failed[st.RunID]
	s.failed[st.RunID] = true
	s.mu.Unlock()
	if first {
		return errors.New("injected: crashed before recording")
	}
	return s.RunStore.Put(ctx, st, rev)
}

func TestGateway_crashBetweenPublishAndRecord(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	kv, err := subjects.Ensure(ctx, b.js, subjects.StreamsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := schemas.Load(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	gate, err := handlers.NewGate(handlers.GateConfig{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	store := &failFirstPut{RunStore: runstate.New(kv), failed: map[string]bool{}}
	r, err := router.New(ctx, router.Config{
		URL:    b.srv.ClientURL(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Handler: func(pub message.Publisher) (*handlers.Handler, error) {
			return handlers.NewHandler(handlers.HandlerConfig{Gate: gate, Store: store, Publisher: pub})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() { _ = r.Close(); <-done })

	b.publish(raw{agent: "pr-reviewer", run: "crash-valid", payload: validReview})
	b.publish(raw{agent: "pr-reviewer", run: "crash-retry", payload: badReview})
	waitFor(t, 15*time.Second, "both runs recorded", func() bool {
		a, c := b.runState("crash-valid"), b.runState("crash-retry")
		return a != nil && c != nil
	})
	assertOneOutcomeEach(t, b, map[string]int{"crash-valid": 1, "crash-retry": 1})
	b.awaitState("crash-valid", contract.RunCompleted, 1)
	b.awaitState("crash-retry", contract.RunRetryRequested, 1)
}
