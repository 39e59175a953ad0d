package router

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wmjs "github.com/ThreeDotsLabs/watermill-nats/v2/pkg/jetstream"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/internal/natsurl"
	"github.com/agentgate/agentgate/subjects"
	"github.com/agentgate/agentgate/topology"
)

// Config configures the gateway's Watermill router.
type Config struct {
	// URL of the NATS server (required unless Conn is set).
	URL string
	// Conn, when set, is the connection the router subscribes on,
	// instead of one of its own. Once the router is built it owns the
	// connection: Watermill drains and closes it when the router closes.
	// Others may publish on it until then (the gateway does), but only the
	// router closes it.
	Conn *nats.Conn
	// Name is the NATS connection name (default "agentgate").
	Name string
	// Processor decides each output and emits its outcome (required). It
	// stays the caller's: close it after the router.
	Processor *handlers.Processor
	// AckWait is how long a message may be in processing before JetStream
	// redelivers it (default 30 s).
	AckWait time.Duration
	// MaxAckPending bounds the raw outputs in flight (default 256).
	MaxAckPending int
	// Workers is how many raw outputs are processed at once (default
	// DefaultWorkers).
	Workers int
	// Partial also processes streamed chunks (contract section 8) on the
	// durable consumer topology.PartialConsumer; the handler needs a chunk
	// store.
	Partial bool
	// CloseTimeout bounds the wait for in-flight messages on Close
	// (default 10 s).
	CloseTimeout time.Duration
	// HealthInterval is how often the durable consumers are checked, and
	// repaired when deleted or no longer consumed from (default
	// DefaultHealthInterval).
	HealthInterval time.Duration
	Logger         *slog.Logger
}

func (c *Config) setDefaults() {
	if c.Name == "" {
		c.Name = "agentgate"
	}
	if c.AckWait == 0 {
		c.AckWait = 30 * time.Second
	}
	if c.MaxAckPending == 0 {
		c.MaxAckPending = 256
	}
	if c.Workers == 0 {
		c.Workers = DefaultWorkers()
	}
	if c.CloseTimeout == 0 {
		c.CloseTimeout = 10 * time.Second
	}
	if c.HealthInterval <= 0 {
		c.HealthInterval = DefaultHealthInterval
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Validate reports every problem with the configuration.
func (c Config) Validate() error {
	var errs []error
	if c.URL == "" && c.Conn == nil {
		errs = append(errs, fmt.Errorf("%w: no NATS URL or connection", ErrBadConfig))
	}
	if c.Processor == nil {
		errs = append(errs, fmt.Errorf("%w: no processor", ErrBadConfig))
	}
	if c.AckWait < time.Second || c.MaxAckPending < 1 || c.Workers < 1 || c.CloseTimeout <= 0 {
		errs = append(errs, fmt.Errorf("%w: ack wait under 1s or a non-positive limit", ErrBadConfig))
	}
	return errors.Join(errs...)
}

// DefaultWorkers is the default of Config.Workers: 32 per core, at most
// 128. A message spends most of its time waiting on the bus (the run-state
// write, the outcome's publish); the more are in flight, the more acks,
// writes and publishes share each system call, on both sides. In the bench
// on 2 cores, going from 8 to 64 took the gateway's read and write system
// calls from 2.7 to 1.0 per message, and the bus's from 6.7 to 4.5. At most
// 128, so that three replicas stay within the consumer's 512 waiting pull
// requests.
func DefaultWorkers() int { return min(32*runtime.GOMAXPROCS(0), 128) }

// handlerRetries is how often Watermill's Retry middleware runs a failed
// message again before it is nacked.
const handlerRetries = 3

// handWait is how long watermill-nats waits for the handler to ack or nack
// a message before it stops waiting and drops the answer: it must outlast
// the message's whole time in hand, each of its runs (Processor.MaxInHand)
// and the retries' backoff, or the ack of a message held longer than the
// ack wait is lost and the message delivered again. At least 10 minutes,
// for the time a message may wait for a worker. JetStream does not
// redeliver meanwhile: the router sends InProgress while the handler runs.
func handWait(p *handlers.Processor) time.Duration {
	return max(10*time.Minute, (handlerRetries+1)*p.MaxInHand()+handlerRetries*time.Second)
}

// PartialWorkers is how many streamed chunks are processed at once:
// chunks of one attempt are few and small.
const PartialWorkers = 2

// pullBatch is how many messages each of workers subscriptions pulls at a
// time. nats.go asks again, for what is missing, once fewer than half are
// pending: with 2, a pull request brings 2 messages; with 4, 3. The server
// handles and answers each request, so 4 does better: in make bench on 2
// cores (64 subscriptions) 0.85 system calls per output against 0.95, and
// ~5 % less gateway CPU against the relay with run state; 1 is worse still
// (1.34). At most 4, so that a message waits behind at most 3 at a busy
// subscription (a wait past the ack wait costs a redelivery, never an
// outcome); 4 only where the subscriptions' batches fit in MaxAckPending,
// else 2 as before: a subscription may hold two requests, and at 128
// workers three replicas must stay within the consumer's 512 waiting
// requests (DefaultWorkers).
func pullBatch(maxAckPending, workers int) int { return min(4, max(2, maxAckPending/workers)) }

// partialPullBatch is pullBatch for the streamed chunks' subscriptions,
// where there are few messages to batch.
const partialPullBatch = 2

// Router runs the raw-output handler on the gateway's durable consumer.
type Router struct {
	cfg       Config
	wm        *message.Router
	consumers *consumerSet
	stage     *stage

	health  health
	watchMu sync.Mutex
	watched []*watched
	js      jetstream.JetStream
	// stopWatch ends the health check; closed is set once Close began.
	stopWatch context.CancelFunc
	watchDone chan struct{}
	closed    atomic.Bool

	closeOnce sync.Once
	closeErr  error
}

// watch registers a durable consumer for the health check.
func (r *Router) watchConsumer(js jetstream.JetStream, stream string, cfg jetstream.ConsumerConfig, dc *drainableConsumer) {
	r.watchMu.Lock()
	defer r.watchMu.Unlock()
	r.js = js
	r.watched = append(r.watched, &watched{stream: stream, cfg: cfg, dc: dc})
}

func (r *Router) closing() bool { return r.closed.Load() }

// New builds the router: a JetStream subscriber bound to the durable
// consumer topology.GatewayConsumer on the raw stream (created here if
// missing, never deleted, so it survives restarts and is shared by every
// replica), a JetStream publisher for outcomes, and the middleware stack
// InProgress → Poison → Retry → Recoverer around the handler. The streams must exist
// (topology.Ensure).
func New(ctx context.Context, cfg Config) (*Router, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	wlog := newWatermillLogger(cfg.Logger)

	// One connection carries the subscriptions and the publishes.
	conn := cfg.Conn
	closeConn := func() {} // a connection given is the caller's until the router is built
	if conn == nil {
		var err error
		if conn, err = connect(cfg.URL, cfg.Name); err != nil {
			return nil, err
		}
		closeConn = conn.Close
	}
	closeAll := closeConn

	// MaxDeliver is the processor's, set below (before Run binds
	// the consumer).
	consumerCfg := topology.GatewayConsumerConfig(cfg.AckWait, cfg.MaxAckPending)
	consumers := &consumerSet{}
	prog := newProgress()
	r := &Router{cfg: cfg, consumers: consumers}
	sub, err := wmjs.NewSubscriber(wmjs.SubscriberConfig{
		Conn:           conn,
		Logger:         wlog,
		AckWaitTimeout: handWait(cfg.Processor),
		// A failed message waits a little before redelivery, so a bus or
		// store outage is not a busy loop.
		NakDelay:    wmjs.NewStaticDelay(time.Second),
		Unmarshaler: Unmarshaler{progress: prog},
		// The handler records and publishes before it returns, and a
		// redelivered input republishes its recorded outcome under the same
		// Nats-Msg-Id: a lost ack costs a redelivery, never an outcome, so
		// the ack need not wait for the server's confirmation.
		AckAsync: true,
		// Every subscription handles one message at a time: a small pull
		// batch each keeps the messages spread over the workers instead of
		// queued behind one busy subscription.
		ConsumeOptions: []jetstream.PullConsumeOpt{jetstream.PullMaxMessages(pullBatch(cfg.MaxAckPending, cfg.Workers))},
		ResourceInitializer: func(ctx context.Context, js jetstream.JetStream, _ string) (jetstream.Consumer, func(context.Context, watermill.LoggerAdapter), error) {
			c, err := js.CreateOrUpdateConsumer(ctx, topology.StreamRaw, consumerCfg)
			if err != nil {
				return nil, nil, fmt.Errorf("binding durable consumer %s: %w", consumerCfg.Durable, err)
			}
			// No closer: the durable outlives this process.
			dc := consumers.add(c)
			r.watchConsumer(js, topology.StreamRaw, consumerCfg, dc)
			return dc, nil, nil
		},
	})
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("router: subscriber: %w", err)
	}
	concurrency := cfg.Workers
	if cfg.Partial {
		concurrency += PartialWorkers
	}
	st := newStage(cfg.Processor, concurrency, cfg.Logger)
	closeAll = func() { st.close(cfg.CloseTimeout); closeConn() }
	consumerCfg.MaxDeliver = cfg.Processor.MaxDeliver()

	wm, err := message.NewRouter(message.RouterConfig{CloseTimeout: cfg.CloseTimeout}, wlog)
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("router: %w", err)
	}
	wm.AddMiddleware(
		// Outermost: the message's whole time in hand counts, retries
		// and its dead letter included.
		prog.middleware(max(cfg.AckWait/3, 100*time.Millisecond)),
		st.poison(),
		middleware.Retry{
			MaxRetries:      handlerRetries,
			InitialInterval: 50 * time.Millisecond,
			MaxInterval:     time.Second,
			Multiplier:      2,
			// A panic would only panic again; Poison dead-letters it.
			ShouldRetry: func(p middleware.RetryParams) bool {
				var panicked middleware.RecoveredPanicError
				return !errors.As(p.Err, &panicked)
			},
			Logger: wlog,
		}.Middleware,
		middleware.Recoverer,
	)
	// Each handler is one subscription on the shared durable consumer, and
	// watermill-nats handles one message at a time per subscription: the
	// workers are what lets validation use every core while other messages
	// wait on the bus.
	for i := range cfg.Workers {
		wm.AddConsumerHandler(fmt.Sprintf("raw-outputs-%d", i), subjects.RawPrefix+".>", sub, st.raw)
	}
	if cfg.Partial {
		partialCfg := topology.PartialConsumerConfig(cfg.AckWait, cfg.MaxAckPending)
		partialCfg.MaxDeliver = cfg.Processor.MaxDeliver()
		psub, err := wmjs.NewSubscriber(wmjs.SubscriberConfig{
			Conn: conn, Logger: wlog, AckWaitTimeout: handWait(cfg.Processor), NakDelay: wmjs.NewStaticDelay(time.Second),
			Unmarshaler: Unmarshaler{progress: prog}, AckAsync: true,
			ConsumeOptions: []jetstream.PullConsumeOpt{jetstream.PullMaxMessages(partialPullBatch)},
			ResourceInitializer: func(ctx context.Context, js jetstream.JetStream, _ string) (jetstream.Consumer, func(context.Context, watermill.LoggerAdapter), error) {
				c, err := js.CreateOrUpdateConsumer(ctx, topology.StreamPartial, partialCfg)
				if err != nil {
					return nil, nil, fmt.Errorf("binding durable consumer %s: %w", partialCfg.Durable, err)
				}
				dc := consumers.add(c)
				r.watchConsumer(js, topology.StreamPartial, partialCfg, dc)
				return dc, nil, nil
			},
		})
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("router: partial subscriber: %w", err)
		}
		for i := range PartialWorkers {
			wm.AddConsumerHandler(fmt.Sprintf("partial-chunks-%d", i), subjects.PartialPrefix+".>", psub, st.chunk)
		}
	}
	r.wm, r.stage = wm, st
	return r, nil
}

// Run processes raw outputs until ctx is done or Close is called; either
// way it shuts down as Close does.
func (r *Router) Run(ctx context.Context) error {
	// Watermill cancels the subscription when its context ends, before
	// messages in flight are done (see drainableConsumer): it gets a
	// context that never ends, and ctx is watched here instead.
	done := make(chan error, 1)
	go func() { done <- r.wm.Run(context.WithoutCancel(ctx)) }()
	wctx, stopWatch := context.WithCancel(context.WithoutCancel(ctx))
	watchDone := make(chan struct{})
	r.watchMu.Lock()
	r.stopWatch, r.watchDone = stopWatch, watchDone
	r.watchMu.Unlock()
	go func() {
		defer close(watchDone)
		select {
		case <-r.wm.Running():
		case <-wctx.Done():
			return
		}
		r.watchMu.Lock()
		js := r.js
		r.watchMu.Unlock()
		if js != nil {
			r.watch(wctx, js)
		}
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		cerr := r.Close()
		return errors.Join(<-done, cerr)
	}
}

// Running is closed once the handler is subscribed.
func (r *Router) Running() <-chan struct{} { return r.wm.Running() }

// Close stops taking messages, waits (up to CloseTimeout) for the ones in
// flight to be processed and acked, and closes the router's connections.
// Safe to call twice.
func (r *Router) Close() error {
	r.closeOnce.Do(func() {
		r.closed.Store(true)
		r.watchMu.Lock()
		stop, done := r.stopWatch, r.watchDone
		r.watchMu.Unlock()
		if stop != nil {
			stop()
			<-done // a check in progress is bounded by HealthInterval
		}
		if !r.consumers.drain(r.cfg.CloseTimeout) {
			r.cfg.Logger.Warn("messages still in flight at close; JetStream will redeliver them", "timeout", r.cfg.CloseTimeout)
		}
		wmErr := r.wm.Close()
		switch {
		case !r.stage.close(r.cfg.CloseTimeout):
			// Watermill's own close timeout, if any, is the same message
			// still in hand.
			r.closeErr = fmt.Errorf("%w: a message still in hand after %s", ErrCloseTimeout, r.cfg.CloseTimeout)
		case wmErr != nil:
			// Watermill's router can only time out: a message was still
			// in hand when it gave up, and ended before the stage did.
			r.closeErr = fmt.Errorf("%w: %w", ErrCloseTimeout, wmErr)
		}
	})
	return r.closeErr
}

func connect(url, name string) (*nats.Conn, error) {
	nc, err := nats.Connect(url, nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(time.Second))
	if err != nil {
		return nil, fmt.Errorf("router: connecting to %s: %w", natsurl.Redacted(url), err)
	}
	return nc, nil
}
