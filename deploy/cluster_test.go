package deploy_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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

// clusterRuns is how many runs the cluster test publishes; the raw
// stream's leader is killed once a third of them are out.
const clusterRuns = 60

// buildNATSServer builds the nats-server command of the version go.mod
// requires into dir, with the go command running the test (go test puts
// its GOROOT/bin first on the PATH; the module cache or proxy has the
// source). It skips t when there is no go command to build with.
func buildNATSServer(t *testing.T, dir string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(goBin); err != nil {
			t.Skip("no go command (on the PATH or in GOROOT) to build nats-server with")
		}
	}
	bin := filepath.Join(dir, "nats-server")
	start := time.Now()
	out, err := exec.Command(goBin, "build", "-o", bin, "github.com/nats-io/nats-server/v2").CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "toolchain") {
			t.Skipf("no toolchain to build nats-server with: %s", out)
		}
		t.Fatalf("building nats-server: %v\n%s", err, out)
	}
	t.Logf("built nats-server in %s", time.Since(start).Round(time.Second))
	return bin
}

// natsNode is one node of the cluster: a nats-server process run from the
// test's work directory, its output in a log file of its own.
type natsNode struct {
	name      string // server_name, as JetStream names stream leaders
	clientURL string
	healthURL string // the monitoring port's /healthz
	log       string
	cmd       *exec.Cmd
	exited    chan struct{} // closed once the process has exited
	exitErr   error         // what Wait returned, once exited is closed
}

// startNode runs bin -c conf in dir and kills the process when t ends,
// showing the end of its log if t failed.
func startNode(t *testing.T, bin, dir, name, conf, clientURL, healthURL string) *natsNode {
	t.Helper()
	n := &natsNode{name: name, clientURL: clientURL, healthURL: healthURL,
		log: filepath.Join(dir, name+".log"), exited: make(chan struct{})}
	logf, err := os.Create(n.log)
	if err != nil {
		t.Fatal(err)
	}
	n.cmd = exec.Command(bin, "-c", conf) // the secrets come from the environment
	n.cmd.Dir, n.cmd.Stdout, n.cmd.Stderr = dir, logf, logf
	if err := n.cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		n.exitErr = n.cmd.Wait()
		logf.Close()
		close(n.exited)
	}()
	t.Cleanup(func() {
		n.kill(t)
		if t.Failed() {
			t.Logf("%s's log ends:\n%s", name, n.tail(40))
		}
	})
	return n
}

// kill sends the process SIGKILL (no shutdown: it dies as a crashed node
// would) and waits until it has exited.
func (n *natsNode) kill(t *testing.T) {
	t.Helper()
	select {
	case <-n.exited:
		return
	default:
	}
	if err := n.cmd.Process.Kill(); err != nil {
		t.Errorf("killing %s: %v", n.name, err)
	}
	select {
	case <-n.exited:
	case <-time.After(10 * time.Second):
		t.Errorf("%s did not exit within 10s of SIGKILL", n.name)
	}
}

// healthy reports whether the node answers its /healthz with 200 (which
// needs JetStream up and in contact with the meta leader); it fails t if
// the process has exited.
func (n *natsNode) healthy(t *testing.T) bool {
	t.Helper()
	select {
	case <-n.exited:
		t.Fatalf("%s exited (%v); its log ends:\n%s", n.name, n.exitErr, n.tail(40))
	default:
	}
	resp, err := healthClient.Get(n.healthURL)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

var healthClient = &http.Client{Timeout: time.Second}

// tail is the last lines of the node's log, but for its retries of routes
// to a node that is gone (one a second).
func (n *natsNode) tail(lines int) string {
	b, err := os.ReadFile(n.log)
	if err != nil {
		return err.Error()
	}
	var kept []string
	for l := range strings.Lines(string(b)) {
		if !strings.Contains(l, "Error trying to connect to route") {
			kept = append(kept, strings.TrimRight(l, "\n"))
		}
	}
	return strings.Join(kept[max(0, len(kept)-lines):], "\n")
}

// bootCluster generates certificates with nats/gen-certs.sh and runs the
// three nodes of nats/n1.conf, n2.conf and n3.conf (which include
// auth.conf) as nats-server processes, each from a work directory holding
// certs/ and data/ as the files say to run them. Only the addresses
// change: every node listens on loopback ports of its own and routes to
// the other two there; the rewritten copies sit in the work directory.
func bootCluster(t *testing.T, bin string) (nodes []*natsNode, certs string) {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl is needed to run nats/gen-certs.sh")
	}
	nats, _ := filepath.Abs("nats")
	work := t.TempDir()
	if out, err := exec.Command("bash", filepath.Join(nats, "gen-certs.sh"), filepath.Join(work, "certs")).CombinedOutput(); err != nil {
		t.Fatalf("gen-certs.sh: %v\n%s", err, out)
	}
	auth, err := os.ReadFile(filepath.Join(nats, "auth.conf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "auth.conf"), auth, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work) // the files' relative certs/ paths, for checkNodeConf

	type ports struct{ client, http, route int }
	ps := make([]ports, 3)
	for i := range ps {
		ps[i] = ports{natstest.FreePort(t), natstest.FreePort(t), natstest.FreePort(t)}
	}
	for i, p := range ps {
		name := fmt.Sprintf("n%d", i+1)
		src := filepath.Join(nats, name+".conf")
		text, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		checkNodeConf(t, src) // before the addresses change
		swaps := []string{
			"listen: 0.0.0.0:4222", fmt.Sprintf("listen: 127.0.0.1:%d", p.client),
			"http: 0.0.0.0:8222", fmt.Sprintf("http: 127.0.0.1:%d", p.http),
			"listen: 0.0.0.0:6222", fmt.Sprintf("listen: 127.0.0.1:%d", p.route),
		}
		for j, q := range ps {
			if j != i {
				swaps = append(swaps, fmt.Sprintf("nats-route://n%d:6222", j+1), fmt.Sprintf("nats-route://127.0.0.1:%d", q.route))
			}
		}
		conf := string(text)
		for k := 0; k < len(swaps); k += 2 {
			if c := strings.Count(conf, swaps[k]); c != 1 {
				t.Fatalf("%s says %q %d times, want once: the test rewrites it", src, swaps[k], c)
			}
			conf = strings.Replace(conf, swaps[k], swaps[k+1], 1)
		}
		path := filepath.Join(work, name+".conf")
		if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		if opts := checkNodeConf(t, path); opts.Port != p.client || opts.HTTPPort != p.http || opts.Cluster.Port != p.route {
			t.Fatalf("%s: ports %d, %d, %d after the rewrite, want %d, %d, %d", path, opts.Port, opts.HTTPPort, opts.Cluster.Port, p.client, p.http, p.route)
		}
		nodes = append(nodes, startNode(t, bin, work, name, path,
			fmt.Sprintf("tls://127.0.0.1:%d", p.client), fmt.Sprintf("http://127.0.0.1:%d/healthz", p.http)))
	}
	for _, n := range nodes {
		waitFor(t, 60*time.Second, n.name+" healthy (JetStream in contact with a meta leader)", func() bool { return n.healthy(t) })
	}
	return nodes, filepath.Join(work, "certs")
}

// checkNodeConf checks what a node's file must say (the test rewrites
// addresses only) and returns its options.
func checkNodeConf(t *testing.T, conf string) *server.Options {
	t.Helper()
	opts, err := server.ProcessConfigFile(conf)
	if err != nil {
		t.Fatalf("%s: %v", conf, err)
	}
	switch {
	case opts.TLSConfig == nil || opts.Cluster.TLSConfig == nil:
		t.Fatalf("%s: no TLS on client or route connections", conf)
	case opts.Cluster.TLSConfig.ClientAuth != tls.RequireAndVerifyClientCert:
		t.Fatalf("%s: routes do not verify each other's certificates", conf)
	case opts.HTTPPort == 0:
		t.Fatalf("%s: no monitoring port (the test polls /healthz)", conf)
	}
	if !opts.JetStream || len(opts.Routes) != 2 || len(opts.Accounts) < 2 || opts.SystemAccount != "SYS" {
		t.Fatalf("%s: JetStream %v, %d routes, %d accounts, system account %q", conf, opts.JetStream, len(opts.Routes), len(opts.Accounts), opts.SystemAccount)
	}
	return opts
}

// TestCluster_deployFiles runs the cluster of deploy/nats/ as nats-server
// processes (built from the module's nats-server), runs two gateways on it
// over TLS with the gateway's NKey, publishes runs as the pr-reviewer
// agent, kills the raw stream's leader (SIGKILL) mid-run, and checks that
// every run gets exactly one outcome, signed, and that a forged publish is
// refused.
func TestCluster_deployFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds nats-server and runs a three-node cluster (about 30 s); make test runs it")
	}
	bin := buildNATSServer(t, t.TempDir())
	sec := setSecrets(t)
	examples, _ := filepath.Abs("../examples")
	nodes, certs := bootCluster(t, bin)
	urls := make([]string, len(nodes))
	for i, n := range nodes {
		urls[i] = n.clientURL
	}
	all := strings.Join(urls, ",")
	ca := filepath.Join(certs, "ca.pem")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()

	// The operator finds the stream leader and reads the outcomes.
	onc, err := natsconn.Connect(natsconn.Options{Servers: all, User: "operator", Password: sec.passwords["operator"],
		TLSCA: ca, InboxPrefix: "_INBOX_operator"}, "", nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(onc.Close)
	ojs, _ := jetstream.New(onc)
	// Every node healthy is not yet every node known to the meta leader:
	// the gateways' replicated streams are placed once an R3 stream can
	// be (the probe stays: no one may delete a stream).
	waitFor(t, 30*time.Second, "a stream placed on three nodes", func() bool {
		pctx, pcancel := context.WithTimeout(ctx, 2*time.Second)
		defer pcancel()
		_, err := ojs.CreateOrUpdateStream(pctx, jetstream.StreamConfig{Name: "CLUSTER_PROBE", Subjects: []string{"cluster.probe"},
			Storage: jetstream.MemoryStorage, Replicas: 3, MaxMsgs: 1})
		return err == nil
	})

	for range 2 {
		natstest.GatewayAt(t, all, examples, func(c *gateway.Config) {
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

	// Publish the runs, each until JetStream acknowledges it (its
	// Nats-Msg-Id keeps a retried publish single), killing the raw stream's
	// leader after a third of them.
	var killed *natsNode
	for i := range clusterRuns {
		if i == clusterRuns/3 {
			killed = killStreamLeader(ctx, t, ojs, nodes, topology.StreamRaw)
			t.Logf("killed %s (SIGKILL, %v), the leader of %s, after %d runs", killed.name, killed.exitErr, topology.StreamRaw, i)
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
	// The publishes after the kill went to a new leader.
	waitFor(t, 30*time.Second, "a new leader of "+topology.StreamRaw, func() bool {
		leader, err := streamLeader(ctx, ojs, topology.StreamRaw)
		return err == nil && leader != killed.name
	})

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
	var outcomes map[string][]*jetstream.RawStreamMsg
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var complete bool
		outcomes, complete = readOutcomes(ctx, ojs)
		if complete && len(outcomes) >= clusterRuns {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60s, %s", missingOutcomes(ctx, ojs, outcomes, complete))
		}
	}
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
		if m.Header.Get(contract.HeaderOutcome) != string(contract.OutcomeValid) {
			t.Errorf("run %s: outcome %s: %s", run, m.Header.Get(contract.HeaderOutcome), m.Data)
		}
		if err := executor.Verify(m.Subject, m.Header, m.Data, sec.gatewayPub); err != nil {
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

// streamLeader is the name of the server leading stream, as JetStream
// reports it to js.
func streamLeader(ctx context.Context, js jetstream.JetStream, stream string) (string, error) {
	sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	s, err := js.Stream(sctx, stream)
	if err != nil {
		return "", err
	}
	if c := s.CachedInfo().Cluster; c != nil && c.Leader != "" {
		return c.Leader, nil
	}
	return "", fmt.Errorf("%s has no leader", stream)
}

// killStreamLeader asks JetStream which node leads stream and kills that
// node's process with SIGKILL.
func killStreamLeader(ctx context.Context, t *testing.T, js jetstream.JetStream, nodes []*natsNode, stream string) *natsNode {
	t.Helper()
	var leader string
	waitFor(t, 10*time.Second, "the leader of "+stream, func() bool {
		var err error
		leader, err = streamLeader(ctx, js, stream)
		return err == nil
	})
	for _, n := range nodes {
		if n.name == leader {
			n.kill(t)
			return n
		}
	}
	t.Fatalf("%s is led by %q, not a node the test runs", stream, leader)
	return nil
}

// missingOutcomes says which runs have no outcome and what the gateways'
// consumer on the raw stream holds, for a failure.
func missingOutcomes(ctx context.Context, js jetstream.JetStream, outcomes map[string][]*jetstream.RawStreamMsg, complete bool) string {
	var missing []string
	for i := range clusterRuns {
		if run := fmt.Sprintf("cl-%03d", i); len(outcomes[run]) == 0 {
			missing = append(missing, run)
		}
	}
	msg := fmt.Sprintf("%d runs have no outcome (outcome streams read to the end: %v): %v", len(missing), complete, missing)
	ictx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	c, err := js.Consumer(ictx, topology.StreamRaw, topology.GatewayConsumer)
	if err != nil {
		return msg + fmt.Sprintf("; consumer %s: %v", topology.GatewayConsumer, err)
	}
	i := c.CachedInfo()
	return msg + fmt.Sprintf("; consumer %s: %d pending, %d awaiting ack, %d redelivered, delivered up to stream seq %d, acked up to %d",
		i.Name, i.NumPending, i.NumAckPending, i.NumRedelivered, i.Delivered.Stream, i.AckFloor.Stream)
}

// readOutcomes reads every outcome stream, message by message (no
// consumer to leave behind on the servers when a read fails), and groups
// the messages by run; complete is false when a stream could not be read
// to its end (leaders may be moving: the caller polls).
func readOutcomes(ctx context.Context, js jetstream.JetStream) (byRun map[string][]*jetstream.RawStreamMsg, complete bool) {
	byRun = map[string][]*jetstream.RawStreamMsg{}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for _, stream := range topology.OutcomeStreams {
		s, err := js.Stream(rctx, stream)
		if err != nil {
			return byRun, false
		}
		state := s.CachedInfo().State
		for seq := state.FirstSeq; state.Msgs > 0 && seq <= state.LastSeq; seq++ {
			m, err := s.GetMsg(rctx, seq)
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				continue
			}
			if err != nil {
				return byRun, false
			}
			run := m.Header.Get(contract.HeaderRunID)
			byRun[run] = append(byRun[run], m)
		}
	}
	return byRun, true
}
