package test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/internal/natstest"
	"github.com/agentgate/agentgate/router"
	"github.com/agentgate/agentgate/runstate"
	"github.com/agentgate/agentgate/subjects"
	"github.com/agentgate/agentgate/topology"
)

// examplesDir is the bundled configuration the tests run against.
const examplesDir = "../examples"

// bus is a NATS server for one test, with a client connection.
type bus struct {
	t   *testing.T
	srv *server.Server
	nc  *nats.Conn
	js  jetstream.JetStream

	mu   sync.Mutex
	read map[string][]outcome // messages read so far, by stream
}

// startBus starts an embedded NATS server with JetStream on a free loopback
// port, stopped when the test ends.
func startBus(t *testing.T) *bus {
	t.Helper()
	srv := natstest.Server(t)
	nc, js := natstest.Connect(t, srv)
	return &bus{t: t, srv: srv, nc: nc, js: js, read: map[string][]outcome{}}
}

// ensureStreams creates the streams as the gateway would, for tests that
// publish before any gateway runs.
func (b *bus) ensureStreams() {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := topology.Ensure(ctx, b.js, topology.StreamsConfig{}); err != nil {
		b.t.Fatal(err)
	}
}

// startRouter runs the gateway's router on b without the rest of the
// gateway, so that a test can put faults between the handler and the bus:
// wrapStore and wrapPub (either may be nil) wrap the real run-state store
// and outcome publisher.
func (b *bus) startRouter(reg handlers.Registry, wrapStore func(handlers.RunStore) handlers.RunStore,
	wrapPub func(message.Publisher) message.Publisher) {
	b.t.Helper()
	b.startRouterWith(reg, routerSetup{wrapStore: wrapStore, wrapPub: wrapPub})
}

// routerSetup tunes startRouterWith; the zero value is startRouter's.
type routerSetup struct {
	wrapStore func(handlers.RunStore) handlers.RunStore
	wrapPub   func(message.Publisher) message.Publisher
	// conn, when set, is the router's connection (a test can cut it).
	conn *nats.Conn
	// streams, ackWait and workers tune the streams and the consumer.
	streams topology.StreamsConfig
	ackWait time.Duration
	workers int
	// gate and handler tune the gate and the processor before they are
	// built.
	gate    func(*handlers.GateConfig)
	handler func(*handlers.ProcessorConfig)
	router  func(*routerConfig)
}

// routerConfig is the router's configuration, for routerSetup.router.
type routerConfig = router.Config

// startRouterWith is startRouter with more to tune. It returns a function
// that closes the router and waits for it (also called when the test ends).
func (b *bus) startRouterWith(reg handlers.Registry, rs routerSetup) (stop func()) {
	b.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b.t.Cleanup(cancel)
	kv, err := topology.Ensure(ctx, b.js, rs.streams)
	if err != nil {
		b.t.Fatal(err)
	}
	gcfg := handlers.GateConfig{Registry: reg}
	if rs.gate != nil {
		rs.gate(&gcfg)
	}
	gate, err := handlers.NewGate(gcfg)
	if err != nil {
		b.t.Fatal(err)
	}
	var store handlers.RunStore = runstate.New(kv)
	if rs.wrapStore != nil {
		store = rs.wrapStore(store)
	}
	ckv, err := b.js.KeyValue(ctx, topology.ChunksBucket)
	if err != nil {
		b.t.Fatal(err)
	}
	// The outcomes go out on the router's connection when the test gives
	// one, else on one of the harness's own.
	pubConn := rs.conn
	if pubConn == nil {
		if pubConn, err = nats.Connect(b.srv.ClientURL()); err != nil {
			b.t.Fatal(err)
		}
		b.t.Cleanup(pubConn.Close)
	}
	rpub, err := router.NewPublisher(pubConn, 0)
	if err != nil {
		b.t.Fatal(err)
	}
	var pub message.Publisher = rpub
	if rs.wrapPub != nil {
		pub = rs.wrapPub(pub)
	}
	pjs, err := jetstream.New(pubConn)
	if err != nil {
		b.t.Fatal(err)
	}
	pcfg := handlers.ProcessorConfig{Gate: gate, Store: store, Chunks: runstate.NewChunks(ckv),
		DeadLetters: runstate.NewDeadLetters(b.js), Emitter: router.Outcomes{Publisher: pub, JS: pjs}}
	if rs.handler != nil {
		rs.handler(&pcfg)
	}
	proc, err := handlers.NewProcessor(pcfg)
	if err != nil {
		b.t.Fatal(err)
	}
	rcfg := router.Config{
		URL:       b.srv.ClientURL(),
		Conn:      rs.conn,
		AckWait:   rs.ackWait,
		Workers:   rs.workers,
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		Partial:   true,
		Processor: proc,
	}
	if rs.router != nil {
		rs.router(&rcfg)
	}
	r, err := router.New(ctx, rcfg)
	if err != nil {
		b.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { _ = r.Close(); <-done; _ = proc.Close() }) }
	b.t.Cleanup(stop)
	return stop
}

// runningGateway is a gateway running in the background of a test.
type runningGateway struct {
	*gateway.Gateway
	// stop shuts it down gracefully and waits for it (bounded); safe to
	// call twice.
	stop func()
}

// startGateway runs a gateway on b, with the bundled examples, until the
// test ends or stop is called.
func startGateway(t *testing.T, b *bus, mutate ...func(*gateway.Config)) *runningGateway {
	t.Helper()
	return startGatewayDir(t, b, examplesDir, mutate...)
}

// startGatewayDir is startGateway with the configuration folder dir.
func startGatewayDir(t *testing.T, b *bus, dir string, mutate ...func(*gateway.Config)) *runningGateway {
	t.Helper()
	g, stop := natstest.Gateway(t, b.srv, dir, mutate...)
	return &runningGateway{Gateway: g, stop: stop}
}

// raw is one raw output to publish.
type raw struct {
	agent   string
	subject string // overrides agent.output.raw.<agent>
	run     string
	attempt int // 0: no Attempt header
	payload string
	headers nats.Header
}

// publish publishes r as an executor would, waiting for JetStream's ack.
func (b *bus) publish(r raw) {
	b.t.Helper()
	subject := r.subject
	if subject == "" {
		subject = subjects.Raw(r.agent)
	}
	msg := nats.NewMsg(subject)
	msg.Data = []byte(r.payload)
	for k, vs := range r.headers {
		for _, v := range vs {
			msg.Header.Add(k, v)
		}
	}
	if r.run != "" {
		msg.Header.Set(contract.HeaderRunID, r.run)
	}
	if r.attempt > 0 {
		msg.Header.Set(contract.HeaderAttempt, strconv.Itoa(r.attempt))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := b.js.PublishMsg(ctx, msg); err != nil {
		b.t.Fatalf("publishing to %s: %v", subject, err)
	}
}

// outcome is one message read back from an outcome stream.
type outcome struct {
	Subject string
	Headers nats.Header
	Body    map[string]any
	Data    []byte
}

// outcomes reads every message persisted in the outcome streams, in stream
// order per stream.
func (b *bus) outcomes() []outcome {
	b.t.Helper()
	var all []outcome
	for _, name := range topology.OutcomeStreams {
		all = append(all, b.streamMessages(name)...)
	}
	return all
}

// streamMessages returns every message of a stream, in order. Streams here
// only grow, so messages read once are kept and each call fetches only the
// new ones, by sequence (no consumer is created, so polling is cheap).
func (b *bus) streamMessages(stream string) []outcome {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := b.js.Stream(ctx, stream)
	if err != nil {
		b.t.Fatalf("stream %s: %v", stream, err)
	}
	last := s.CachedInfo().State.LastSeq
	for seq := uint64(len(b.read[stream])) + 1; seq <= last; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if err != nil {
			b.t.Fatalf("stream %s seq %d: %v", stream, seq, err)
		}
		o := outcome{Subject: m.Subject, Headers: m.Header, Data: m.Data}
		if err := json.Unmarshal(m.Data, &o.Body); err != nil {
			b.t.Fatalf("message on %s is not JSON: %v: %s", m.Subject, err, m.Data)
		}
		b.read[stream] = append(b.read[stream], o)
	}
	return slices.Clone(b.read[stream])
}

// outcomesOf returns the outcomes of one run.
func (b *bus) outcomesOf(run string) []outcome {
	var mine []outcome
	for _, o := range b.outcomes() {
		if o.Headers.Get(contract.HeaderRunID) == run {
			mine = append(mine, o)
		}
	}
	return mine
}

// awaitLimit bounds the waits for what the gateway will do: generous, for
// under -race the whole package's gateways share two cores (a wait that
// succeeds returns at once; only a failing test waits it out).
const awaitLimit = 30 * time.Second

// awaitOutcomes waits until the run has n outcomes and returns them.
func (b *bus) awaitOutcomes(run string, n int) []outcome {
	b.t.Helper()
	var got []outcome
	waitFor(b.t, awaitLimit, fmt.Sprintf("%d outcome(s) for run %q", n, run), func() bool {
		got = b.outcomesOf(run)
		return len(got) >= n
	})
	return got
}

// runState reads a run's state from the bucket.
func (b *bus) runState(run string) *contract.RunState {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	kv, err := b.js.KeyValue(ctx, topology.RunsBucket)
	if err != nil {
		b.t.Fatal(err)
	}
	st, _, err := runstate.New(kv).Get(ctx, run)
	if err != nil {
		b.t.Fatal(err)
	}
	return st
}

// awaitState waits until the run's state has the status and attempts
// wanted. The state is recorded just before the outcome is published: a
// test that needs the outcome awaits it (awaitOutcomes).
func (b *bus) awaitState(run string, status contract.RunStatus, attempts int) {
	b.t.Helper()
	var st *contract.RunState
	waitFor(b.t, awaitLimit, fmt.Sprintf("run %s %s at attempt %d", run, status, attempts), func() bool {
		st = b.runState(run)
		return st != nil && st.Status == status && st.Attempts == attempts
	})
}

// awaitIdle waits until the gateways' durable consumers (raw outputs and
// streamed chunks) have acked every message their streams hold: then what
// they will ever publish for them is out.
func (b *bus) awaitIdle() {
	b.t.Helper()
	waitFor(b.t, awaitLimit, "every raw output and chunk acked", func() bool {
		return b.consumerIdle(topology.StreamRaw, topology.GatewayConsumer) &&
			b.consumerIdle(topology.StreamPartial, topology.PartialConsumer)
	})
}

func (b *bus) consumerIdle(stream, consumer string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := b.js.Stream(ctx, stream)
	if err != nil {
		return false
	}
	last := s.CachedInfo().State.LastSeq
	c, err := s.Consumer(ctx, consumer)
	if err != nil {
		// No consumer yet: idle only if there is nothing to consume.
		return last == 0
	}
	info, err := c.Info(ctx)
	return err == nil && info.NumPending == 0 && info.NumAckPending == 0 && info.AckFloor.Stream >= last
}

// waitFor polls cond until it holds or limit passes.
var waitFor = natstest.WaitFor

// field digs a value out of a decoded JSON object: field(m, "error", "type").
func field(m map[string]any, path ...string) any {
	var cur any = m
	for _, p := range path {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = obj[p]
	}
	return cur
}

// streamSeqOf is the stream sequence of the first message of run in stream,
// as a string ("" when there is none).
func (b *bus) streamSeqOf(stream, run string) string {
	b.t.Helper()
	for i, o := range b.streamMessages(stream) {
		if o.Headers.Get(contract.HeaderRunID) == run {
			return strconv.Itoa(i + 1)
		}
	}
	return ""
}

// consumerAckPending reports whether the raw consumer has at least n
// messages delivered and not yet acked.
func (b *bus) consumerAckPending(n int) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := b.js.Consumer(ctx, topology.StreamRaw, topology.GatewayConsumer)
	if err != nil {
		return false
	}
	info, err := c.Info(ctx)
	return err == nil && info.NumAckPending >= n
}
