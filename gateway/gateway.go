package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/apiauth"
	"github.com/agentgate/agentgate/embedded"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/internal/natsurl"
	"github.com/agentgate/agentgate/natsconn"
	"github.com/agentgate/agentgate/redact"
	"github.com/agentgate/agentgate/registry"
	"github.com/agentgate/agentgate/router"
	"github.com/agentgate/agentgate/runstate"
	"github.com/agentgate/agentgate/schemas"
	"github.com/agentgate/agentgate/topology"
)

// Config configures a gateway. The zero value of every field but ConfigDir
// (or Registry) is a sane default.
type Config struct {
	// ConfigDir holds schemas/ and agents/ (contract section 5). Ignored
	// when Registry is set.
	ConfigDir string
	// Registry, when set, is used instead of loading ConfigDir, as a
	// static registry: the registry buckets are neither seeded nor
	// watched, and the registry's write routes answer 503.
	Registry *schemas.Registry
	// NATS says how to reach and authenticate to NATS. When it names no
	// server and no context (and NATSURL is empty) an embedded server is
	// started on NATSListen with its files in DataDir, and the gateway
	// connects to it with NATS's credentials.
	NATS natsconn.Options
	// NATSURL, when set, is the server list (shorthand for NATS.Servers).
	NATSURL string
	// SigningKey is a file holding an NKey seed: every outcome is signed
	// with it (Outcome-Signature, contract section 3.5). Default: the seed
	// of NATS.NKey, if the gateway authenticates with one; with neither,
	// outcomes go unsigned.
	SigningKey string
	// EmbeddedAuth is a NATS server configuration file whose accounts,
	// users and permissions the embedded server enforces (see
	// embedded.Config.AuthFile). Ignored with an external server.
	EmbeddedAuth string
	// NATSListen is the embedded server's HOST:PORT (default
	// 127.0.0.1:4222; port 0 picks a free one).
	NATSListen string
	// DataDir holds the embedded server's JetStream files (default ./data).
	DataDir string
	// HTTPAddr is where the HTTP API listens (default 127.0.0.1:8080; port
	// 0 picks a free one).
	HTTPAddr string
	// API secures and bounds the HTTP API: tokens, open routes, TLS,
	// limits and timeouts.
	API APIConfig
	// MaxPayload is the largest raw output accepted (default 1 MiB).
	MaxPayload int
	// Streams tunes the streams and bucket.
	Streams topology.StreamsConfig
	// AckWait and MaxAckPending tune the durable consumer (see router).
	AckWait       time.Duration
	MaxAckPending int
	// Workers is how many raw outputs are processed at once (see router).
	Workers int
	// StreamIdle is how long a streamed output may go without a chunk
	// before it is dead-lettered as stream_incomplete (default 60 s).
	StreamIdle time.Duration
	// GateIdle, GateHeartbeat, GateKeepAlive, GateDiscoveryWait and
	// GateDiscoveryRetry tune the gated twins (contract section 10;
	// defaults in agentproto).
	GateIdle           time.Duration
	GateHeartbeat      time.Duration
	GateKeepAlive      time.Duration
	GateDiscoveryWait  time.Duration
	GateDiscoveryRetry time.Duration
	// Limits bound the work of one message (contract section 13); zero
	// values take the defaults of the handlers package.
	Limits Limits
	// DriftInterval is how often each agent's drift totals are sampled
	// for the history of GET /v1/drift (default DefaultDriftInterval, 10
	// s), and DriftPoints how many samples each agent keeps (default
	// DefaultDriftPoints, 360: an hour at the default interval).
	DriftInterval time.Duration
	DriftPoints   int
	// HealthInterval is how often the durable consumers are checked (and
	// recreated when deleted); default router.DefaultHealthInterval.
	HealthInterval time.Duration
	Logger         *slog.Logger
}

// Limits bound the work of one message; each ends in an outcome (contract
// section 13). A zero field takes its default.
type Limits struct {
	// DecisionTimeout bounds one output's decision (default 5 s): past
	// it, a processing_limit dead letter.
	DecisionTimeout time.Duration
	// StoreTimeout and PublishTimeout bound each run-state call and each
	// outcome publish from its start (default 10 s each).
	StoreTimeout   time.Duration
	PublishTimeout time.Duration
	// MaxInFlightBytes bounds the payload bytes decided at once (default
	// 8 MiB).
	MaxInFlightBytes int
	// MaxDeliver is the durable consumer's MaxDeliver (default 5): at the
	// last delivery an output that still fails is dead-lettered.
	MaxDeliver int
	// MaxViolations bounds the violations one outcome lists (default 100).
	MaxViolations int
	// ShutdownTimeout bounds each stage of a graceful shutdown: draining
	// the consumers, and waiting for a decision still running (default
	// 10 s each).
	ShutdownTimeout time.Duration
}

func (c *Config) setDefaults() {
	if c.NATSListen == "" {
		c.NATSListen = "127.0.0.1:4222"
	}
	if c.DataDir == "" {
		c.DataDir = "data"
	}
	if c.HTTPAddr == "" {
		c.HTTPAddr = "127.0.0.1:8080"
	}
	if c.MaxPayload == 0 {
		c.MaxPayload = handlers.DefaultMaxPayload
	}
	// The processor's deciders are sized from Workers before the router
	// is built, so the router's default is applied here, once.
	if c.Workers == 0 {
		c.Workers = router.DefaultWorkers()
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	c.API.setDefaults()
}

// Validate reports every problem with the configuration.
func (c Config) Validate() error {
	var errs []error
	if c.Registry == nil && c.ConfigDir == "" {
		errs = append(errs, fmt.Errorf("%w: no configuration directory", ErrBadConfig))
	}
	if c.MaxPayload < 0 {
		errs = append(errs, fmt.Errorf("%w: negative max payload", ErrBadConfig))
	}
	errs = append(errs, c.API.Validate(c.HTTPAddr))
	l := c.Limits
	if l.DecisionTimeout < 0 || l.StoreTimeout < 0 || l.PublishTimeout < 0 || l.ShutdownTimeout < 0 ||
		l.MaxInFlightBytes < 0 || l.MaxDeliver < 0 || l.MaxViolations < 0 {
		errs = append(errs, fmt.Errorf("%w: negative limit", ErrBadConfig))
	}
	if c.DriftInterval != 0 && c.DriftInterval < MinDriftInterval {
		errs = append(errs, fmt.Errorf("%w: drift interval %s below %s", ErrBadConfig, c.DriftInterval, MinDriftInterval))
	}
	if c.DriftPoints < 0 || c.DriftPoints > MaxDriftPoints {
		errs = append(errs, fmt.Errorf("%w: drift points %d outside 0 to %d", ErrBadConfig, c.DriftPoints, MaxDriftPoints))
	}
	if l.MaxInFlightBytes > 0 && l.MaxInFlightBytes < c.MaxPayload {
		errs = append(errs, fmt.Errorf("%w: max in-flight bytes %d below the max payload %d", ErrBadConfig, l.MaxInFlightBytes, c.MaxPayload))
	}
	return errors.Join(errs...)
}

// Gateway is a running agentgate.
type Gateway struct {
	cfg        Config
	reg        registryView
	live       *registry.Live    // nil for a static registry
	regSvc     *registry.Service // nil for a static registry
	embedded   *server.Server
	nc         *nats.Conn
	js         jetstream.JetStream
	store      *runstate.Store
	router     *router.Router
	metrics    *Metrics
	driftHist  *driftHistory // samples metrics from New to Close
	http       *http.Server
	httpLn     net.Listener
	guard      *apiauth.Guard
	redactor   *redact.Redactor
	natsURL    string
	signingKey string
	proc       *handlers.Processor
	ncClosed   chan struct{}
	ready      atomic.Bool
	twins      *twins

	closeOnce sync.Once
	closeErr  error
}

// registryView is what the gateway reads of the registry: a static
// *schemas.Registry or the live view of the registry service.
type registryView interface {
	handlers.Registry
	Blueprints() []*schemas.Blueprint
	Schemas() []*schemas.Schema
}

// New loads the registry, starts or connects to NATS, creates the streams
// and the run-state bucket, binds the durable consumer and opens the HTTP
// listener. A bad configuration file fails here, naming the file. Call Run
// to start processing and Close to release everything.
func New(ctx context.Context, cfg Config) (_ *Gateway, err error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g := &Gateway{cfg: cfg}
	defer func() {
		if err != nil {
			_ = g.Close()
		}
	}()
	seed := cfg.Registry
	if seed == nil {
		if seed, err = schemas.Load(cfg.ConfigDir); err != nil {
			return nil, fmt.Errorf("loading configuration %s: %w", cfg.ConfigDir, err)
		}
	} else {
		g.reg = cfg.Registry
	}
	cfg.Logger.Info("configuration loaded", "schemas", len(seed.Schemas()), "agents", len(seed.Blueprints()))

	if cfg.NATSURL != "" {
		cfg.NATS.Servers = cfg.NATSURL
	}
	if !cfg.NATS.Explicit() {
		dir, _ := filepath.Abs(cfg.DataDir)
		if g.embedded, err = embedded.Start(embedded.Config{Listen: cfg.NATSListen, StoreDir: dir, AuthFile: cfg.EmbeddedAuth}); err != nil {
			return nil, err
		}
		cfg.Logger.Info("embedded NATS started", "url", g.embedded.ClientURL(), "store", dir)
		if cfg.EmbeddedAuth == "" {
			cfg.Logger.Warn("embedded NATS has no authentication: it listens on loopback only, and any local process may publish outcomes; give --auth FILE (deploy/nats/auth.conf) for users and permissions")
		} else {
			cfg.Logger.Info("embedded NATS enforces the accounts and permissions of " + cfg.EmbeddedAuth)
		}
	}
	defaultURL := ""
	if g.embedded != nil {
		defaultURL = g.embedded.ClientURL()
	}
	conn, err := cfg.NATS.Resolve(defaultURL)
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	g.natsURL = conn.URL
	g.ncClosed = make(chan struct{})
	g.nc, err = conn.Connect(nats.Name("agentgate"), nats.MaxReconnects(-1),
		nats.ClosedHandler(func(*nats.Conn) { close(g.ncClosed) }))
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	cfg.Logger.Info("connected to NATS", "url", natsurl.Redacted(g.natsURL), "credential", conn.Credential)
	if g.js, err = jetstream.New(g.nc); err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	kv, err := topology.Ensure(ctx, g.js, cfg.Streams)
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	g.store = runstate.New(kv)
	if g.reg == nil {
		if err := g.startRegistry(ctx, seed); err != nil {
			return nil, err
		}
	}
	g.redactor = redact.New(g.reg)
	ckv, err := g.js.KeyValue(ctx, topology.ChunksBucket)
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	chunks := runstate.NewChunks(ckv)
	signer, err := g.signer()
	if err != nil {
		return nil, err
	}
	g.metrics = NewMetrics(func(agent string) bool { _, ok := g.reg.Blueprint(agent); return ok })
	g.driftHist = newDriftHistory(g.metrics, cfg.Logger, cfg.DriftInterval, cfg.DriftPoints)
	g.driftHist.start()

	gate, err := handlers.NewGate(handlers.GateConfig{
		Registry: g.reg, MaxPayload: cfg.MaxPayload, MaxMessage: int(g.nc.MaxPayload()),
		MaxViolations: cfg.Limits.MaxViolations,
	})
	if err != nil {
		return nil, err
	}
	// One connection, the gateway's, carries the outcomes and the
	// router's subscriptions.
	pub, err := router.NewPublisher(g.nc, cfg.Limits.PublishTimeout)
	if err != nil {
		return nil, err
	}
	var out message.Publisher = pub
	if signer != nil {
		signer.next = pub
		out = signer
	}
	g.proc, err = handlers.NewProcessor(handlers.ProcessorConfig{
		Gate: gate, Store: g.store, Chunks: chunks, DeadLetters: runstate.NewDeadLetters(g.js),
		Emitter: router.Outcomes{Publisher: out, JS: g.js, Logger: cfg.Logger}, Observer: g.metrics, Logger: cfg.Logger,
		Concurrency: cfg.Workers + router.PartialWorkers, StoreTimeout: cfg.Limits.StoreTimeout,
		PublishTimeout: cfg.Limits.PublishTimeout, DecisionTimeout: cfg.Limits.DecisionTimeout,
		MaxInFlightBytes: cfg.Limits.MaxInFlightBytes, MaxDeliver: cfg.Limits.MaxDeliver,
		CloseTimeout: cfg.Limits.ShutdownTimeout,
	})
	if err != nil {
		return nil, err
	}
	// The router subscribes on the gateway's connection and, once built,
	// owns it: Watermill's subscriber drains the connection it is given
	// when it closes, so Close leaves that to the router. One connection
	// keeps acks, run-state writes and publishes in the same system calls
	// (a connection of the router's own cost 10 % of the throughput in the
	// bench: twice the system calls per message).
	g.router, err = router.New(ctx, router.Config{
		Conn: g.nc, AckWait: cfg.AckWait, MaxAckPending: cfg.MaxAckPending, Workers: cfg.Workers, Logger: cfg.Logger,
		Partial: true, CloseTimeout: cfg.Limits.ShutdownTimeout, HealthInterval: cfg.HealthInterval,
		Processor: g.proc,
	})
	if err != nil {
		return nil, err
	}
	if g.twins, err = g.newTwins(); err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	if g.http, g.httpLn, err = g.newAPI(cfg.API, cfg.HTTPAddr); err != nil {
		return nil, err
	}
	return g, nil
}

// signer returns the publisher decorator that signs outcomes (its next
// publisher still unset), or nil when there is no key to sign with.
func (g *Gateway) signer() (*signingPublisher, error) {
	path := g.cfg.SigningKey
	if path == "" {
		path = g.cfg.NATS.NKey
	}
	if path == "" {
		g.cfg.Logger.Warn("outcomes are not signed: give --signing-key (or connect with --nkey) so consumers can verify them")
		return nil, nil
	}
	kp, pub, err := loadSigner(path)
	if err != nil {
		return nil, err
	}
	g.signingKey = pub
	g.cfg.Logger.Info("outcomes are signed", "public_key", pub)
	return &signingPublisher{kp: kp, pub: pub}, nil
}

// SigningKey is the public NKey outcomes are signed with ("" when they are
// not signed): what consumers pass to executor.Verify.
func (g *Gateway) SigningKey() string { return g.signingKey }

// startRegistry seeds the registry buckets from the configuration folder
// and starts the live view the gateway judges messages by.
func (g *Gateway) startRegistry(ctx context.Context, seed *schemas.Registry) error {
	st, err := registry.OpenStore(ctx, g.js)
	if err != nil {
		return fmt.Errorf("gateway: %w", err)
	}
	g.regSvc = registry.NewService(st, g.cfg.Logger)
	rep, err := g.regSvc.Seed(ctx, seed)
	if err != nil {
		return fmt.Errorf("gateway: seeding the registry from %s: %w", g.cfg.ConfigDir, err)
	}
	for _, what := range rep.Kept {
		g.cfg.Logger.Warn("the configuration folder differs from a version registered through the API; the registered one stays",
			"entry", what, "config", g.cfg.ConfigDir)
	}
	for _, what := range rep.Replaced {
		g.cfg.Logger.Info("registry entry replaced from the configuration folder", "entry", what)
	}
	if g.live, err = registry.NewLive(ctx, st, g.cfg.Logger, seed); err != nil {
		return fmt.Errorf("gateway: %w", err)
	}
	g.reg = g.live
	cur := g.live.Current().Registry
	g.cfg.Logger.Info("registry ready", "schemas", len(cur.Schemas()), "agents", len(cur.Blueprints()), "seeded", len(rep.Added))
	return nil
}

// NATSURL is the URL of the NATS server the gateway uses.
func (g *Gateway) NATSURL() string { return g.natsURL }

// HTTPAddr is the address the HTTP API listens on.
func (g *Gateway) HTTPAddr() string { return g.httpLn.Addr().String() }

// Healthy reports what GET /healthz answers: the gateway is processing
// and connected to NATS.
func (g *Gateway) Healthy() bool {
	return g.ready.Load() && g.nc.Status() == nats.CONNECTED && g.router.Health() == nil
}

// Registry is the registry in force: the static one, or the live view's
// current snapshot.
func (g *Gateway) Registry() *schemas.Registry {
	if g.live != nil {
		return g.live.Current().Registry
	}
	r, _ := g.reg.(*schemas.Registry)
	return r
}

// Live is the live view of the registry service; nil for a static registry.
func (g *Gateway) Live() *registry.Live { return g.live }

// Run serves HTTP and processes raw outputs until ctx is done, then shuts
// down gracefully: no new messages are taken, the ones in flight finish
// (bounded), and the connections are closed.
func (g *Gateway) Run(ctx context.Context) error {
	httpErr := make(chan error, 1)
	go func() {
		if err := g.http.Serve(g.httpLn); !errors.Is(err, http.ErrServerClosed) {
			httpErr <- err
		}
		close(httpErr)
	}()
	routerErr := make(chan error, 1)
	// The router gets a context that never ends: Close stops it, after the
	// expiry loop (which publishes through it) and the HTTP API (which
	// reads run state on the connection the router closes).
	go func() { routerErr <- g.router.Run(context.WithoutCancel(ctx)) }()
	if g.live != nil {
		go func() { _ = g.live.Run(ctx) }()
	}
	ectx, stopExpiry := context.WithCancel(ctx)
	expiryDone := make(chan struct{})
	go func() { defer close(expiryDone); g.expireStreams(ectx) }()
	g.twins.start(ctx)
	// Stopped before the router closes: they publish through it.
	stopExpiring := func() {
		stopExpiry()
		<-expiryDone
		if err := g.twins.close(); err != nil {
			g.cfg.Logger.Warn("stopping gated twins", "error", err)
		}
	}

	select {
	case <-g.router.Running():
		g.ready.Store(true)
		g.cfg.Logger.Info("gateway ready", "nats", natsurl.Redacted(g.natsURL), "http", g.HTTPAddr())
	case err := <-routerErr:
		stopExpiring()
		return errors.Join(fmt.Errorf("gateway: router: %w", err), g.Close())
	case <-ctx.Done():
		stopExpiring()
		return g.Close()
	}
	var runErr error
	select {
	case <-ctx.Done():
	case err := <-routerErr:
		runErr = err
	case err := <-httpErr:
		runErr = fmt.Errorf("gateway: HTTP: %w", err)
	}
	g.cfg.Logger.Info("shutting down")
	stopExpiring()
	return errors.Join(runErr, g.Close())
}

// expireStreams dead-letters streamed outputs whose final chunk does not
// come within the idle limit, checking a few times per limit, until ctx is
// done.
func (g *Gateway) expireStreams(ctx context.Context) {
	idle := g.cfg.StreamIdle
	if idle <= 0 {
		idle = handlers.DefaultStreamIdle
	}
	tick := time.NewTicker(min(max(idle/4, 100*time.Millisecond), 15*time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if n, err := g.proc.ExpireStreams(ctx, idle); err != nil {
				if ctx.Err() == nil {
					g.cfg.Logger.Warn("expiring streamed outputs", "error", err)
				}
			} else if n > 0 {
				g.cfg.Logger.Info("streamed outputs dead-lettered as incomplete", "count", n)
			}
		}
	}
}

// Close stops the HTTP server, then the router (waiting for in-flight
// messages; it closes the NATS connection it shares with the run-state
// store and the API), then the embedded server if there is one. Safe to
// call twice.
func (g *Gateway) Close() error {
	g.closeOnce.Do(func() {
		g.ready.Store(false)
		var errs []error
		if g.driftHist != nil {
			g.driftHist.close()
		}
		if g.http != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			errs = append(errs, g.http.Shutdown(ctx))
			cancel()
		}
		if g.httpLn != nil {
			// Shutdown closes it only if Serve ran.
			if err := g.httpLn.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
				errs = append(errs, err)
			}
		}
		if g.live != nil {
			errs = append(errs, g.live.Close())
		}
		if g.router != nil {
			// The router owns the connection: it drains and closes it.
			errs = append(errs, g.router.Close())
		}
		if g.proc != nil {
			// After every door that feeds it: the router and the twins.
			errs = append(errs, g.proc.Close())
		}
		if g.nc != nil {
			if g.router == nil {
				// Never handed over: still the gateway's.
				if err := g.nc.Drain(); err != nil && !errors.Is(err, nats.ErrConnectionClosed) {
					errs = append(errs, err)
					g.nc.Close()
				}
			}
			select {
			case <-g.ncClosed:
			case <-time.After(10 * time.Second):
				g.nc.Close()
			}
		}
		if g.embedded != nil {
			g.embedded.Shutdown()
			g.embedded.WaitForShutdown()
		}
		g.closeErr = errors.Join(errs...)
	})
	return g.closeErr
}
