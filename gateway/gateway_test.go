package gateway_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/runstate"
	"github.com/agentgate/agentgate/subjects"
	"github.com/agentgate/agentgate/topology"
)

// With no NATS URL the gateway starts its own server on file storage; what
// it recorded is still there after a restart on the same data directory.
func TestGateway_embeddedServerKeepsStateAcrossRestarts(t *testing.T) {
	dataDir := t.TempDir()
	start := func() (*gateway.Gateway, func()) {
		ctx, cancel := context.WithCancel(context.Background())
		g, err := gateway.New(ctx, gateway.Config{
			ConfigDir: "../examples", NATSListen: "127.0.0.1:0", DataDir: dataDir, HTTPAddr: "127.0.0.1:0",
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- g.Run(ctx) }()
		waitFor(t, "healthy", func() bool {
			resp, err := http.Get("http://" + g.HTTPAddr() + "/healthz")
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		})
		return g, func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		}
	}

	g, stop := start()
	nc, err := nats.Connect(g.NATSURL())
	if err != nil {
		t.Fatal(err)
	}
	js, _ := jetstream.New(nc)
	msg := nats.NewMsg(subjects.Raw("pr-reviewer"))
	msg.Header.Set(contract.HeaderRunID, "kept")
	msg.Data = []byte(`{"summary":"ok","approval":"approve","comments":[]}`)
	if _, err := js.PublishMsg(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "state recorded", func() bool { return state(t, js) != nil })
	nc.Close()
	stop()

	g, stop = start()
	defer stop()
	nc, err = nats.Connect(g.NATSURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ = jetstream.New(nc)
	if st := state(t, js); st == nil || st.Status != contract.RunCompleted {
		t.Fatalf("after restart: %v", st)
	}
}

func state(t *testing.T, js jetstream.JetStream) *contract.RunState {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	kv, err := js.KeyValue(ctx, topology.RunsBucket)
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := runstate.New(kv).Get(ctx, "kept")
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestConfig_Validate(t *testing.T) {
	if _, err := gateway.New(context.Background(), gateway.Config{}); err == nil {
		t.Fatal("a gateway with no configuration started")
	}
	_, err := gateway.New(context.Background(), gateway.Config{ConfigDir: "no-such-dir"})
	if err == nil {
		t.Fatal("a missing configuration directory was accepted")
	}
}
