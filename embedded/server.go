package embedded

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Config configures the NATS server `agentgate serve` starts when
// no external NATS is given.
type Config struct {
	// Listen is HOST:PORT (default 127.0.0.1:4222; port 0 picks a free one).
	Listen string
	// StoreDir holds JetStream's files (required).
	StoreDir string
	// MaxPayload is the largest message the server accepts (default 8 MiB,
	// so that a dead letter can carry a raw output of the 1 MiB limit).
	MaxPayload int32
	// ReadyTimeout bounds the wait for the server (default 10 s).
	ReadyTimeout time.Duration
	// AuthFile is a nats-server configuration file (deploy/nats/auth.conf
	// is one) whose accounts, users, permissions and TLS the server
	// enforces; Listen and StoreDir still come from this configuration.
	// Without it the server has no authentication, so Listen must be a
	// loopback address.
	AuthFile string
}

func (c *Config) setDefaults() {
	if c.Listen == "" {
		c.Listen = "127.0.0.1:4222"
	}
	if c.MaxPayload == 0 {
		c.MaxPayload = 8 << 20
	}
	if c.ReadyTimeout == 0 {
		c.ReadyTimeout = 10 * time.Second
	}
}

// Validate reports every problem with the configuration.
func (c Config) Validate() error {
	var errs []error
	if _, _, err := splitHostPort(c.Listen); err != nil {
		errs = append(errs, fmt.Errorf("%w: listen address %q: %w", ErrBadConfig, c.Listen, err))
	}
	if host, _, err := splitHostPort(c.Listen); err == nil && c.AuthFile == "" && !loopback(host) {
		errs = append(errs, fmt.Errorf("%w: listen address %q is not loopback and there is no auth file: anyone who can reach it could publish outcomes; give an auth file (serve --auth) or listen on 127.0.0.1", ErrBadConfig, c.Listen))
	}
	if c.StoreDir == "" {
		errs = append(errs, fmt.Errorf("%w: no JetStream store directory", ErrBadConfig))
	}
	return errors.Join(errs...)
}

// Start starts a NATS server with JetStream on file storage and
// waits until it accepts connections. Stop it with Shutdown and
// WaitForShutdown; ClientURL says where it listens.
func Start(cfg Config) (*server.Server, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	host, port, _ := splitHostPort(cfg.Listen)
	if port == 0 {
		port = server.RANDOM_PORT
	} else {
		// The server only logs why it cannot listen (and logs nothing
		// here): find out first, so the error says "address in use".
		ln, err := net.Listen("tcp", cfg.Listen)
		if err != nil {
			return nil, fmt.Errorf("embedded NATS: %w", err)
		}
		_ = ln.Close()
	}
	opts := &server.Options{}
	if cfg.AuthFile != "" {
		var err error
		if opts, err = server.ProcessConfigFile(cfg.AuthFile); err != nil {
			return nil, fmt.Errorf("%w: auth file: %w", ErrBadConfig, err)
		}
	}
	if opts.ServerName == "" {
		opts.ServerName = "agentgate-embedded"
	}
	opts.Host, opts.Port = host, port
	opts.JetStream, opts.StoreDir = true, cfg.StoreDir
	opts.MaxPayload = cfg.MaxPayload
	opts.NoLog, opts.NoSigs = true, true
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("embedded NATS: %w", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(cfg.ReadyTimeout) {
		ns.Shutdown()
		ns.WaitForShutdown()
		return nil, fmt.Errorf("%w after %s on %s", ErrNotReady, cfg.ReadyTimeout, cfg.Listen)
	}
	return ns, nil
}

// loopback reports whether host names only this machine.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func splitHostPort(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("bad port %q", p)
	}
	return host, port, nil
}
