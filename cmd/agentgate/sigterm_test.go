package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/internal/natstest"
	"github.com/agentgate/agentgate/topology"
)

// TestMain lets a test run this test binary as the agentgate command:
// with AGENTGATE_TEST_MAIN=1 it is main, with the arguments after "--".
func TestMain(m *testing.M) {
	if os.Getenv("AGENTGATE_TEST_MAIN") == "1" {
		for i, a := range os.Args {
			if a == "--" {
				os.Args = append([]string{"agentgate"}, os.Args[i+1:]...)
				break
			}
		}
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// `agentgate serve` stops on SIGTERM within its shutdown bound, even with
// an output in hand whose decision would take far longer, and exits 0.
func TestServe_SIGTERMWithASlowOutputInHand(t *testing.T) {
	dir := writeConfig(t, map[string]string{
		"schemas/slow.schema.json": `{"$id": "https://agentgate.test/slow/1.0.0", "type": "object", "required": ["words"],
			"properties": {"words": {"type": "array", "items": {"type": "string", "pattern": "^(?=a)(a|aa)+$"}}}}`,
		"agents/slow.json": `{"name": "slow", "output_schema": "https://agentgate.test/slow/1.0.0", "max_retries": 1}`,
	})
	natsAddr, httpAddr := fmt.Sprint("127.0.0.1:", natstest.FreePort(t)), fmt.Sprint("127.0.0.1:", natstest.FreePort(t))
	cmd := exec.Command(os.Args[0], "-test.run=^$", "--", "serve", "--config", dir, "--data-dir", t.TempDir(),
		"--nats-listen", natsAddr, "--http", httpAddr, "--decision-timeout", "1m", "--shutdown-timeout", "1s")
	// Under -race the child reports the race watermill-nats v2.1.3 has
	// when a shutdown leaves a message in hand (its monitor closes the
	// output channel that message was sent on; router/drain.go): it must
	// not decide the exit status, which is what this test reads. Any other
	// race fails the test below.
	cmd.Env = append(os.Environ(), "AGENTGATE_TEST_MAIN=1", "GORACE=exitcode=0")
	var stderr natstest.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	natstest.WaitFor(t, 30*time.Second, "a healthy gateway", func() bool {
		resp, err := http.Get("http://" + httpAddr + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})

	// 40 strings that backtrack for ~0.4 s each: a decision of ~16 s.
	words := make([]string, 40)
	for i := range words {
		words[i] = `"` + strings.Repeat("a", 40) + `b"`
	}
	nc, err := nats.Connect("nats://" + natsAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	msg := nats.NewMsg("agent.output.raw.slow")
	msg.Header.Set("Run-Id", "sigterm-1")
	msg.Data = []byte(`{"words": [` + strings.Join(words, ", ") + `]}`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := js.PublishMsg(ctx, msg); err != nil {
		t.Fatal(err)
	}
	natstest.WaitFor(t, 30*time.Second, "the output in the gateway's hands", func() bool {
		c, err := js.Consumer(ctx, topology.StreamRaw, topology.GatewayConsumer)
		if err != nil {
			return false
		}
		info, err := c.Info(ctx)
		return err == nil && info.NumAckPending == 1
	})

	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		took := time.Since(start)
		if err != nil {
			t.Errorf("serve exited with %v after SIGTERM:\n%s", err, stderr.String())
		}
		// Each stage of the shutdown is bounded by --shutdown-timeout
		// (1s), but for the HTTP server's and the connection's own bounds;
		// the decision alone would take ~16 s.
		if took > 12*time.Second {
			t.Errorf("serve took %s to stop", took)
		}
		t.Logf("stopped %s after SIGTERM", took.Round(time.Millisecond))
		for _, report := range strings.Split(stderr.String(), "WARNING: DATA RACE")[1:] {
			if !strings.Contains(report, "watermill-nats/v2/pkg/jetstream.monitor(") {
				t.Errorf("a data race other than watermill-nats's at close:\n%s", report)
			}
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
		t.Fatalf("serve still running 30s after SIGTERM:\n%s", stderr.String())
	}
}
