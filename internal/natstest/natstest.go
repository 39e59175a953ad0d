// Package natstest starts what agentgate's tests run against: a real NATS
// server with JetStream on a free loopback port, its files in the test's
// temporary directory, stopped when the test ends. It is for tests only.
package natstest

import (
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/router"
)

// Server starts an embedded NATS server with JetStream for t.
func Server(t testing.TB) *server.Server {
	t.Helper()
	srv, err := router.StartEmbedded(router.EmbeddedConfig{Listen: "127.0.0.1:0", StoreDir: t.TempDir()})
	if err != nil {
		t.Fatalf("starting NATS: %v", err)
	}
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	return srv
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
