package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/internal/agenttest"
	"github.com/agentgate/agentgate/internal/natstest"
)

// startGateway runs a gateway on srv until stop is called.
func startGateway(t *testing.T, srv *server.Server, mutate func(*gateway.Config)) (stop func()) {
	t.Helper()
	var ms []func(*gateway.Config)
	if mutate != nil {
		ms = append(ms, mutate)
	}
	_, stop = natstest.Gateway(t, srv, examples, ms...)
	return stop
}

// eventually runs the CLI until its output matches, bounded.
func eventually(t *testing.T, want *regexp.Regexp, args ...string) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		out, _ := run(t, "", args...)
		if want.MatchString(out) {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("agentgate %s never printed %s; last output:\n%s", strings.Join(args, " "), want, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// An operator's day: an output is dead-lettered because a limit was too
// low; the gateway is fixed and restarted; the dead letter is replayed
// into its run, once, and the run completes.
func TestOperator_dlqReplayAfterAFix(t *testing.T) {
	srv := natstest.Server(t)
	url := srv.ClientURL()
	review := `{"summary":"A long enough review to go over the limit","approval":"approve","comments":[]}`

	stop := startGateway(t, srv, func(c *gateway.Config) { c.MaxPayload = 40 })
	out, code := run(t, review, "publish", "--nats-url", url, "--agent", "pr-reviewer", "--run", "big")
	if code != 1 || !strings.Contains(out, "payload_too_large") {
		t.Fatalf("publish: exit %d: %s", code, out)
	}
	list, code := run(t, "", "dlq", "list", "--nats-url", url, "--agent", "pr-reviewer")
	if code != 0 || !regexp.MustCompile(`\d+  \S+  dlq\s+pr-reviewer\s+big\s+#1  payload_too_large`).MatchString(list) {
		t.Fatalf("dlq list: exit %d:\n%s", code, list)
	}
	show, code := run(t, "", "dlq", "show", "--nats-url", url, "big")
	if code != 0 || !strings.Contains(show, `"type": "payload_too_large"`) || !strings.Contains(show, "A long enough review") {
		t.Fatalf("dlq show: exit %d:\n%s", code, show)
	}
	stop()

	// The fix: the default limit.
	startGateway(t, srv, nil)
	out, code = run(t, "", "dlq", "replay", "--nats-url", url, "--run", "big")
	if code != 0 || !strings.Contains(out, "into run big") {
		t.Fatalf("replay: exit %d: %s", code, out)
	}
	// The state is recorded just before the outcome is published: wait
	// for both.
	state := eventually(t, regexp.MustCompile(`(?s)"status": "completed".*2 outcome\(s\)`), "runs", "show", "--nats-url", url, "big")
	if !regexp.MustCompile(`"replays": \[\s+\d+\s+\]`).MatchString(state) {
		t.Errorf("runs show after replay:\n%s", state)
	}

	// Replaying again does nothing: the CLI skips the completed run...
	out, _ = run(t, "", "dlq", "replay", "--nats-url", url, "--run", "big")
	if strings.Contains(out, "replayed dead letter") {
		t.Errorf("second replay: %s", out)
	}
	// ... and tail shows the one valid result.
	tail, code := run(t, "", "tail", "valid", "--nats-url", url, "--from-start", "--count", "1", "--agent", "pr-reviewer")
	if code != 0 || !regexp.MustCompile(`valid\s+pr-reviewer\s+big\s+#1  0 normalization`).MatchString(tail) {
		t.Errorf("tail: exit %d: %s", code, tail)
	}
	if _, code := run(t, "", "dlq", "replay", "--nats-url", url); code != 2 {
		t.Errorf("replay with neither --run nor --all: exit %d, want 2", code)
	}
	if _, code := run(t, "", "runs", "show", "--nats-url", url, "no-such-run"); code != 1 {
		t.Errorf("runs show of an unknown run: exit %d, want 1", code)
	}
}

// runs show and tail --from-start print a run's outcomes by attempt, though
// they come from different streams and often share a second.
func TestOperator_outcomesInAttemptOrder(t *testing.T) {
	srv := natstest.Server(t)
	url := srv.ClientURL()
	startGateway(t, srv, nil)
	const runs = 4
	bad := `{"summary":"ok","approval":"lgtm","comments":[]}`
	for i := range runs {
		for attempt := 1; attempt <= 2; attempt++ {
			if out, code := run(t, bad, "publish", "--nats-url", url, "--agent", "pr-reviewer", "--run", fmt.Sprintf("order-%d", i)); code != 1 {
				t.Fatalf("publish: exit %d: %s", code, out)
			}
		}
	}
	attempts := regexp.MustCompile(`(?m)(order-\d+)\s+#(\d)`)
	checkOrder := func(what, out string, wantLines int) {
		t.Helper()
		next := map[string]string{}
		ms := attempts.FindAllStringSubmatch(out, -1)
		for _, m := range ms {
			if m[2] != next[m[1]] && !(next[m[1]] == "" && m[2] == "1") {
				t.Errorf("%s: %s attempt %s out of order:\n%s", what, m[1], m[2], out)
			}
			next[m[1]] = "2"
		}
		if len(ms) != wantLines {
			t.Errorf("%s: %d outcome lines, want %d:\n%s", what, len(ms), wantLines, out)
		}
	}
	for i := range runs {
		out, code := run(t, "", "runs", "show", "--nats-url", url, fmt.Sprintf("order-%d", i))
		if code != 0 || !regexp.MustCompile(`(?s)#1  \$\.approval.*#2  output_schema_validation_failed`).MatchString(out) {
			t.Errorf("runs show: exit %d:\n%s", code, out)
		}
		checkOrder("runs show", out, 2)
	}
	out, code := run(t, "", "tail", "--nats-url", url, "--from-start", "--count", fmt.Sprint(2*runs))
	if code != 0 {
		t.Fatalf("tail: exit %d: %s", code, out)
	}
	checkOrder("tail --from-start", out, 2*runs)
}

// Publishing again to a finished run (the tour re-run against an existing
// ./data) says so at once and prints the recorded outcome, rather than
// waiting for an outcome that cannot come.
func TestPublish_finishedRunAnswersAtOnce(t *testing.T) {
	srv := natstest.Server(t)
	url := srv.ClientURL()
	startGateway(t, srv, nil)
	valid := `{"summary":"ok","approval":"approve","comments":[]}`
	if out, code := run(t, valid, "publish", "--nats-url", url, "--agent", "pr-reviewer", "--run", "again"); code != 0 {
		t.Fatalf("first publish: exit %d: %s", code, out)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string
	}{
		{"no attempt", nil, 0, `already finished (completed at attempt 1)`},
		{"the finished attempt", []string{"--attempt", "1"}, 0, `already finished`},
		{"a later attempt is published and dead-lettered", []string{"--attempt", "2"}, 1, `run_already_completed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := newRootCmd()
			var out, errOut bytes.Buffer
			cmd.SetArgs(append([]string{"publish", "--nats-url", url, "--agent", "pr-reviewer", "--run", "again", "--wait", "1m"}, tt.args...))
			cmd.SetIn(strings.NewReader(valid))
			cmd.SetOut(&out)
			cmd.SetErr(&errOut)
			err := cmd.ExecuteContext(context.Background())
			code := 0
			var ec exitCode
			if errors.As(err, &ec) {
				code = ec.code
			}
			if code != tt.wantCode || !strings.Contains(errOut.String()+out.String(), tt.want) {
				t.Errorf("exit %d, want %d; stderr:\n%s\nstdout:\n%s\nwant %q", code, tt.wantCode, errOut.String(), out.String(), tt.want)
			}
			if strings.Contains(errOut.String(), "no new outcome within") {
				t.Errorf("waited out --wait:\n%s", errOut.String())
			}
		})
	}
}

// The README's tour with the files it ships: the drifted review validates
// offline, and the bad review published twice to run-4 becomes the dead
// letter that `dlq show run-4` prints.
func TestReadme_tourFiles(t *testing.T) {
	if out, code := run(t, "", "validate", "--agent", "pr-reviewer", examples+"/outputs/review.txt"); code != 0 || !strings.Contains(out, `"normalized":true`) {
		t.Errorf("validate review.txt: exit %d: %s", code, out)
	}
	if out, code := run(t, "", "validate", "--agent", "pr-reviewer", examples+"/outputs/bad-review.txt"); code != 1 || !strings.Contains(out, `"retry_requested"`) {
		t.Errorf("validate bad-review.txt: exit %d: %s", code, out)
	}
	srv := natstest.Server(t)
	url := srv.ClientURL()
	startGateway(t, srv, nil)
	want := []string{`"event_type":"retry_requested"`, `"output_schema_validation_failed"`}
	for i, w := range want {
		out, code := run(t, "", "publish", "--nats-url", url, "--agent", "pr-reviewer", "--run", "run-4", examples+"/outputs/bad-review.txt")
		if code != 1 || !strings.Contains(out, w) {
			t.Fatalf("publish %d: exit %d: %s", i+1, code, out)
		}
	}
	// The outcome reached publish's subscription; the stream stores it
	// at about the same time, not necessarily before.
	var show string
	natstest.WaitFor(t, 10*time.Second, "dlq show run-4 to print the dead letter", func() bool {
		var code int
		show, code = run(t, "", "dlq", "show", "--nats-url", url, "run-4")
		return code == 0
	})
	if !strings.Contains(show, `"type": "output_schema_validation_failed"`) {
		t.Errorf("dlq show run-4: %s", show)
	}
}

// A gated exchange (contract section 10) is a run like any other: runs show
// and tail print its attempts, the retry inside the exchange included.
func TestOperator_gatedRunShowsLikeAnyOther(t *testing.T) {
	srv := natstest.Server(t)
	url := srv.ClientURL()
	schema, err := os.ReadFile(filepath.Join(examples, "schemas", "pr-review.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := writeConfig(t, map[string]string{
		"schemas/pr-review.schema.json": string(schema),
		"agents/gated.json": `{"name": "gated", "description": "gated", "output_schema": "https://agentgate.dev/schemas/pr-review/1.0.0",
			"max_retries": 1, "upstream": {"agent": "demo", "owner": "me", "name": "reviewer"}}`,
	})
	anc, _ := natstest.Connect(t, srv)
	agenttest.Start(t, anc, agenttest.Config{Agent: "demo", Owner: "me", Name: "reviewer", Turns: []agenttest.Turn{
		{{Response: `{"summary": "ok", "approval": "lgtm", "comments": []}`}},
		{{Response: `{"summary": "ok", "approval": "approve", "comments": []}`}},
	}})
	g, _ := natstest.Gateway(t, srv, dir, func(c *gateway.Config) {
		c.GateDiscoveryWait, c.GateDiscoveryRetry = 300*time.Millisecond, 200*time.Millisecond
	})
	select {
	case <-g.Twins()[0].Registered():
	case <-time.After(10 * time.Second):
		t.Fatal("the twin did not register")
	}
	nc, _ := natstest.Connect(t, srv)
	msg := nats.NewMsg("agents.gate.me.reviewer")
	msg.Header.Set("Run-Id", "gated-1")
	msg.Data = []byte("Review this diff")
	msg.Reply = nc.NewInbox()
	if err := nc.PublishMsg(msg); err != nil {
		t.Fatal(err)
	}
	out := eventually(t, regexp.MustCompile(`(?s)"status": "completed".*2 outcome\(s\)`), "runs", "show", "--nats-url", url, "gated-1")
	if !regexp.MustCompile(`(?s)retry\s+gated\s+gated-1\s+#1.*valid\s+gated\s+gated-1\s+#2`).MatchString(out) {
		t.Errorf("runs show gated-1:\n%s", out)
	}
	tail, code := run(t, "", "tail", "--nats-url", url, "--from-start", "--count", "2", "--agent", "gated")
	if code != 0 || !strings.Contains(tail, "gated-1") || strings.Count(tail, "gated-1") != 2 {
		t.Errorf("tail: exit %d:\n%s", code, tail)
	}
}
