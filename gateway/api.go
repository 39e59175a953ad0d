package gateway

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"time"

	"github.com/agentgate/agentgate/apiauth"
)

// Routes that APIConfig.Open may list.
const (
	OpenHealthz = "healthz"
	OpenMetrics = "metrics"
	// OpenRegistry opens the registry's reads (the GET routes under
	// /v1/agents and /v1/schemas), as schema registries commonly serve
	// them; its writes still need a write token.
	OpenRegistry = "registry"
)

// APIConfig secures and bounds the HTTP API (contract section 6). The zero
// value serves plain HTTP without tokens, which New allows on a loopback
// address only.
type APIConfig struct {
	// TokenFile holds the bearer tokens, one "SCOPE TOKEN" per line with
	// SCOPE read or write (apiauth.LoadFile). Empty: no authentication.
	TokenFile string
	// NoAuth allows serving without tokens on an address other than
	// loopback, on purpose (behind an authenticating proxy, say).
	NoAuth bool
	// Open lists the routes served without a token: OpenHealthz,
	// OpenMetrics and OpenRegistry. Nil means OpenHealthz alone (probes
	// carry no token); empty means none.
	Open []string
	// TLSCert and TLSKey are PEM files; both set, the API serves HTTPS only
	// (TLS 1.2 at least).
	TLSCert, TLSKey string
	// MaxBody is the largest request body accepted (default 1 MiB); a
	// larger one is answered 413.
	MaxBody int64
	// ReadHeaderTimeout (default 10 s), ReadTimeout (30 s), WriteTimeout
	// (60 s) and IdleTimeout (120 s) are those of http.Server.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// RequestTimeout bounds the work of each request, its reads of NATS
	// included (default 15 s).
	RequestTimeout time.Duration
}

// DefaultMaxBody is APIConfig.MaxBody's default.
const DefaultMaxBody = 1 << 20

// maxHeaderBytes bounds a request's headers.
const maxHeaderBytes = 64 << 10

func (c *APIConfig) setDefaults() {
	if c.Open == nil {
		c.Open = []string{OpenHealthz}
	}
	if c.MaxBody == 0 {
		c.MaxBody = DefaultMaxBody
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{
		{&c.ReadHeaderTimeout, 10 * time.Second}, {&c.ReadTimeout, 30 * time.Second},
		{&c.WriteTimeout, 60 * time.Second}, {&c.IdleTimeout, 120 * time.Second},
		{&c.RequestTimeout, 15 * time.Second},
	} {
		if *d.v == 0 {
			*d.v = d.def
		}
	}
}

// Validate reports every problem with the API's configuration; addr is
// where it listens.
func (c APIConfig) Validate(addr string) error {
	var errs []error
	for _, o := range c.Open {
		if o != OpenHealthz && o != OpenMetrics && o != OpenRegistry {
			errs = append(errs, fmt.Errorf("%w: open route %q: want %s, %s or %s", ErrBadConfig, o, OpenHealthz, OpenMetrics, OpenRegistry))
		}
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		errs = append(errs, fmt.Errorf("%w: TLS needs both a certificate and a key file", ErrBadConfig))
	}
	if c.MaxBody < 0 {
		errs = append(errs, fmt.Errorf("%w: negative maximum request body", ErrBadConfig))
	}
	if c.TokenFile == "" && !c.NoAuth && !loopback(addr) {
		errs = append(errs, fmt.Errorf("%w: the HTTP API on %s (not a loopback address) needs a token file (--api-token-file), or --http-no-auth to serve it unauthenticated on purpose", ErrBadConfig, addr))
	}
	return errors.Join(errs...)
}

// loopback reports whether addr (HOST:PORT) listens on loopback only.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// newAPI builds the HTTP API's server, and its listener on addr (wrapped in
// TLS when configured): the token file and the certificate are read here,
// so that a bad one fails the start.
func (g *Gateway) newAPI(cfg APIConfig, addr string) (*http.Server, net.Listener, error) {
	var tokens *apiauth.Tokens
	if cfg.TokenFile != "" {
		var err error
		if tokens, err = apiauth.LoadFile(cfg.TokenFile); err != nil {
			return nil, nil, fmt.Errorf("gateway: %w", err)
		}
		if fi, err := os.Stat(cfg.TokenFile); err == nil && fi.Mode().Perm()&0o077 != 0 {
			g.cfg.Logger.Warn("the API token file can be read by other users (chmod 600 it)", "file", cfg.TokenFile, "mode", fi.Mode().Perm().String())
		}
	}
	g.guard = apiauth.NewGuard(tokens, g.deny)
	var tlsCfg *tls.Config
	if cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return nil, nil, fmt.Errorf("gateway: HTTP TLS certificate %s, key %s: %w", cfg.TLSCert, cfg.TLSKey, err)
		}
		tlsCfg = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("gateway: HTTP listener: %w", err)
	}
	if tlsCfg != nil {
		ln = tls.NewListener(ln, tlsCfg)
	}
	srv := &http.Server{
		Handler:           limit(cfg, g.routes(cfg)),
		TLSConfig:         tlsCfg,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		// Handshake failures and the like are the client's business.
		ErrorLog: slog.NewLogLogger(g.cfg.Logger.Handler(), slog.LevelDebug),
	}
	scheme := "http"
	if tlsCfg != nil {
		scheme = "https"
	}
	if tokens.Len() == 0 {
		g.cfg.Logger.Warn("HTTP API without authentication: every caller may read runs and replay dead letters (--api-token-file to require tokens)", "addr", addr)
	}
	g.cfg.Logger.Info("HTTP API", "scheme", scheme, "tokens", tokens.Len(), "open", cfg.Open)
	return srv, ln, nil
}

// deny answers a request the token check refused, and logs it (the
// caller's address and the route, never the token) for audit.
func (g *Gateway) deny(w http.ResponseWriter, r *http.Request, status int, code, message string) {
	path := r.URL.Path
	if len(path) > 256 {
		path = path[:256] + "..."
	}
	g.cfg.Logger.Info("HTTP API request refused", "status", status, "error", code,
		"method", r.Method, "path", path, "remote", r.RemoteAddr)
	writeError(w, status, code, message)
}

// isOpen reports whether route is served without a token.
func (c APIConfig) isOpen(route string) bool { return slices.Contains(c.Open, route) }

// limit bounds every request: its body (413 beyond MaxBody) and the time
// its handler may take.
func limit(cfg APIConfig, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > cfg.MaxBody {
			writeError(w, http.StatusRequestEntityTooLarge, codePayloadTooLarge, fmt.Sprintf("request body over %d bytes", cfg.MaxBody))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, cfg.MaxBody)
		ctx, cancel := context.WithTimeout(r.Context(), cfg.RequestTimeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
