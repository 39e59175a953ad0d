package test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/router"
	"github.com/agentgate/agentgate/schemas"
	"github.com/agentgate/agentgate/topology"
)

// assertOneOutcomeEach checks that every run has exactly the outcomes
// wanted (one per attempt), none lost, none doubled.
func assertOneOutcomeEach(t *testing.T, b *bus, want map[string]int) {
	t.Helper()
	got := map[string]int{}
	seen := map[string]bool{}
	for _, o := range b.outcomes() {
		key := o.Headers.Get(contract.HeaderRunID) + "/" + o.Headers.Get(contract.HeaderAttempt)
		if seen[key] {
			t.Errorf("second outcome for %s: %s", key, o.Data)
		}
		seen[key] = true
		got[o.Headers.Get(contract.HeaderRunID)]++
	}
	for run, n := range want {
		if got[run] != n {
			t.Errorf("run %s: %d outcomes, want %d", run, got[run], n)
		}
	}
}

func TestGateway_duplicateDeliveryPublishesNothingNew(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	startGateway(t, b)
	b.publish(raw{agent: "pr-reviewer", run: "dup", attempt: 1, payload: validReview})
	b.awaitOutcomes("dup", 1)
	// The same output again, and once more without an Attempt header: the
	// run is finished, so its last attempt is meant and already answered.
	b.publish(raw{agent: "pr-reviewer", run: "dup", attempt: 1, payload: validReview})
	b.publish(raw{agent: "pr-reviewer", run: "dup", payload: badReview})
	b.awaitIdle()
	assertOneOutcomeEach(t, b, map[string]int{"dup": 1})
}

func TestGateway_restartWithMessagesInFlight(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	b.ensureStreams()
	const runs = 60
	want := map[string]int{}
	for i := range runs {
		run := fmt.Sprintf("restart-%02d", i)
		payload := validReview
		if i%3 == 0 {
			payload = badReview
		}
		b.publish(raw{agent: "pr-reviewer", run: run, payload: payload})
		want[run] = 1
	}
	first := startGateway(t, b)
	waitFor(t, 15*time.Second, "some outcomes", func() bool { return len(b.outcomes()) >= 5 })
	first.stop()

	startGateway(t, b)
	waitFor(t, 30*time.Second, "every outcome", func() bool { return len(b.outcomes()) >= runs })
	assertOneOutcomeEach(t, b, want)
	valid := map[string]bool{}
	for _, o := range b.streamMessages(topology.StreamValid) {
		run := o.Headers.Get(contract.HeaderRunID)
		if valid[run] {
			t.Errorf("run %s doubled on agent.output.valid", run)
		}
		valid[run] = true
	}
}

func TestGateway_replicasShareTheWork(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	startGateway(t, b)
	startGateway(t, b)
	want := map[string]int{}
	for i := range 40 {
		run := fmt.Sprintf("shared-%02d", i)
		b.publish(raw{agent: "pr-reviewer", run: run, payload: validReview})
		want[run] = 1
	}
	waitFor(t, 30*time.Second, "every outcome", func() bool { return len(b.outcomes()) >= 40 })
	assertOneOutcomeEach(t, b, want)
}

// failFirstPut fails the first recording of each run: the store is
// unreachable for a moment.
type failFirstPut struct {
	handlers.RunStore
	mu     sync.Mutex
	failed map[string]bool
}

func (s *failFirstPut) Put(ctx context.Context, st *contract.RunState, rev uint64) (uint64, error) {
	s.mu.Lock()
	first := !s.failed[st.RunID]
	s.failed[st.RunID] = true
	s.mu.Unlock()
	if first {
		return 0, errors.New("injected: store unreachable")
	}
	return s.RunStore.Put(ctx, st, rev)
}

// failFirstPublish fails the first publish of each run's outcome after the
// state was recorded: the gateway "crashes" between recording and
// publishing.
type failFirstPublish struct {
	message.Publisher
	mu     sync.Mutex
	failed map[string]bool
}

func (p *failFirstPublish) Publish(topic string, msgs ...*message.Message) error {
	if p.fails(msgs[0]) {
		return errors.New("injected: crashed before publishing")
	}
	return p.Publisher.Publish(topic, msgs...)
}

// PublishSeq keeps the router's publisher a router.SeqPublisher.
func (p *failFirstPublish) PublishSeq(ctx context.Context, topic string, msg *message.Message) (uint64, error) {
	if p.fails(msg) {
		return 0, errors.New("injected: crashed before publishing")
	}
	return p.Publisher.(router.SeqPublisher).PublishSeq(ctx, topic, msg)
}

func (p *failFirstPublish) fails(msg *message.Message) bool {
	run := msg.Metadata.Get(contract.HeaderRunID)
	p.mu.Lock()
	defer p.mu.Unlock()
	first := !p.failed[run]
	p.failed[run] = true
	return first
}

func TestGateway_failureBetweenRecordAndPublish(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		store func(handlers.RunStore) handlers.RunStore
		pub   func(message.Publisher) message.Publisher
	}{
		{"store fails once", func(s handlers.RunStore) handlers.RunStore {
			return &failFirstPut{RunStore: s, failed: map[string]bool{}}
		}, func(p message.Publisher) message.Publisher { return p }},
		{"publish fails once after recording", func(s handlers.RunStore) handlers.RunStore { return s },
			func(p message.Publisher) message.Publisher {
				return &failFirstPublish{Publisher: p, failed: map[string]bool{}}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := startBus(t)
			reg, err := schemas.Load(examplesDir)
			if err != nil {
				t.Fatal(err)
			}
			b.startRouter(reg, tt.store, tt.pub)

			b.publish(raw{agent: "pr-reviewer", run: "crash-valid", payload: validReview})
			b.publish(raw{agent: "pr-reviewer", run: "crash-retry", payload: badReview})
			b.awaitOutcomes("crash-valid", 1)
			b.awaitOutcomes("crash-retry", 1)
			b.awaitState("crash-valid", contract.RunCompleted, 1)
			b.awaitState("crash-retry", contract.RunRetryRequested, 1)
			// The answer to the retry request, without an Attempt header,
			// is the run's second attempt.
			b.publish(raw{agent: "pr-reviewer", run: "crash-retry", payload: validReview})
			b.awaitState("crash-retry", contract.RunCompleted, 2)
			assertOneOutcomeEach(t, b, map[string]int{"crash-valid": 1, "crash-retry": 2})
		})
	}
}

// ackDropper dials NATS and, from the first ack of a raw output on, drops
// every such ack the client writes, as a process killed before its
// asynchronous acks went out would: the outcomes of those messages are
// published and recorded, their acks lost. Everything else goes through,
// so the router still shuts down cleanly.
type ackDropper struct {
	mu      sync.Mutex
	dropped int
}

var rawAck = []byte("PUB $JS.ACK." + topology.StreamRaw + ".")

func (d *ackDropper) Dial(network, address string) (net.Conn, error) {
	c, err := net.Dial(network, address)
	if err != nil {
		return nil, err
	}
	return &ackDroppingConn{Conn: c, d: d}, nil
}

func (d *ackDropper) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.dropped
}

type ackDroppingConn struct {
	net.Conn
	d *ackDropper
}

// Write drops each whole "PUB $JS.ACK.<raw stream>... <n>\r\n<payload>\r\n"
// frame of p.
func (c *ackDroppingConn) Write(p []byte) (int, error) {
	out, n := p, 0
	for {
		i := bytes.Index(out, rawAck)
		if i < 0 {
			break
		}
		eol := bytes.Index(out[i:], []byte("\r\n"))
		if eol < 0 {
			break
		}
		fields := bytes.Fields(out[i : i+eol])
		size, err := strconv.Atoi(string(fields[len(fields)-1]))
		end := i + eol + 2 + size + 2
		if err != nil || end > len(out) {
			break
		}
		out = append(append([]byte{}, out[:i]...), out[end:]...)
		n++
	}
	if n > 0 {
		c.d.mu.Lock()
		c.d.dropped += n
		c.d.mu.Unlock()
	}
	if _, err := c.Conn.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Exactly one outcome per (run, attempt) however long the gateway was
// down: the acks of the first raw outputs the gateway handles are lost, it
// stops, stays down longer than the streams' de-duplication window, and
// comes back. Those inputs are redelivered after the window, when
// JetStream would store a republished outcome again: the gateway finds each
// outcome in its stream, so nothing is stored twice.
func TestGateway_outageLongerThanTheDedupeWindow(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	streams := topology.StreamsConfig{Duplicates: 500 * time.Millisecond}
	if _, err := topology.Ensure(context.Background(), b.js, streams); err != nil {
		t.Fatal(err)
	}
	reg, err := schemas.Load(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	const runs = 12
	want := map[string]int{}
	for i := range runs {
		run := fmt.Sprintf("outage-%02d", i)
		payload := validReview
		if i%3 == 0 {
			payload = badReview
		}
		b.publish(raw{agent: "pr-reviewer", run: run, payload: payload})
		want[run] = 1
	}

	dropper := &ackDropper{}
	nc, err := nats.Connect(b.srv.ClientURL(), nats.SetCustomDialer(dropper))
	if err != nil {
		t.Fatal(err)
	}
	// One worker, so that every message whose outcome went out is acked
	// (and the ack dropped) before the next is taken.
	setup := routerSetup{conn: nc, streams: streams, ackWait: time.Second, workers: 1}
	stop := b.startRouterWith(reg, setup)
	waitFor(t, 15*time.Second, "acks dropped", func() bool { return dropper.count() >= 3 })
	stop()
	before := len(b.outcomes())
	downFrom := time.Now()

	// Down for four windows, then back.
	time.Sleep(4 * streams.Duplicates)
	setup.conn = nil
	b.startRouterWith(reg, setup)
	waitFor(t, 30*time.Second, "every outcome", func() bool { return len(b.outcomes()) >= runs })
	b.awaitIdle()
	t.Logf("%d runs, %d outcome(s) before the outage, %d ack(s) lost, down %s with a %s window, %d outcome(s) in all",
		runs, before, dropper.count(), time.Since(downFrom).Round(100*time.Millisecond), streams.Duplicates, len(b.outcomes()))
	assertOneOutcomeEach(t, b, want)
}
