package natsconn

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nats-io/jsm.go/natscontext"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
	"github.com/spf13/pflag"
)

// DefaultTimeout bounds the dial and handshake with one server.
const DefaultTimeout = 5 * time.Second

// Options are the ways to reach and authenticate to NATS, as the nats CLI
// takes them. The zero value connects to nats://127.0.0.1:4222 with no
// credentials (or to the default a command passes to Resolve).
type Options struct {
	// Servers is one URL or a comma-separated list (--server, -s).
	Servers string
	// Context names a nats CLI context (--context): its settings are the
	// defaults that every other option here overrides.
	Context string
	// Creds is a JWT credentials file (--creds).
	Creds string
	// NKey is a file holding a user NKey seed (--nkey).
	NKey string
	// User and Password authenticate by name (--user, --password).
	User, Password string
	// Token authenticates with a token (--token).
	Token string
	// TLSCert and TLSKey are a client certificate and its key (--tlscert,
	// --tlskey); TLSCA verifies the server (--tlsca). Any of them makes the
	// connection require TLS.
	TLSCert, TLSKey, TLSCA string
	// TLSFirst does the TLS handshake before the NATS protocol (--tlsfirst),
	// for servers with handshake_first.
	TLSFirst bool
	// InboxPrefix replaces _INBOX as the prefix of reply subjects
	// (--inbox-prefix): a user whose permissions allow only its own
	// inboxes needs it.
	InboxPrefix string
	// Timeout bounds the dial and handshake with each server (default
	// DefaultTimeout).
	Timeout time.Duration
}

// envDefaults are the nats CLI's environment variables, read for the
// options the command line and AGENTGATE_* left empty.
var envDefaults = []struct {
	name  string
	field func(*Options) *string
}{
	{"NATS_URL", func(o *Options) *string { return &o.Servers }},
	{"NATS_CONTEXT", func(o *Options) *string { return &o.Context }},
	{"NATS_CREDS", func(o *Options) *string { return &o.Creds }},
	{"NATS_NKEY", func(o *Options) *string { return &o.NKey }},
	{"NATS_USER", func(o *Options) *string { return &o.User }},
	{"NATS_PASSWORD", func(o *Options) *string { return &o.Password }},
	{"NATS_CERT", func(o *Options) *string { return &o.TLSCert }},
	{"NATS_KEY", func(o *Options) *string { return &o.TLSKey }},
	{"NATS_CA", func(o *Options) *string { return &o.TLSCA }},
}

// FlagGroup is the annotation key AddFlags puts on --server and its alias
// --nats-url: a command that fills flags from environment variables should
// not set one of a group whose other member was given on the command line.
const FlagGroup = "agentgate_flag_group"

// AddFlags registers the options on fs; FromFlags reads them back.
// serverHelp describes what an empty --server means to the command.
func AddFlags(fs *pflag.FlagSet, serverHelp string) {
	fs.StringP(flagServer, "s", "", "NATS server URL(s), comma-separated (env NATS_URL); "+serverHelp)
	fs.String(flagNATSURL, "", "alias of --server")
	for _, name := range []string{flagServer, flagNATSURL} {
		_ = fs.SetAnnotation(name, FlagGroup, []string{flagServer})
	}
	fs.String(flagContext, "", "nats CLI context to take the connection settings from (env NATS_CONTEXT)")
	fs.String(flagCreds, "", "user credentials (JWT) file")
	fs.String(flagNKey, "", "user NKey seed file")
	fs.String(flagUser, "", "user name")
	fs.String(flagPassword, "", "password")
	fs.String(flagToken, "", "authentication token")
	fs.String(flagTLSCert, "", "TLS client certificate file")
	fs.String(flagTLSKey, "", "TLS client key file")
	fs.String(flagTLSCA, "", "CA certificate file to verify the server")
	fs.Bool(flagTLSFirst, false, "do the TLS handshake first (servers with handshake_first)")
	fs.String(flagInbox, "", "prefix of reply subjects instead of _INBOX")
	fs.Duration(flagTimeout, DefaultTimeout, "bound on dialling and greeting each server")
}

// Flag names of AddFlags.
const (
	flagServer   = "server"
	flagNATSURL  = "nats-url"
	flagContext  = "context"
	flagCreds    = "creds"
	flagNKey     = "nkey"
	flagUser     = "user"
	flagPassword = "password"
	flagToken    = "token"
	flagTLSCert  = "tlscert"
	flagTLSKey   = "tlskey"
	flagTLSCA    = "tlsca"
	flagTLSFirst = "tlsfirst"
	flagInbox    = "inbox-prefix"
	flagTimeout  = "connect-timeout"
)

// FromFlags returns the options registered on fs by AddFlags, completed
// from the nats CLI's environment variables (WithEnv). --server wins over
// its alias --nats-url when both are set.
func FromFlags(fs *pflag.FlagSet) Options {
	str := func(name string) string { v, _ := fs.GetString(name); return v }
	o := Options{
		Servers: str(flagServer), Context: str(flagContext), Creds: str(flagCreds), NKey: str(flagNKey),
		User: str(flagUser), Password: str(flagPassword), Token: str(flagToken),
		TLSCert: str(flagTLSCert), TLSKey: str(flagTLSKey), TLSCA: str(flagTLSCA), InboxPrefix: str(flagInbox),
	}
	if o.Servers == "" {
		o.Servers = str(flagNATSURL)
	}
	o.TLSFirst, _ = fs.GetBool(flagTLSFirst)
	o.Timeout, _ = fs.GetDuration(flagTimeout)
	return o.WithEnv()
}

// WithEnv returns o with the options it leaves empty taken from the nats
// CLI's environment variables (NATS_URL, NATS_CONTEXT, NATS_CREDS,
// NATS_NKEY, NATS_USER, NATS_PASSWORD, NATS_CERT, NATS_KEY, NATS_CA).
func (o Options) WithEnv() Options {
	for _, e := range envDefaults {
		if p := e.field(&o); *p == "" {
			*p = os.Getenv(e.name)
		}
	}
	return o
}

// Explicit reports whether o names a server or a context, that is whether
// a command should connect to an existing deployment rather than to its
// default.
func (o Options) Explicit() bool { return o.Servers != "" || o.Context != "" }

// Validate reports every combination of options that cannot work.
func (o Options) Validate() error {
	var errs []error
	if (o.TLSCert == "") != (o.TLSKey == "") {
		errs = append(errs, fmt.Errorf("%w: --tlscert and --tlskey go together", ErrBadOptions))
	}
	if o.Password != "" && o.User == "" {
		errs = append(errs, fmt.Errorf("%w: --password without --user", ErrBadOptions))
	}
	n := 0
	for _, s := range []string{o.Creds, o.NKey, o.User, o.Token} {
		if s != "" {
			n++
		}
	}
	if n > 1 {
		errs = append(errs, fmt.Errorf("%w: give one of --creds, --nkey, --user or --token", ErrBadOptions))
	}
	if o.Timeout < 0 {
		errs = append(errs, fmt.Errorf("%w: negative --connect-timeout", ErrBadOptions))
	}
	return errors.Join(errs...)
}

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
	return Resolved{URL: nctx.ServerURL(), Credential: describe(nctx, o.Context), Options: nopts}, nil
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
