package natsconn

import (
	"errors"
	"fmt"
	"os"
	"time"
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
