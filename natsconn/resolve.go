package natsconn

import (
	"fmt"
	"os"
	"strings"

	"github.com/nats-io/jsm.go/natscontext"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"github.com/agentgate/agentgate/internal/natsurl"
)

// Resolved is a connection ready to be made: the servers, the nats.go
// options and a description of the credential for messages.
type Resolved struct {
	// URL is the server list given to nats.Connect.
	URL string
	// Credential says how the connection authenticates, without secrets
	// ("user \"gateway\" (password)", "nkey file /run/gw.nk (UAB...)").
	Credential string
	// Options are the nats.go options for the credential and TLS.
	Options []nats.Option
}

// Resolve turns o into a connection to make. defaultURL is used when
// neither o nor its context names a server. A named context is loaded
// from the nats CLI's store ($XDG_CONFIG_HOME/nats/context or
// ~/.config/nats/context); every option set in o overrides it.
func (o Options) Resolve(defaultURL string) (Resolved, error) {
	if err := o.Validate(); err != nil {
		return Resolved{}, err
	}
	var opts []natscontext.Option
	if o.Servers != "" {
		opts = append(opts, natscontext.WithServerURL(o.Servers))
	}
	// natscontext prefers a user over creds over an nkey: give it only
	// the credential chosen here, so that a context's own credential
	// gives way to the one on the command line.
	switch {
	case o.User != "":
		opts = append(opts, natscontext.WithUser(o.User), natscontext.WithPassword(o.Password))
	case o.Creds != "":
		opts = append(opts, natscontext.WithCreds(o.Creds))
	case o.NKey != "":
		opts = append(opts, natscontext.WithNKey(o.NKey))
	case o.Token != "":
		opts = append(opts, natscontext.WithToken(o.Token))
	}
	opts = append(opts, natscontext.WithCertificate(o.TLSCert), natscontext.WithKey(o.TLSKey),
		natscontext.WithCA(o.TLSCA), natscontext.WithInboxPrefix(o.InboxPrefix))
	if o.TLSFirst {
		opts = append(opts, natscontext.WithTLSHandshakeFirst())
	}

	var (
		nctx *natscontext.Context
		err  error
	)
	if o.Context != "" {
		nctx, err = natscontext.New(o.Context, true, opts...)
		if err != nil {
			return Resolved{}, fmt.Errorf("%w: context %q: %w", ErrBadOptions, o.Context, err)
		}
	} else {
		if o.Servers == "" && defaultURL != "" {
			opts = append(opts, natscontext.WithServerURL(defaultURL))
		}
		if nctx, err = natscontext.New("agentgate", false, opts...); err != nil {
			return Resolved{}, fmt.Errorf("%w: %w", ErrBadOptions, err)
		}
	}
	nopts, err := nctx.NATSOptions()
	if err != nil {
		return Resolved{}, fmt.Errorf("%w: %s: %w", ErrBadOptions, describe(nctx, o.Context), err)
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	nopts = append(nopts, nats.Timeout(timeout))
	cred := describe(nctx, o.Context)
	if inURL := natsurl.Credential(nctx.ServerURL()); inURL != "" && strings.HasPrefix(cred, "no credentials") {
		cred = inURL + strings.TrimPrefix(cred, "no credentials")
	}
	return Resolved{URL: nctx.ServerURL(), Credential: cred, Options: nopts}, nil
}

// describe names the credential of c without its secret.
func describe(c *natscontext.Context, contextName string) string {
	var parts []string
	switch {
	case c.User() != "":
		parts = append(parts, fmt.Sprintf("user %q (password)", c.User()))
	case c.Creds() != "":
		parts = append(parts, "creds file "+c.Creds())
	case c.NKey() != "":
		parts = append(parts, "nkey file "+c.NKey()+publicKeyOf(c.NKey()))
	case c.UserJWT() != "":
		parts = append(parts, "user JWT")
	}
	if c.Token() != "" {
		parts = append(parts, "token")
	}
	if len(parts) == 0 {
		parts = append(parts, "no credentials")
	}
	if c.Certificate() != "" {
		parts = append(parts, "TLS client certificate "+c.Certificate())
	}
	if c.CA() != "" {
		parts = append(parts, "TLS CA "+c.CA())
	}
	s := strings.Join(parts, ", ")
	if contextName != "" {
		s += fmt.Sprintf(" (context %q)", contextName)
	}
	return s
}

// publicKeyOf is " (U...)", the public key of the seed in file, or "".
func publicKeyOf(file string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	kp, err := nkeys.ParseDecoratedNKey(b)
	if err != nil {
		return ""
	}
	pub, err := kp.PublicKey()
	if err != nil {
		return ""
	}
	return " (" + pub + ")"
}
