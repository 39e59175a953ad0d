package deploy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

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

	// A dead letter replayed through the API: the gateway user publishes
	// the kept raw output again, which auth.conf must allow.
	agent := connectAs(t, g.NATSURL(), "pr-reviewer", sec.passwords["pr-reviewer"])
	msg := nats.NewMsg("agent.output.raw.pr-reviewer")
	msg.Header.Set("Run-Id", "auth-replay")
	msg.Data = []byte("\xff not UTF-8")
	if err := agent.PublishMsg(msg); err != nil {
		t.Fatal(err)
	}
	base := "http://" + g.HTTPAddr()
	var letters struct {
		DeadLetters []struct {
			Seq uint64 `json:"seq"`
		} `json:"dead_letters"`
	}
	waitFor(t, 10*time.Second, "the dead letter listed", func() bool {
		resp, err := http.Get(base + "/v1/dlq")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		return json.NewDecoder(resp.Body).Decode(&letters) == nil && len(letters.DeadLetters) == 1
	})
	resp, err := http.Post(fmt.Sprintf("%s/v1/dlq/%d/replay", base, letters.DeadLetters[0].Seq), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("replay under auth.conf = %d %s, want 202", resp.StatusCode, body)
	}

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
