package natsconn

import "github.com/spf13/pflag"

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
