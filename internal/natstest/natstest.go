// Package natstest starts what agentgate's tests run against: a real NATS
// server with JetStream on a free loopback port, its files in the test's
// temporary directory, and a gateway on it, all stopped when the test ends.
// It is for tests only: no package but a test may import it.
package natstest

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/embedded"
	"github.com/agentgate/agentgate/gateway"
)

// Server starts an embedded NATS server with JetStream for t.
func Server(t testing.TB) *server.Server {
	t.Helper()
	srv, err := embedded.Start(embedded.Config{Listen: "127.0.0.1:0", StoreDir: t.TempDir()})
	if err != nil {
		t.Fatalf("starting NATS: %v", err)
	}
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	return srv
}

// ServerWith starts a NATS server with opts (users, TLS, operators...) on
// a free loopback port for t, without JetStream unless opts asks for it.
func ServerWith(t testing.TB, opts *server.Options) *server.Server {
	t.Helper()
	opts.Host, opts.Port, opts.NoLog, opts.NoSigs = "127.0.0.1", server.RANDOM_PORT, true, true
	if opts.JetStream && opts.StoreDir == "" {
		opts.StoreDir = t.TempDir()
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		t.Fatalf("starting NATS: %v", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("NATS not ready within 10s")
	}
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	return srv
}

// FreePort is a loopback port nothing listens on, to hand to a server the
// test starts (as a process, or through a command line).
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Connect connects to srv for t, closing the connection when t ends.
func Connect(t testing.TB, srv *server.Server) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatalf("connecting to NATS: %v", err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

// Gateway runs a gateway on srv with the configuration in configDir (the
// bundled examples, seen from the test's package), its HTTP API on a free
// loopback port and its logs discarded, and waits until /healthz answers.
// mutate adjusts the configuration first. stop shuts it down gracefully and
// fails t if that fails or takes over 30 s; it runs at the end of t too and
// is safe to call twice.
func Gateway(t testing.TB, srv *server.Server, configDir string, mutate ...func(*gateway.Config)) (g *gateway.Gateway, stop func()) {
	t.Helper()
	return GatewayAt(t, srv.ClientURL(), configDir, mutate...)
}

// GatewayAt is Gateway on the NATS servers at url (comma-separated), for
// servers the test runs as processes of their own.
func GatewayAt(t testing.TB, url, configDir string, mutate ...func(*gateway.Config)) (g *gateway.Gateway, stop func()) {
	t.Helper()
	cfg := gateway.Config{
		ConfigDir: configDir, NATSURL: url, HTTPAddr: "127.0.0.1:0",
		Logger: slog.New(slog.DiscardHandler),
	}
	for _, m := range mutate {
		m(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	g, err := gateway.New(ctx, cfg)
	if err != nil {
		cancel()
		t.Fatalf("starting gateway: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- g.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("gateway stopped with %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Errorf("gateway did not stop within 30s")
			}
		})
	}
	t.Cleanup(stop)

	// Polled on the gateway rather than over HTTP: the test may require a
	// token for /healthz, or TLS.
	// Bounded generously: a loaded machine running every package's tests
	// at once under -race is slow to start one.
	deadline := time.Now().Add(30 * time.Second)
	for !g.Healthy() {
		if time.Now().After(deadline) {
			t.Fatalf("gateway not healthy after 30s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return g, stop
}

// WaitFor polls cond every 20 ms until it holds, failing t with what it
// waited for once limit has passed.
func WaitFor(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Buffer is a bytes.Buffer that the goroutines of a gateway or a command's
// output copier may write while the test reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
