package executor_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/agentgate/agentgate/executor"
	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/internal/natstest"
)

func TestNew_badConfig(t *testing.T) {
	t.Parallel()
	nc := &nats.Conn{} // never used: New does no I/O
	tests := []struct {
		name  string
		given executor.Config
		want  []string // fragments of the joined error
	}{
		{"no connection", executor.Config{}, []string{"no NATS connection"}},
		{"relative URL", executor.Config{Conn: nc, GatewayURL: "127.0.0.1:8080"}, []string{"not an absolute http(s) URL"}},
		{"every problem at once", executor.Config{GatewayURL: "ftp://x", AwaitTimeout: -1},
			[]string{"no NATS connection", "ftp://x", "negative timeout"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := executor.New(tt.given, nil)
			if !errors.Is(err, executor.ErrBadConfig) {
				t.Fatalf("err = %v, want ErrBadConfig", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v, want it to say %q", err, w)
				}
			}
		})
	}
}

func TestSystemPrompt(t *testing.T) {
	t.Parallel()
	ag := withGateway(t)
	ctx := testCtx(t)
	p, err := ag.client.SystemPrompt(ctx, "pr-reviewer")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p, "You are a thorough, constructive code reviewer.") || !strings.Contains(p, "## Required Output Format") {
		t.Errorf("prompt = %q", p)
	}
	if _, err := ag.client.SystemPrompt(ctx, "nobody"); !errors.Is(err, executor.ErrUnknownAgent) {
		t.Errorf("unknown agent: err = %v", err)
	}
}

// A gateway that requires tokens answers the client that has one, and
// refuses the one that has none with a clear error.
func TestSystemPrompt_apiToken(t *testing.T) {
	t.Parallel()
	const token = "read-token-for-executor"
	file := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(file, []byte("read "+token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := natstest.Server(t)
	g, _ := natstest.Gateway(t, srv, "../examples", func(c *gateway.Config) { c.API.TokenFile = file })
	nc, _ := natstest.Connect(t, srv)
	for _, tt := range []struct {
		token   string
		wantErr error
	}{{token, nil}, {"", executor.ErrGateway}} {
		c, err := executor.New(executor.Config{Conn: nc, GatewayURL: "http://" + g.HTTPAddr(), APIToken: tt.token}, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.SystemPrompt(testCtx(t), "pr-reviewer")
		if !errors.Is(err, tt.wantErr) || (err != nil && !strings.Contains(err.Error(), "401")) {
			t.Errorf("token %q: err = %v, want %v", tt.token, err, tt.wantErr)
		}
	}
}
