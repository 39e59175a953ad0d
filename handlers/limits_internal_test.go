package handlers

import (
	"context"
	"testing"
	"time"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/schemas"
)

type nopStore struct{}

func (nopStore) Get(context.Context, string) (*contract.RunState, uint64, error) { return nil, 0, nil }
func (nopStore) Put(context.Context, *contract.RunState, uint64) (uint64, error) {
	return 1, nil
}

type nopEmitter struct{}

func (nopEmitter) Emit(context.Context, Decision) (uint64, error) { return 0, nil }

// The bytes in flight are a budget: a message waits for room (and gives
// up after the store timeout), and a decision abandoned past its time
// limit keeps its bytes until it really ends.
func TestProcessor_inFlightBytes(t *testing.T) {
	t.Parallel()
	reg, err := schemas.Load("../examples")
	if err != nil {
		t.Fatal(err)
	}
	gate, err := NewGate(GateConfig{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewProcessor(ProcessorConfig{Gate: gate, Store: nopStore{}, Emitter: nopEmitter{},
		MaxInFlightBytes: 100, StoreTimeout: 30 * time.Millisecond, DecisionTimeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()

	first, err := h.reserve(ctx, 80)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.reserve(ctx, 80); err == nil {
		t.Fatal("a second 80 bytes fit in a budget of 100")
	}
	// A decision that overruns its limit is a processing_limit dead letter
	// at once, and holds the bytes until it returns.
	unblock := make(chan struct{})
	env := Envelope{Agent: "pr-reviewer", Headers: map[string][]string{"Run-Id": {"r"}}, Payload: make([]byte, 80), Origin: Origin{Seq: 3}}
	d := h.bounded(first, func(Envelope, *contract.RunState) Decision { <-unblock; return Decision{} })(env, nil)
	if d.ErrorType != contract.ErrProcessingLimit {
		t.Fatalf("overrun decision = %q", d.ErrorType)
	}
	first.release() // the handler is done with the message
	if _, err := h.reserve(ctx, 80); err == nil {
		t.Fatal("the bytes of an abandoned decision were released before it ended")
	}
	close(unblock)
	deadline := time.Now().Add(10 * time.Second)
	for {
		r, err := h.reserve(ctx, 80)
		if err == nil {
			r.release()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the bytes never came back after the abandoned decision ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A payload larger than the whole budget waits for an empty gateway
	// rather than forever.
	big, err := h.reserve(ctx, 1000)
	if err != nil {
		t.Fatalf("a payload over the budget: %v", err)
	}
	big.release()
}
