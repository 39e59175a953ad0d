package executor_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/executor"
	"github.com/agentgate/agentgate/internal/natstest"
)

// Outputs of the pr-reviewer agent (examples/agents/pr-reviewer.json).
const (
	validReview   = `{"summary": "Adds a bounded retry loop.", "approval": "approve", "comments": []}`
	driftedReview = `{"summary": "Adds a bounded retry loop.", "approval": "lgtm", "comments": []}`
)

// agentgate is a gateway on an embedded NATS server, for one test.
type agentgate struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	client *executor.Client
	url    string // the HTTP API's base URL
}

// withGateway starts an embedded NATS server and a gateway with the bundled
// examples, and a Client on them; everything stops when the test ends.
func withGateway(t *testing.T, mutate ...func(*executor.Config)) *agentgate {
	t.Helper()
	return withGatewayConfig(t, "../examples", mutate...)
}

// withGatewayConfig is withGateway with the configuration folder dir.
func withGatewayConfig(t *testing.T, dir string, mutate ...func(*executor.Config)) *agentgate {
	t.Helper()
	srv := natstest.Server(t)
	g, _ := natstest.Gateway(t, srv, dir)
	url := "http://" + g.HTTPAddr()

	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	cfg := executor.Config{Conn: nc, GatewayURL: url, AwaitTimeout: 20 * time.Second}
	for _, m := range mutate {
		m(&cfg)
	}
	c, err := executor.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &agentgate{nc: nc, js: js, client: c, url: url}
}

// testCtx is bounded, so that no test can hang.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// waitFor polls cond until it holds or limit passes.
var waitFor = natstest.WaitFor

// scripted is a model that answers from a script, one entry per call (a
// string or an error), and records the conversations it was given.
type scripted struct {
	mu      sync.Mutex
	answers []any
	calls   [][]executor.Message
}

func script(answers ...any) *scripted { return &scripted{answers: answers} }

func (s *scripted) Complete(_ context.Context, msgs []executor.Message) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, msgs)
	if len(s.calls) > len(s.answers) {
		return "", fmt.Errorf("scripted model: call %d, only %d answers", len(s.calls), len(s.answers))
	}
	switch a := s.answers[len(s.calls)-1].(type) {
	case string:
		return a, nil
	case error:
		return "", a
	}
	return "", errors.New("scripted model: bad script")
}

func (s *scripted) conversations() [][]executor.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}
