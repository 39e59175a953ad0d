package natsconn

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agentgate/agentgate/internal/natsurl"
)

// ConnectError is a failed connection: which servers, which credential and
// why. It wraps ErrConnect and the nats.go error.
type ConnectError struct {
	// URL is the server list tried, without passwords or tokens.
	URL string
	// Credential describes the credential used (see Resolved.Credential).
	Credential string
	// Reason is a plain-words reading of Err, when there is one.
	Reason string
	// Err is what nats.go returned.
	Err error
}

func (e *ConnectError) Error() string {
	s := fmt.Sprintf("connecting to NATS at %s with %s: %v", e.URL, e.Credential, e.Err)
	if e.Reason != "" {
		s += " (" + e.Reason + ")"
	}
	return s
}

// Unwrap returns ErrConnect and the nats.go error.
func (e *ConnectError) Unwrap() []error { return []error{ErrConnect, e.Err} }

// Connect resolves o (see Resolve; defaultURL when o names no server) and
// connects, adding extra nats.go options after o's. A failure is a
// *ConnectError naming the servers, the credential and the reason, or
// ErrBadOptions for options that cannot work.
func Connect(o Options, defaultURL string, extra ...nats.Option) (*nats.Conn, error) {
	r, err := o.Resolve(defaultURL)
	if err != nil {
		return nil, err
	}
	return r.Connect(extra...)
}

// Connect connects with r's options and then extra.
func (r Resolved) Connect(extra ...nats.Option) (*nats.Conn, error) {
	nc, err := nats.Connect(r.URL, append(append([]nats.Option{}, r.Options...), extra...)...)
	if err != nil {
		return nil, &ConnectError{URL: natsurl.Redacted(r.URL), Credential: r.Credential, Reason: reason(r.URL, err), Err: err}
	}
	return nc, nil
}

// reason says in plain words why a connection failed. nats.go reports a
// server it could not reach as "no servers available", so that case dials
// the first server again to name the network error.
func reason(servers string, err error) string {
	var (
		unknownAuthority x509.UnknownAuthorityError
		hostname         x509.HostnameError
		certInvalid      x509.CertificateInvalidError
	)
	switch {
	case errors.Is(err, nats.ErrAuthorization), errors.Is(err, nats.ErrAuthExpired), errors.Is(err, nats.ErrAuthRevoked),
		strings.Contains(strings.ToLower(err.Error()), "authorization violation"):
		return "the server refused the credential"
	case errors.As(err, &unknownAuthority):
		return "the server's certificate is not signed by a trusted CA: give --tlsca"
	case errors.As(err, &hostname):
		return "the server's certificate is not valid for this host name"
	case errors.As(err, &certInvalid):
		return "the server's certificate is invalid: " + certInvalid.Error()
	case errors.Is(err, nats.ErrSecureConnRequired):
		return "the server requires TLS: use a tls:// URL or give --tlsca"
	case errors.Is(err, nats.ErrSecureConnWanted):
		return "TLS was asked for but the server does not offer it"
	case errors.Is(err, nats.ErrNoServers):
		return dialReason(servers)
	}
	return ""
}

// dialReason dials the first server of the list and returns the network
// error, or "" when it answers.
func dialReason(servers string) string {
	first := strings.TrimSpace(strings.Split(servers, ",")[0])
	if !strings.Contains(first, "://") {
		first = "nats://" + first
	}
	u, err := url.Parse(first)
	if err != nil {
		return "bad server URL: " + err.Error()
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "4222")
	}
	c, err := net.DialTimeout("tcp", host, 2*time.Second)
	if err != nil {
		return err.Error()
	}
	_ = c.Close()
	return "the server accepted a TCP connection but not the NATS handshake (TLS or protocol mismatch?)"
}
