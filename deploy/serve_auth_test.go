package deploy_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/gateway"
)

// TestServeAuth is `agentgate serve --auth deploy/nats/auth.conf`: the
// gateway starts the embedded server with the file's users and connects to
// it as the gateway user, or says why it cannot.
func TestServeAuth(t *testing.T) {
	sec := setSecrets(t)
	examples := "../examples"
	cfg := func(nkey string) gateway.Config {
		c := gateway.Config{ConfigDir: examples, NATSListen: "127.0.0.1:0", DataDir: t.TempDir(), HTTPAddr: "127.0.0.1:0",
			EmbeddedAuth: authFile, Logger: slog.New(slog.DiscardHandler)}
		c.NATS.NKey = nkey
		return c
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	g, err := gateway.New(ctx, cfg(sec.gatewaySeed))
	if err != nil {
		t.Fatalf("serve --auth --nkey: %v", err)
	}
	if g.SigningKey() != sec.gatewayPub {
		t.Errorf("signs with %q, want the gateway's NKey", g.SigningKey())
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- g.Run(rctx) }()
	waitFor(t, 20*time.Second, "a healthy gateway", func() bool {
		resp, err := http.Get("http://" + g.HTTPAddr() + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	_, err = gateway.New(ctx, cfg(""))
	for _, want := range []string{"no credentials", "refused the credential", "nats://127.0.0.1:"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("serve --auth without credentials: %v, want it to say %q", err, want)
		}
	}
}
