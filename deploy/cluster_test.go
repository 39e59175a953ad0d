package deploy_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/executor"
	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/internal/natstest"
	"github.com/agentgate/agentgate/natsconn"
	"github.com/agentgate/agentgate/subjects"
	"github.com/agentgate/agentgate/topology"
)

// clusterRuns is how many runs the cluster test publishes; the stream
// leader is shut down once a third of them are out.
const clusterRuns = 60

// bootCluster generates certificates with nats/gen-certs.sh and boots the
// three nodes from nats/n1.conf, n2.conf and n3.conf (which include
// auth.conf) in the test's working directory, as the files say to run
// them. Only the addresses change: every node listens on loopback ports of
// its own and routes to the other two there.
func bootCluster(t *testing.T) (nodes []*server.Server, certs string) {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl is needed to run nats/gen-certs.sh")
	}
	confs := make([]string, 3)
	for i := range confs {
		abs, err := filepath.Abs(fmt.Sprintf("nats/n%d.conf", i+1))
		if err != nil {
			t.Fatal(err)
		}
		confs[i] = abs
	}
	script, _ := filepath.Abs("nats/gen-certs.sh")
	work := t.TempDir()
	if out, err := exec.Command("bash", script, filepath.Join(work, "certs")).CombinedOutput(); err != nil {
		t.Fatalf("gen-certs.sh: %v\n%s", err, out)
	}
	t.Chdir(work) // the files' relative certs/ and data/ paths

	routePorts := []int{freePort(t), freePort(t), freePort(t)}
	for i, conf := range confs {
		opts, err := server.ProcessConfigFile(conf)
		if err != nil {
			t.Fatalf("%s: %v", conf, err)
		}
		// What the file must say, checked before the addresses change.
		switch {
		case opts.TLSConfig == nil || opts.Cluster.TLSConfig == nil:
			t.Fatalf("%s: no TLS on client or route connections", conf)
		case opts.Cluster.TLSConfig.ClientAuth != tls.RequireAndVerifyClientCert:
			t.Fatalf("%s: routes do not verify each other's certificates", conf)
		}
		if !opts.JetStream || len(opts.Routes) != 2 || len(opts.Accounts) < 2 || opts.SystemAccount != "SYS" {
			t.Fatalf("%s: JetStream %v, %d routes, %d accounts, system account %q", conf, opts.JetStream, len(opts.Routes), len(opts.Accounts), opts.SystemAccount)
		}
		opts.Host, opts.Port, opts.HTTPPort = "127.0.0.1", server.RANDOM_PORT, 0
		opts.Cluster.Host, opts.Cluster.Port = "127.0.0.1", routePorts[i]
		opts.Routes = nil
		for j, p := range routePorts {
			if j != i {
				opts.Routes = append(opts.Routes, &url.URL{Scheme: "nats-route", Host: fmt.Sprintf("127.0.0.1:%d", p)})
			}
		}
		opts.NoLog, opts.NoSigs = true, true
		ns, err := server.NewServer(opts)
		if err != nil {
			t.Fatal(err)
		}
		go ns.Start()
		t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
		nodes = append(nodes, ns)
	}
	for i, ns := range nodes {
		if !ns.ReadyForConnections(20 * time.Second) {
			t.Fatalf("node n%d not ready", i+1)
		}
	}
	waitFor(t, 30*time.Second, "a JetStream meta leader", func() bool {
		for _, n := range nodes {
			if n.JetStreamIsLeader() {
				return true
			}
		}
		return false
	})
	return nodes, filepath.Join(work, "certs")
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestCluster_deployFiles boots the cluster from deploy/nats/, runs two
// gateways on it over TLS with the gateway's NKey, publishes runs as the
// pr-reviewer agent, shuts down the raw stream's leader mid-run, and checks
// that every run gets exactly one outcome, signed, and that a forged
// publish is refused.
func TestCluster_deployFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("boots a three-node cluster (about 20 s); make test runs it")
	}
	sec := setSecrets(t)
	examples, _ := filepath.Abs("../examples")
	nodes, certs := bootCluster(t)
	urls := make([]string, len(nodes))
	for i, n := range nodes {
		urls[i] = n.ClientURL()
	}
	all := strings.Join(urls, ",")
	ca := filepath.Join(certs, "ca.pem")

	for range 2 {
		natstest.Gateway(t, nodes[0], examples, func(c *gateway.Config) {
			c.NATSURL = all
			c.NATS.NKey, c.NATS.TLSCA = sec.gatewaySeed, ca
			c.Streams.Replicas = 3
		})
	}

	// The agent connects as the CLI does: natsconn, TLS verified with the
	// test CA, its own inbox prefix.
	agentOpts := natsconn.Options{Servers: all, User: "pr-reviewer", Password: sec.passwords["pr-reviewer"],
		TLSCA: ca, InboxPrefix: "_INBOX_pr-reviewer"}
	var violations sync.Map
	anc, err := natsconn.Connect(agentOpts, "", nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { violations.Store(err.Error(), true) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(anc.Close)
	if _, err := natsconn.Connect(natsconn.Options{Servers: all, User: "pr-reviewer", Password: sec.passwords["pr-reviewer"]}, ""); err == nil {
		t.Error("connected without verifying the server's certificate")
	} else if !strings.Contains(err.Error(), "give --tlsca") || !strings.Contains(err.Error(), `user "pr-reviewer"`) {
		t.Errorf("a server with an unknown CA: %v, want the credential and the advice to give --tlsca", err)
	}
	ajs, _ := jetstream.New(anc)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	// Publish the runs, each until JetStream acknowledges it (its
	// Nats-Msg-Id keeps a retried publish single), shutting down the raw
	// stream's leader after a third of them.
	killed := ""
	for i := range clusterRuns {
		if i == clusterRuns/3 {
			killed = killStreamLeader(t, nodes, topology.StreamRaw)
		}
		msg := nats.NewMsg(subjects.Raw("pr-reviewer"))
		run := fmt.Sprintf("cl-%03d", i)
		msg.Header.Set(contract.HeaderRunID, run)
		msg.Data = []byte(validReview)
		waitFor(t, 30*time.Second, "an acknowledged publish of "+run, func() bool {
			pctx, pcancel := context.WithTimeout(ctx, 2*time.Second)
			defer pcancel()
			_, err := ajs.PublishMsg(pctx, msg, jetstream.WithMsgID(run+".raw"))
			return err == nil
		})
	}
	t.Logf("shut down %s, the leader of %s, after %d runs", killed, topology.StreamRaw, clusterRuns/3)

	// A forged result is refused.
	forged := nats.NewMsg(subjects.Valid("pr-reviewer"))
	forged.Header.Set(contract.HeaderRunID, "cl-forged")
	forged.Data = []byte(`{"event_type":"result","run_id":"cl-forged"}`)
	_ = anc.PublishMsg(forged)
	waitFor(t, 5*time.Second, "the forged publish refused", func() bool {
		_, ok := violations.Load(`nats: permissions violation: Permissions Violation for Publish to "agent.output.valid.pr-reviewer"`)
		return ok
	})

	// Every run has exactly one outcome, valid and signed by the gateway.
	onc, err := natsconn.Connect(natsconn.Options{Servers: all, User: "operator", Password: sec.passwords["operator"],
		TLSCA: ca, InboxPrefix: "_INBOX_operator"}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(onc.Close)
	ojs, _ := jetstream.New(onc)
	var outcomes map[string][]jetstream.Msg
	waitFor(t, 60*time.Second, "an outcome for every run", func() bool {
		var complete bool
		outcomes, complete = readOutcomes(ctx, ojs)
		return complete && len(outcomes) >= clusterRuns
	})
	time.Sleep(500 * time.Millisecond) // a second outcome of a run would come now
	waitFor(t, 30*time.Second, "a complete read of the outcome streams", func() bool {
		var complete bool
		outcomes, complete = readOutcomes(ctx, ojs)
		return complete
	})
	for i := range clusterRuns {
		run := fmt.Sprintf("cl-%03d", i)
		got := outcomes[run]
		if len(got) != 1 {
			t.Errorf("run %s has %d outcomes, want 1", run, len(got))
			continue
		}
		m := got[0]
		if m.Headers().Get(contract.HeaderOutcome) != string(contract.OutcomeValid) {
			t.Errorf("run %s: outcome %s: %s", run, m.Headers().Get(contract.HeaderOutcome), m.Data())
		}
		if err := executor.Verify(m.Subject(), m.Headers(), m.Data(), sec.gatewayPub); err != nil {
			t.Errorf("run %s: %v", run, err)
		}
	}
	if n := len(outcomes["cl-forged"]); n != 0 {
		t.Errorf("the forged result was stored %d time(s)", n)
	}
	if len(outcomes) != clusterRuns {
		t.Errorf("outcomes for %d runs, want %d", len(outcomes), clusterRuns)
	}
}

// killStreamLeader shuts down the node leading stream and returns its name.
func killStreamLeader(t *testing.T, nodes []*server.Server, stream string) string {
	t.Helper()
	for _, n := range nodes {
		if n.JetStreamIsStreamLeader("AGENTGATE", stream) {
			name := n.Name()
			n.Shutdown()
			n.WaitForShutdown()
			return name
		}
	}
	t.Fatalf("no node leads %s", stream)
	return ""
}

// readOutcomes reads every outcome stream and groups the messages by run;
// complete is false when a stream could not be read to its end (leaders
// may be moving: the caller polls).
func readOutcomes(ctx context.Context, js jetstream.JetStream) (byRun map[string][]jetstream.Msg, complete bool) {
	byRun = map[string][]jetstream.Msg{}
	for _, stream := range topology.OutcomeStreams {
		s, err := js.Stream(ctx, stream)
		if err != nil {
			return byRun, false
		}
		total := s.CachedInfo().State.Msgs
		if total == 0 {
			continue
		}
		c, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
		if err != nil {
			return byRun, false
		}
		for read := uint64(0); read < total; read++ {
			m, err := c.Next(jetstream.FetchMaxWait(2 * time.Second))
			if err != nil {
				return byRun, false
			}
			run := m.Headers().Get(contract.HeaderRunID)
			byRun[run] = append(byRun[run], m)
		}
	}
	return byRun, true
}
