package test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/internal/natstest"
)

// startCluster starts a three-node NATS cluster with JetStream on loopback
// and waits until JetStream has a meta leader.
func startCluster(t *testing.T) []*server.Server {
	t.Helper()
	routePorts := []int{natstest.FreePort(t), natstest.FreePort(t), natstest.FreePort(t)}
	var routes []*url.URL
	for _, p := range routePorts {
		routes = append(routes, &url.URL{Scheme: "nats-route", Host: fmt.Sprintf("127.0.0.1:%d", p)})
	}
	var nodes []*server.Server
	for i, p := range routePorts {
		ns, err := server.NewServer(&server.Options{
			ServerName: fmt.Sprintf("n%d", i+1), Host: "127.0.0.1", Port: server.RANDOM_PORT,
			JetStream: true, StoreDir: t.TempDir(), MaxPayload: 8 << 20, NoLog: true, NoSigs: true,
			Cluster: server.ClusterOpts{Name: "agentgate-test", Host: "127.0.0.1", Port: p},
			Routes:  routes,
		})
		if err != nil {
			t.Fatal(err)
		}
		go ns.Start()
		t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
		if !ns.ReadyForConnections(10 * time.Second) {
			t.Fatalf("node %d not ready", i+1)
		}
		nodes = append(nodes, ns)
	}
	waitFor(t, 30*time.Second, "a JetStream meta leader", func() bool {
		for _, n := range nodes {
			if n.JetStreamIsLeader() {
				return true
			}
		}
		return false
	})
	return nodes
}

// The gateway runs against an external three-node cluster with replicated
// streams, and keeps its promises when a node goes down.
func TestGateway_threeNodeCluster(t *testing.T) {
	t.Parallel()
	nodes := startCluster(t)
	urls := make([]string, len(nodes))
	for i, n := range nodes {
		urls[i] = n.ClientURL()
	}
	all := strings.Join(urls, ",")
	nc, err := nats.Connect(all, nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := jetstream.New(nc)
	b := &bus{t: t, srv: nodes[0], nc: nc, js: js, read: map[string][]outcome{}}

	natstest.Gateway(t, nodes[0], examplesDir, func(c *gateway.Config) {
		c.NATSURL = all
		c.Streams.Replicas = 3
	})
	b.publish(raw{agent: "pr-reviewer", run: "c-1", payload: validReview})
	if o := b.awaitOutcomes("c-1", 1)[0]; o.Headers.Get(contract.HeaderOutcome) != "valid" {
		t.Fatalf("outcome: %s", o.Data)
	}
	info, err := js.Stream(t.Context(), "AGENT_OUTPUT_VALID")
	if err != nil || info.CachedInfo().Config.Replicas != 3 {
		t.Fatalf("valid stream not replicated: %v", err)
	}

	// One node down: the replicated streams, bucket and consumer go on.
	nodes[2].Shutdown()
	nodes[2].WaitForShutdown()
	waitFor(t, 30*time.Second, "an outcome with a node down", func() bool {
		// Publishing may fail while leaders move; try again until it lands.
		msg := nats.NewMsg("agent.output.raw.pr-reviewer")
		msg.Header.Set(contract.HeaderRunID, "c-2")
		msg.Header.Set(contract.HeaderMsgID, "c-2-raw")
		msg.Data = []byte(validReview)
		if _, err := js.PublishMsg(t.Context(), msg, jetstream.WithRetryAttempts(2)); err != nil {
			return false
		}
		return len(b.outcomesOf("c-2")) == 1
	})
	b.awaitState("c-2", contract.RunCompleted, 1)
}
