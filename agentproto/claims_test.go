package agentproto_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentgate/agentgate/agentproto"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/internal/agenttest"
	"github.com/agentgate/agentgate/internal/natstest"
	"github.com/agentgate/agentgate/schemas"
)

// noJudge is never asked: these twins serve no prompt.
type noJudge struct{}

func (noJudge) Submit(context.Context, handlers.Envelope, *handlers.Verdict) (handlers.Decision, error) {
	return handlers.Decision{}, errors.New("not judged here")
}

// Two blueprints gating one upstream agent would share a twin subject and
// its queue group: the first keeps it, the second does not register.
func TestTwin_subjectClaimedOnce(t *testing.T) {
	srv := natstest.Server(t)
	nc, _ := natstest.Connect(t, srv)
	anc, _ := natstest.Connect(t, srv)
	agenttest.Start(t, anc, agenttest.Config{Agent: "claude-code", Owner: "test", Name: "shared",
		Turns: []agenttest.Turn{{{Response: "ok"}}}})
	claims := &agentproto.Claims{}
	up := &schemas.Upstream{Agent: "claude-code", Owner: "test", Name: "shared"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	twin := func(name string) (*agentproto.Twin, chan error) {
		tw, err := agentproto.New(agentproto.Config{Conn: nc, Blueprint: &schemas.Blueprint{Name: name, Upstream: up},
			Judge: noJudge{}, Claims: claims, DiscoveryWait: 300 * time.Millisecond, DiscoveryRetry: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- tw.Run(ctx) }()
		return tw, done
	}
	first, _ := twin("one")
	select {
	case <-first.Registered():
	case <-time.After(10 * time.Second):
		t.Fatal("the first twin did not register")
	}
	second, done := twin("two")
	select {
	case err := <-done:
		if !errors.Is(err, agentproto.ErrSubjectTaken) {
			t.Fatalf("second twin: %v, want ErrSubjectTaken", err)
		}
	case <-second.Registered():
		t.Fatal("the second twin registered on the first one's subject")
	case <-time.After(10 * time.Second):
		t.Fatal("the second twin neither registered nor stopped")
	}
}
