package router

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// EmbeddedConfig configures the NATS server `agentgate serve` starts when
// no external NATS is given.
type EmbeddedConfig struct {
	// Listen is HOST:PORT (default 127.0.0.1:4222; port 0 picks a free one).
	Listen string
	// StoreDir holds JetStream's files (required).
	StoreDir string
	// MaxPayload is the largest message the server accepts (default 8 MiB,
	// so that a dead letter can carry a raw output of the 1 MiB limit).
	MaxPayload int32
	// ReadyTimeout bounds the wait for the server (default 10 s).
	ReadyTimeout time.Duration
}

func (c *EmbeddedConfig) setDefaults() {
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
func (c EmbeddedConfig) Validate() error {
	var errs []error
	if _, _, err := splitHostPort(c.Listen); err != nil {
		errs = append(errs, fmt.Errorf("%w: listen address %q: %w", ErrBadConfig, c.Listen, err))
	}
	if c.StoreDir == "" {
		errs = append(errs, fmt.Errorf("%w: no JetStream store directory", ErrBadConfig))
	}
	return errors.Join(errs...)
}

// StartEmbedded starts a NATS server with JetStream on file storage and
// waits until it accepts connections. Stop it with Shutdown and
// WaitForShutdown; ClientURL says where it listens.
func StartEmbedded(cfg EmbeddedConfig) (*server.Server, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	host, port, _ := splitHostPort(cfg.Listen)
	if port == 0 {
		port = server.RANDOM_PORT
	}
	ns, err := server.NewServer(&server.Options{
		ServerName: "agentgate-embedded",
		Host:       host,
		Port:       port,
		JetStream:  true,
		StoreDir:   cfg.StoreDir,
		MaxPayload: cfg.MaxPayload,
		NoLog:      true,
		NoSigs:     true,
	})
	if err != nil {
		return nil, fmt.Errorf("embedded NATS: %w", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(cfg.ReadyTimeout) {
		ns.Shutdown()
		ns.WaitForShutdown()
		return nil, fmt.Errorf("%w after %s on %s", ErrServerNotReady, cfg.ReadyTimeout, cfg.Listen)
	}
	return ns, nil
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
