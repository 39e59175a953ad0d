package natsconn_test

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"

	"github.com/agentgate/agentgate/internal/natstest"
	"github.com/agentgate/agentgate/internal/testcert"
	"github.com/agentgate/agentgate/natsconn"
)

// credsServer makes an operator, an account and a user, and returns the
// user's credentials file and a server trusting the operator.
func credsServer(t *testing.T) (creds string, ns *server.Server) {
	t.Helper()
	okp, _ := nkeys.CreateOperator()
	opub, _ := okp.PublicKey()
	oc := jwt.NewOperatorClaims(opub)
	if _, err := oc.Encode(okp); err != nil {
		t.Fatal(err)
	}
	akp, _ := nkeys.CreateAccount()
	apub, _ := akp.PublicKey()
	ajwt, err := jwt.NewAccountClaims(apub).Encode(okp)
	if err != nil {
		t.Fatal(err)
	}
	ukp, _ := nkeys.CreateUser()
	upub, _ := ukp.PublicKey()
	ujwt, err := jwt.NewUserClaims(upub).Encode(akp)
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := ukp.Seed()
	b, err := jwt.FormatUserConfig(ujwt, seed)
	if err != nil {
		t.Fatal(err)
	}
	creds = filepath.Join(t.TempDir(), "user.creds")
	if err := os.WriteFile(creds, b, 0o600); err != nil {
		t.Fatal(err)
	}
	resolver := &server.MemAccResolver{}
	if err := resolver.Store(apub, ajwt); err != nil {
		t.Fatal(err)
	}
	return creds, natstest.ServerWith(t, &server.Options{TrustedOperators: []*jwt.OperatorClaims{oc}, AccountResolver: resolver})
}

// tlsServer requires a client certificate signed by the test CA, and, with
// first, the TLS handshake before the NATS protocol.
func tlsServer(t *testing.T, cert, key string, first bool) *server.Server {
	t.Helper()
	tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: cert, KeyFile: key, CaFile: cert, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	tc.MinVersion = tls.VersionTLS12
	return natstest.ServerWith(t, &server.Options{TLS: true, TLSVerify: true, TLSConfig: tc, TLSHandshakeFirst: first})
}

// Every credential and TLS option of the CLI, against a server that asks
// for it: the right one connects, the wrong one is refused with a reason.
func TestConnect_everyCredentialAgainstAServer(t *testing.T) {
	const token = "t0ken-0123456789abcdef"
	tokenSrv := natstest.ServerWith(t, &server.Options{Authorization: token})
	creds, credsSrv := credsServer(t)
	otherCreds, _ := credsServer(t)
	cert, key, _ := testcert.SelfSigned(t)
	otherCert, otherKey, _ := testcert.SelfSigned(t)
	tlsSrv, tlsFirstSrv := tlsServer(t, cert, key, false), tlsServer(t, cert, key, true)

	tests := []struct {
		name    string
		given   natsconn.Options
		wantErr string // "" connects
	}{
		{"token", natsconn.Options{Servers: tokenSrv.ClientURL(), Token: token}, ""},
		{"wrong token", natsconn.Options{Servers: tokenSrv.ClientURL(), Token: "wrong-token-0123456789"}, "refused the credential"},
		{"creds file", natsconn.Options{Servers: credsSrv.ClientURL(), Creds: creds}, ""},
		{"creds of another operator", natsconn.Options{Servers: credsSrv.ClientURL(), Creds: otherCreds}, "refused the credential"},
		{"client certificate", natsconn.Options{Servers: tlsSrv.ClientURL(), TLSCert: cert, TLSKey: key, TLSCA: cert}, ""},
		{"client certificate the server does not trust", natsconn.Options{Servers: tlsSrv.ClientURL(), TLSCert: otherCert, TLSKey: otherKey, TLSCA: cert}, "NATS at"},
		{"server certificate the client does not trust", natsconn.Options{Servers: tlsSrv.ClientURL(), TLSCert: cert, TLSKey: key, TLSCA: otherCert}, "not signed by a trusted CA"},
		{"TLS first", natsconn.Options{Servers: tlsFirstSrv.ClientURL(), TLSCert: cert, TLSKey: key, TLSCA: cert, TLSFirst: true}, ""},
		{"a TLS-first server without --tlsfirst", natsconn.Options{Servers: tlsFirstSrv.ClientURL(), TLSCert: cert, TLSKey: key, TLSCA: cert, Timeout: time.Second}, "NATS at"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.given.Timeout == 0 {
				tt.given.Timeout = 5 * time.Second
			}
			nc, err := natsconn.Connect(tt.given, "")
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				defer nc.Close()
				if err := nc.Flush(); err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				nc.Close()
				t.Fatal("connected, want an error")
			}
			if !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), token) {
				t.Errorf("error %q: want %q, and never the token", err, tt.wantErr)
			}
		})
	}
}
