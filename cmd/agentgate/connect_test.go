package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/agentgate/agentgate/internal/natstest"
)

// execute runs the CLI and returns its error, for tests of the messages.
func execute(args ...string) error {
	cmd := newRootCmd()
	cmd.SetArgs(args)
	cmd.SetIn(strings.NewReader(""))
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	return cmd.ExecuteContext(context.Background())
}

func TestConnect_everyCommandTakesCredentials(t *testing.T) {
	ns := natstest.ServerWith(t, &server.Options{JetStream: true, Users: []*server.User{{Username: "alice", Password: "secret"}}})
	url := ns.ClientURL()

	for _, args := range [][]string{
		{"runs", "show", "r1"},
		{"tail", "valid", "--count", "1"},
		{"dlq", "list"},
		{"publish", "--agent", "pr-reviewer", "--run", "r1", "--wait", "100ms"},
	} {
		t.Run(args[0]+"/wrong password", func(t *testing.T) {
			err := execute(append(args, "-s", url, "--user", "alice", "--password", "wrong")...)
			for _, want := range []string{url, `user "alice"`, "refused the credential"} {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("error %v does not say %q", err, want)
				}
			}
		})
		t.Run(args[0]+"/AGENTGATE_ environment", func(t *testing.T) {
			t.Setenv("AGENTGATE_NATS_URL", url)
			t.Setenv("AGENTGATE_USER", "alice")
			t.Setenv("AGENTGATE_PASSWORD", "secret")
			err := execute(args...)
			if err != nil && strings.Contains(err.Error(), "connecting to NATS") {
				t.Errorf("did not connect: %v", err)
			}
		})
	}
	t.Run("--server wins over AGENTGATE_NATS_URL", func(t *testing.T) {
		t.Setenv("AGENTGATE_NATS_URL", "nats://127.0.0.1:1")
		err := execute("runs", "show", "r1", "--server", url, "--user", "alice", "--password", "secret")
		if err != nil && strings.Contains(err.Error(), "connecting to NATS") {
			t.Errorf("did not connect: %v", err)
		}
	})
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, code := run(t, "", args...)
		if code != 0 || !strings.HasPrefix(out, "agentgate ") || !strings.Contains(out, "commit ") {
			t.Errorf("%v: %q (exit %d), want agentgate <version> (commit ...)", args, out, code)
		}
	}
	out, code := run(t, "", "version", "--json")
	if code != 0 || !strings.Contains(out, `"module": "github.com/agentgate/agentgate"`) {
		t.Errorf("version --json: %q (exit %d)", out, code)
	}
}

func TestHealth(t *testing.T) {
	srv := natstest.Server(t)
	g, stop := natstest.Gateway(t, srv, examples)
	url := "http://" + g.HTTPAddr() + "/healthz"
	if out, code := run(t, "", "health", "--url", url); code != 0 || !strings.HasPrefix(out, "healthy") {
		t.Fatalf("health of a running gateway: %q, exit %d", out, code)
	}
	stop()
	if _, code := run(t, "", "health", "--url", url, "--timeout", "500ms"); code != 1 {
		t.Fatalf("health of a stopped gateway: exit %d, want 1", code)
	}
}
