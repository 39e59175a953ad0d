package agentproto

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"

	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/schemas"
)

// Defaults of Config.
const (
	DefaultHeartbeat = 30 * time.Second
	// DefaultKeepAlive is how long the twin lets its caller go without a
	// chunk before it sends a status ack: half the inactivity timeout the
	// protocol has callers apply (section 6.6).
	DefaultKeepAlive      = 30 * time.Second
	DefaultDiscoveryRetry = 5 * time.Second
	DefaultMaxConcurrent  = 64
	DefaultVersion        = "0.1.0"
	// judgeTimeout bounds recording and publishing one attempt's outcome.
	judgeTimeout = 10 * time.Second
	// drainTimeout bounds how long Run waits for exchanges in flight when
	// it stops.
	drainTimeout = 15 * time.Second
)

// Metadata keys a twin adds to the upstream's service metadata, which it
// otherwise keeps as it is (section 3.2 asks relays to preserve unknown
// keys).
const (
	MetaUpstreamAgent    = "upstream_agent"
	MetaUpstreamInstance = "upstream_instance_id"
	MetaUpstreamSubject  = "upstream_subject"
	MetaBlueprint        = "blueprint"
	MetaSchemaID         = "schema_id"
)

// Judge decides one attempt of a gated exchange, records the run and
// publishes its outcome: handlers.Handler.Submit.
type Judge interface {
	Submit(ctx context.Context, env handlers.Envelope, early *handlers.Verdict) (handlers.Decision, error)
}

// Blueprints looks an agent's current blueprint up (schemas.Registry and
// the live registry do).
type Blueprints interface {
	Blueprint(name string) (*schemas.Blueprint, bool)
}

// Config configures a Twin.
type Config struct {
	// Conn is the NATS connection the twin serves and prompts on.
	Conn *nats.Conn
	// Blueprint is the gated agent's; its Upstream must be set.
	Blueprint *schemas.Blueprint
	// Judge records and publishes every attempt's outcome.
	Judge Judge
	// Idle is the upstream stream's inactivity timeout (default
	// DefaultIdle, section 6.6).
	Idle time.Duration
	// Heartbeat is the twin's heartbeat interval (default
	// DefaultHeartbeat; at least a second).
	Heartbeat time.Duration
	// DiscoveryWait is how long one discovery collects replies (default
	// DefaultDiscoveryWait); DiscoveryRetry how long Run waits between
	// discoveries until the upstream agent answers (default
	// DefaultDiscoveryRetry).
	DiscoveryWait  time.Duration
	DiscoveryRetry time.Duration
	// MaxPayload is the largest assembled answer judged (default
	// handlers.DefaultMaxPayload); the gateway's limit.
	MaxPayload int
	// Blueprints, when set, is the live registry: each exchange takes the
	// agent's blueprint as it is then (its output-format section and early
	// stop), as the judge does, rather than Blueprint as it was at start.
	// The upstream agent and the twin's registration stay Blueprint's.
	Blueprints Blueprints
	// Claims, shared by a gateway's twins, keeps their subjects apart;
	// nil: this twin checks nothing.
	Claims *Claims
	// KeepAlive is how long a caller goes without a chunk before the twin
	// sends it a status ack (default DefaultKeepAlive).
	KeepAlive time.Duration
	// MaxConcurrent bounds the exchanges in flight; a prompt beyond it is
	// refused with 429 (default DefaultMaxConcurrent).
	MaxConcurrent int
	// Version is the service version (default DefaultVersion).
	Version string
	Logger  *slog.Logger
}

func (c *Config) setDefaults() {
	if c.Idle <= 0 {
		c.Idle = DefaultIdle
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = DefaultHeartbeat
	}
	if c.DiscoveryWait <= 0 {
		c.DiscoveryWait = DefaultDiscoveryWait
	}
	if c.DiscoveryRetry <= 0 {
		c.DiscoveryRetry = DefaultDiscoveryRetry
	}
	if c.MaxPayload <= 0 {
		c.MaxPayload = handlers.DefaultMaxPayload
	}
	if c.KeepAlive <= 0 {
		c.KeepAlive = DefaultKeepAlive
	}
	if c.MaxConcurrent <= 0 {
		c.MaxConcurrent = DefaultMaxConcurrent
	}
	if c.Version == "" {
		c.Version = DefaultVersion
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Validate reports every problem with the configuration.
func (c Config) Validate() error {
	var errs []error
	if c.Conn == nil {
		errs = append(errs, fmt.Errorf("%w: no NATS connection", ErrBadConfig))
	}
	if c.Judge == nil {
		errs = append(errs, fmt.Errorf("%w: no judge", ErrBadConfig))
	}
	switch {
	case c.Blueprint == nil:
		errs = append(errs, fmt.Errorf("%w: no blueprint", ErrBadConfig))
	case c.Blueprint.Upstream == nil:
		errs = append(errs, fmt.Errorf("%w: blueprint %q names no upstream agent", ErrBadConfig, c.Blueprint.Name))
	default:
		if err := c.Blueprint.Upstream.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("%w: blueprint %q: %w", ErrBadConfig, c.Blueprint.Name, err))
		}
	}
	if c.Heartbeat > 0 && c.Heartbeat < time.Second {
		errs = append(errs, fmt.Errorf("%w: heartbeat interval %s is under a second", ErrBadConfig, c.Heartbeat))
	}
	return errors.Join(errs...)
}

// Twin is the gated twin of one upstream agent (contract section 10).
type Twin struct {
	cfg Config
	sem chan struct{}
	// ctx ends the exchanges in flight when Run stops.
	ctx    context.Context
	cancel context.CancelFunc

	mu         sync.Mutex
	upstream   Instance
	svc        micro.Service
	registered chan struct{}
	closing    bool
	inflight   sync.WaitGroup
}

// New returns a Twin, or ErrBadConfig. Run registers it.
func New(cfg Config) (*Twin, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Twin{cfg: cfg, sem: make(chan struct{}, cfg.MaxConcurrent), ctx: ctx, cancel: cancel,
		registered: make(chan struct{})}, nil
}

// Registered is closed once the twin is registered and serving: the server
// has its subscriptions, unless the connection was down at that moment (a
// warning is logged; they are sent again on reconnect).
func (t *Twin) Registered() <-chan struct{} { return t.registered }

// Info is the twin's discovery record once registered (zero before).
func (t *Twin) Info() micro.Info {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.svc == nil {
		return micro.Info{}
	}
	return t.svc.Info()
}

// Run discovers the upstream agent (again every DiscoveryRetry until it
// answers), registers the twin, publishes its heartbeats and serves
// prompts until ctx is done; then it stops the service, ends the
// exchanges in flight (bounded) and returns nil. It fails when another
// twin of the gateway holds its subject (ErrSubjectTaken) or the service
// cannot be registered.
func (t *Twin) Run(ctx context.Context) error {
	defer t.cancel()
	log := t.cfg.Logger.With("agent", t.cfg.Blueprint.Name, "upstream", describe(*t.cfg.Blueprint.Upstream))
	for {
		found, err := Discover(ctx, t.cfg.Conn, *t.cfg.Blueprint.Upstream, t.cfg.DiscoveryWait)
		if err == nil {
			t.setUpstream(found[0])
			log.Info("upstream agent found", "instances", len(found), "subject", found[0].PromptSubject)
			break
		}
		if ctx.Err() != nil {
			return nil
		}
		log.Warn("upstream agent not found; retrying", "error", err, "in", t.cfg.DiscoveryRetry)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(t.cfg.DiscoveryRetry):
		}
	}
	if c := t.cfg.Claims; c != nil {
		subject := t.subject()
		if err := c.claim(subject, t.cfg.Blueprint.Name); err != nil {
			return err
		}
		defer c.release(subject, t.cfg.Blueprint.Name)
	}
	if err := t.register(ctx); err != nil {
		return err
	}
	close(t.registered)
	log.Info("gated twin registered", "subject", t.subject())
	t.heartbeats(ctx)
	return t.stop()
}

// setUpstream records the instance prompts go to.
func (t *Twin) setUpstream(in Instance) {
	t.mu.Lock()
	t.upstream = in
	t.mu.Unlock()
}

// current is the instance prompts go to.
func (t *Twin) current() Instance {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.upstream
}

// subject is the twin's prompt subject: agents.gate.<owner>.<name>.
func (t *Twin) subject() string {
	up := t.current()
	return Subject(TwinAgent, up.Owner, t.name())
}

// name is the twin's instance name: the upstream's, else the blueprint's.
func (t *Twin) name() string {
	up := t.current()
	if up.Name != "" && !strings.ContainsAny(up.Name, ".*> \t") {
		return up.Name
	}
	if n := t.cfg.Blueprint.Upstream.Name; n != "" {
		return n
	}
	return t.cfg.Blueprint.Name
}

// maxRequest is the twin's max_payload: what the upstream accepts, less
// the output-format section and some room for the envelope, and never
// more than the server carries.
func (t *Twin) maxRequest() int64 {
	limit := t.current().MaxPayload
	if mp := t.cfg.Conn.MaxPayload(); mp > 0 && mp < limit {
		limit = mp
	}
	limit -= int64(len(t.formatSection())) + 1024
	if limit >= 1<<10 {
		limit &^= 1<<10 - 1 // whole KB, never more than the room left
	}
	return max(limit, 1)
}

// register adds the micro service.
func (t *Twin) register(ctx context.Context) error {
	up := t.current()
	md := maps.Clone(up.Metadata)
	md[MetaAgent] = TwinAgent
	md[MetaOwner] = up.Owner
	md[MetaProtocolVersion] = ProtocolVersion
	md[MetaUpstreamAgent] = up.Agent()
	md[MetaUpstreamInstance] = up.ID
	md[MetaUpstreamSubject] = up.PromptSubject
	md[MetaBlueprint] = t.cfg.Blueprint.Name
	if s := t.cfg.Blueprint.OutputSchema; s != nil {
		md[MetaSchemaID] = s.ID
	}
	desc := "agentgate: schema-gated twin of " + up.Agent() + " " + up.Owner + "/" + up.Name
	if up.Description != "" {
		desc += " (" + up.Description + ")"
	}
	svc, err := micro.AddService(t.cfg.Conn, micro.Config{
		Name: ServiceNameCompact, Version: t.cfg.Version, Description: desc, Metadata: md,
	})
	if err != nil {
		return fmt.Errorf("agentproto: registering the twin of %s: %w", t.cfg.Blueprint.Name, err)
	}
	attach := "false"
	if up.AttachmentsOK {
		attach = "true"
	}
	err = svc.AddEndpoint(PromptEndpoint, micro.HandlerFunc(t.serve),
		micro.WithEndpointSubject(t.subject()),
		micro.WithEndpointMetadata(map[string]string{MetaMaxPayload: FormatSize(t.maxRequest()), MetaAttachmentsOK: attach}))
	if err != nil {
		_ = svc.Stop()
		return fmt.Errorf("agentproto: registering the prompt endpoint of %s: %w", t.cfg.Blueprint.Name, err)
	}
	t.mu.Lock()
	t.svc = svc
	t.mu.Unlock()
	// The service's subscriptions are only written to the connection's
	// buffer: a round trip makes sure the server has them before the twin
	// says it serves, or a prompt sent on another connection right after
	// would find no one. Offline, they are sent again on reconnect.
	fctx, cancel := context.WithTimeout(ctx, registerFlush)
	defer cancel()
	if err := t.cfg.Conn.FlushWithContext(fctx); err != nil {
		t.cfg.Logger.Warn("gated twin registered while the server is unreachable", "subject", t.subject(), "error", err)
	}
	return nil
}

// registerFlush bounds the round trip that confirms a twin's subscriptions.
const registerFlush = 5 * time.Second

// heartbeats publishes a heartbeat now and every interval until ctx is
// done (section 8).
func (t *Twin) heartbeats(ctx context.Context) {
	tick := time.NewTicker(t.cfg.Heartbeat)
	defer tick.Stop()
	for {
		t.beat()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (t *Twin) beat() {
	up := t.current()
	hb := Heartbeat{
		Agent: TwinAgent, Owner: up.Owner, Session: up.Metadata[MetaSession], InstanceID: t.Info().ID,
		TS: time.Now().UTC().Format(time.RFC3339), IntervalS: max(int(t.cfg.Heartbeat/time.Second), 1),
	}
	if err := t.cfg.Conn.Publish(HeartbeatSubject(TwinAgent, up.Owner, t.name()), encode(hb)); err != nil {
		t.cfg.Logger.Warn("publishing heartbeat", "agent", t.cfg.Blueprint.Name, "error", err)
	}
}

// stop removes the service, ends the exchanges in flight and waits for
// them, bounded.
func (t *Twin) stop() error {
	t.mu.Lock()
	t.closing = true
	svc := t.svc
	t.mu.Unlock()
	var err error
	if svc != nil {
		err = svc.Stop()
	}
	t.cancel()
	done := make(chan struct{})
	go func() { t.inflight.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(drainTimeout):
		t.cfg.Logger.Warn("gated exchanges still running at shutdown", "agent", t.cfg.Blueprint.Name)
	}
	if err != nil {
		return fmt.Errorf("agentproto: stopping the twin of %s: %w", t.cfg.Blueprint.Name, err)
	}
	return nil
}
