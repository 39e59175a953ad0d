package test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/internal/natstest"
	"github.com/agentgate/agentgate/topology"
)

// healthz returns /healthz's status code and body.
func healthz(t *testing.T, addr string) (int, map[string]string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]string
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body
}

// When the durable consumer is deleted, /healthz says so (503 with the
// reason), the gateway creates the consumer again and goes on consuming,
// and /healthz is 200 again.
func TestGateway_deletedConsumerIsReportedAndRecreated(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	g := startGateway(t, b, func(c *gateway.Config) {
		// The 503 lasts from the check that finds the consumer gone to the
		// next one: long enough to be seen on a busy box.
		c.HealthInterval = 1500 * time.Millisecond
	})
	waitFor(t, 15*time.Second, "healthy", func() bool { code, _ := healthz(t, g.HTTPAddr()); return code == 200 })
	b.publish(raw{agent: "pr-reviewer", run: "before-delete", payload: validReview})
	b.awaitOutcomes("before-delete", 1)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := b.js.DeleteConsumer(ctx, topology.StreamRaw, topology.GatewayConsumer); err != nil {
		t.Fatal(err)
	}
	var reason string
	waitFor(t, 15*time.Second, "503 with the reason", func() bool {
		code, body := healthz(t, g.HTTPAddr())
		reason = body["reason"]
		return code == http.StatusServiceUnavailable && strings.Contains(reason, "deleted")
	})
	t.Logf("healthz: %s", reason)
	waitFor(t, 15*time.Second, "healthy again", func() bool { code, _ := healthz(t, g.HTTPAddr()); return code == 200 })

	b.publish(raw{agent: "pr-reviewer", run: "after-delete", payload: validReview})
	if o := b.awaitOutcomes("after-delete", 1)[0]; o.Headers.Get(contract.HeaderOutcome) != "valid" {
		t.Fatalf("after the consumer was recreated: %s", o.Data)
	}
}

// The password of a nats://user:pass@host URL is never logged.
func TestGateway_passwordNeverLogged(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	var logs natstest.Buffer
	url := strings.Replace(b.srv.ClientURL(), "nats://", "nats://agent:s3cret-pw@", 1)
	g := startGateway(t, b, func(c *gateway.Config) {
		c.NATSURL = url
		c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	b.publish(raw{agent: "pr-reviewer", run: "pw", payload: validReview})
	b.awaitOutcomes("pw", 1)
	g.stop()
	if !strings.Contains(logs.String(), "gateway ready") {
		t.Fatalf("no logs captured:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "s3cret-pw") {
		t.Errorf("password logged:\n%s", logs.String())
	}
}
