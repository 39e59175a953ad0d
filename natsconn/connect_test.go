package natsconn_test

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"

	"github.com/agentgate/agentgate/internal/natstest"
	"github.com/agentgate/agentgate/natsconn"
)

// authServer starts a NATS server that knows a user "alice" with password
// "secret" and the NKey user pub.
func authServer(t *testing.T, pub string) *server.Server {
	t.Helper()
	return natstest.ServerWith(t, &server.Options{
		Users: []*server.User{{Username: "alice", Password: "secret"}},
		Nkeys: []*server.NkeyUser{{Nkey: pub}},
	})
}

func seedFile(t *testing.T) (path, pub string) {
	t.Helper()
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := kp.Seed()
	pub, _ = kp.PublicKey()
	path = filepath.Join(t.TempDir(), "user.nk")
	if err := os.WriteFile(path, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, pub
}

func TestConnect_credentials(t *testing.T) {
	seed, pub := seedFile(t)
	ns := authServer(t, pub)
	url := ns.ClientURL()

	tests := []struct {
		name    string
		given   natsconn.Options
		wantErr []string // substrings of the error; nil: connects
	}{
		{name: "user and password", given: natsconn.Options{Servers: url, User: "alice", Password: "secret"}},
		{name: "nkey seed file", given: natsconn.Options{Servers: url, NKey: seed}},
		{name: "wrong password", given: natsconn.Options{Servers: url, User: "alice", Password: "nope"},
			wantErr: []string{url, `user "alice"`, "refused the credential"}},
		{name: "no credentials", given: natsconn.Options{Servers: url},
			wantErr: []string{url, "no credentials", "refused the credential"}},
		{name: "unknown nkey", given: natsconn.Options{Servers: url, NKey: func() string { p, _ := seedFile(t); return p }()},
			wantErr: []string{"nkey file", "refused the credential"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nc, err := natsconn.Connect(tt.given, "")
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				nc.Close()
				return
			}
			if err == nil {
				nc.Close()
				t.Fatal("connected, want an error")
			}
			var ce *natsconn.ConnectError
			if !errors.As(err, &ce) || !errors.Is(err, natsconn.ErrConnect) {
				t.Fatalf("error %v (%T), want a *ConnectError", err, err)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if strings.Contains(err.Error(), tt.given.Password) && tt.given.Password != "" {
				t.Errorf("error %q shows the password", err)
			}
		})
	}
}

func TestConnect_unreachableSaysWhy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	_, err = natsconn.Connect(natsconn.Options{Servers: "nats://" + addr, Timeout: time.Second}, "")
	if err == nil || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("error %v, want the address and the refusal", err)
	}
}

// A server that cannot be reached is named without the password or token
// its URL carries, and the credential is said to be in the URL.
func TestConnect_unreachableKeepsURLSecrets(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	for _, tt := range []struct{ url, secret, want string }{
		{"nats://alice:s3cretpw@" + addr, "s3cretpw", `user "alice" (password in the URL)`},
		{"nats://t0kenvalue@" + addr, "t0kenvalue", "token in the URL"},
	} {
		_, err := natsconn.Connect(natsconn.Options{Servers: tt.url, Timeout: time.Second}, "")
		if err == nil || strings.Contains(err.Error(), tt.secret) || !strings.Contains(err.Error(), tt.want) ||
			!strings.Contains(err.Error(), addr) {
			t.Errorf("error %v: want %q and the address, never %q", err, tt.want, tt.secret)
		}
	}
}

func TestResolve_contextAndEnv(t *testing.T) {
	seed, pub := seedFile(t)
	ns := authServer(t, pub)
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	dir := filepath.Join(cfg, "nats", "context")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ctxJSON := `{"url": "` + ns.ClientURL() + `", "user": "alice", "password": "secret"}`
	if err := os.WriteFile(filepath.Join(dir, "prod.json"), []byte(ctxJSON), 0o600); err != nil {
		t.Fatal(err)
	}

	t.Run("context", func(t *testing.T) {
		nc, err := natsconn.Connect(natsconn.Options{Context: "prod"}, "nats://127.0.0.1:1")
		if err != nil {
			t.Fatal(err)
		}
		nc.Close()
	})
	t.Run("flag overrides context", func(t *testing.T) {
		_, err := natsconn.Connect(natsconn.Options{Context: "prod", Servers: "nats://127.0.0.1:1", Timeout: time.Second}, "")
		if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") || !strings.Contains(err.Error(), `context "prod"`) {
			t.Fatalf("error %v, want the flag's server and the context named", err)
		}
	})
	t.Run("unknown context", func(t *testing.T) {
		_, err := natsconn.Connect(natsconn.Options{Context: "nope"}, "")
		if !errors.Is(err, natsconn.ErrBadOptions) {
			t.Fatalf("error %v, want ErrBadOptions", err)
		}
	})
	t.Run("NATS_URL and NATS_NKEY", func(t *testing.T) {
		t.Setenv("NATS_URL", ns.ClientURL())
		t.Setenv("NATS_NKEY", seed)
		o := natsconn.Options{}.WithEnv()
		if !o.Explicit() {
			t.Fatal("NATS_URL does not make the options explicit")
		}
		nc, err := natsconn.Connect(o, "nats://127.0.0.1:1")
		if err != nil {
			t.Fatal(err)
		}
		nc.Close()
	})
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		given natsconn.Options
	}{
		{"cert without key", natsconn.Options{TLSCert: "c.pem"}},
		{"password without user", natsconn.Options{Password: "x"}},
		{"two credentials", natsconn.Options{User: "a", Token: "t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.given.Validate(); !errors.Is(err, natsconn.ErrBadOptions) {
				t.Fatalf("Validate = %v, want ErrBadOptions", err)
			}
		})
	}
}
