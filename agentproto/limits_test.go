package agentproto_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/agentgate/agentgate/agentproto"
	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/internal/agenttest"
	"github.com/agentgate/agentgate/internal/natstest"
	"github.com/agentgate/agentgate/schemas"
)

// textJudge accepts every answer as free text, as the gate does for a
// blueprint without an output schema.
type textJudge struct{}

func (textJudge) Submit(_ context.Context, env handlers.Envelope, _ *handlers.Verdict) (handlers.Decision, error) {
	return handlers.Decision{Outcome: contract.OutcomeValid, RunID: env.Header(contract.HeaderRunID), Attempt: 1,
		Payload: []byte(`{"attempt":1,"result_data":null,"result_text":` + quoteJSON(string(env.Payload)) + `}`)}, nil
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestTwin_limits runs a twin directly (no gateway): a prompt beyond
// MaxConcurrent is refused with 429, and New rejects what cannot work.
func TestTwin_limits(t *testing.T) {
	srv := natstest.Server(t)
	nc, _ := natstest.Connect(t, srv)
	anc, _ := natstest.Connect(t, srv)
	agent := agenttest.Start(t, anc, agenttest.Config{Agent: "slow", Owner: "o", Name: "n",
		Turns: []agenttest.Turn{{{Ack: true, Sleep: time.Second}, {Response: "done"}}}})
	bp := &schemas.Blueprint{Name: "free", MaxRetries: 1, Upstream: &schemas.Upstream{Agent: "slow", Owner: "o", Name: "n"}}

	if _, err := agentproto.New(agentproto.Config{Blueprint: &schemas.Blueprint{Name: "x"}, Heartbeat: time.Millisecond}); !errors.Is(err, agentproto.ErrBadConfig) {
		t.Errorf("New(bad) = %v, want ErrBadConfig", err)
	}
	tw, err := agentproto.New(agentproto.Config{Conn: nc, Blueprint: bp, Judge: textJudge{}, MaxConcurrent: 1,
		DiscoveryWait: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- tw.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v", err)
		}
	})
	select {
	case <-tw.Registered():
	case <-time.After(10 * time.Second):
		t.Fatal("not registered")
	}
	e := &env{t: t, nc: nc}
	first := make(chan reply, 1)
	// call fails the test only from the test's goroutine: here it is
	// expected to succeed, and the result is checked below.
	go func() { first <- e.call("agents.gate.o.n", []byte("one"), nil, "") }()
	waitFor(t, 5*time.Second, "the first prompt upstream", func() bool { return len(agent.Prompts()) == 1 })
	if r := e.call("agents.gate.o.n", []byte("two"), nil, ""); r.code != "429" || r.body["error"] != "rate_limited" {
		t.Errorf("second prompt: %s %v, want 429 rate_limited", r.code, r.body)
	}
	r := <-first
	data, _ := r.chunks[len(r.chunks)-1]["data"].(map[string]any)
	if r.code != "" || data["text"] != "done" {
		t.Errorf("first prompt: %+v", r)
	}
}
