package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/schemas"
	"github.com/agentgate/agentgate/subjects"
)

const (
	agent          = "pr-reviewer"
	scratchStream  = "BENCH_SCRATCH"
	scratchSubject = "bench.scratch." + agent
	relayRawStream = "BENCH_RELAY_RAW"
	relayOutStream = "BENCH_RELAY_OUT"
	relayRawPrefix = "bench.relay.raw"
	relayOutPrefix = "bench.relay.out"
	maxAckPending  = 256 // the gateway's default, used by the relay too
)

// bench holds what every phase shares.
type bench struct {
	url     string
	nc      *nats.Conn
	js      jetstream.JetStream
	ps      []payload
	window  int
	timeout time.Duration // bound on each wait for outcomes
}

func (b *bench) stream(ctx context.Context, name string, subjects ...string) error {
	_, err := b.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: name, Subjects: subjects, Storage: jetstream.FileStorage,
	})
	return err
}

// baseline measures the bus alone: async publish of the payloads into a
// scratch stream, then a durable pull consumer that receives and acks them.
func (b *bench) baseline(ctx context.Context) (pub, con result, err error) {
	if err := b.stream(ctx, scratchStream, "bench.scratch.>"); err != nil {
		return pub, con, err
	}
	defer func() { _ = b.js.DeleteStream(context.WithoutCancel(ctx), scratchStream) }()

	p, err := newPublisher(b.nc, b.window)
	if err != nil {
		return pub, con, err
	}
	pctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	start, err := p.publishAll(pctx, scratchSubject, b.ps, nil)
	if err != nil {
		return pub, con, err
	}
	pub = rate("jetstream publish", len(b.ps), time.Since(start))

	cons, err := b.js.CreateOrUpdateConsumer(ctx, scratchStream, jetstream.ConsumerConfig{
		Durable: "bench-consume", AckPolicy: jetstream.AckExplicitPolicy, MaxAckPending: maxAckPending,
	})
	if err != nil {
		return pub, con, err
	}
	n, done := int64(len(b.ps)), make(chan struct{})
	var count atomic.Int64
	start = time.Now()
	cc, err := cons.Consume(func(m jetstream.Msg) {
		_ = m.Ack()
		if count.Add(1) == n {
			close(done)
		}
	})
	if err != nil {
		return pub, con, err
	}
	defer cc.Stop()
	select {
	case <-done:
	case <-pctx.Done():
		return pub, con, fmt.Errorf("consumed %d of %d: %w", count.Load(), n, pctx.Err())
	}
	// The acks are fire-and-forget: a flush round trip means the server has them.
	if err := b.nc.FlushWithContext(pctx); err != nil {
		return pub, con, err
	}
	return pub, rate("jetstream consume", len(b.ps), time.Since(start)), nil
}

func rate(name string, n int, d time.Duration) result {
	return result{Name: name, MsgsPerSec: float64(n) / d.Seconds(), Seconds: d.Seconds()}
}

// relay is a minimal hand-written nats.go relay doing per message what the
// gateway does at its core: decode, validate against the blueprint's
// compiled schema, publish an outcome (with a Nats-Msg-Id), then ack.
type relay struct {
	js     jetstream.JetStream
	schema *schemas.Schema
}

// relayOutcome is the relay's small outcome document.
type relayOutcome struct {
	RunID      string               `json:"run_id"`
	AgentID    string               `json:"agent_id"`
	Attempt    int                  `json:"attempt"`
	Outcome    string               `json:"outcome"`
	Violations []contract.Violation `json:"violations,omitempty"`
}

func (r *relay) handle(m jetstream.Msg) {
	out := relayOutcome{
		RunID:   m.Headers().Get(contract.HeaderRunID),
		AgentID: strings.TrimPrefix(m.Subject(), relayRawPrefix+"."),
		Attempt: 1,
		Outcome: "valid",
	}
	dec := json.NewDecoder(bytes.NewReader(m.Data()))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		out.Outcome = "invalid"
		out.Violations = []contract.Violation{{Path: "$", Keyword: "json", Message: err.Error()}}
	} else if v := r.schema.Validate(doc); len(v) > 0 {
		out.Outcome, out.Violations = "invalid", v
	}
	body, err := json.Marshal(out)
	if err != nil {
		_ = m.Term()
		return
	}
	msg := nats.NewMsg(relayOutPrefix + "." + out.AgentID)
	msg.Data = body
	msg.Header.Set(contract.HeaderRunID, out.RunID)
	msg.Header.Set(contract.HeaderAgentID, out.AgentID)
	msg.Header.Set(contract.HeaderAttempt, "1")
	msg.Header.Set(contract.HeaderOutcome, out.Outcome)
	msg.Header.Set(contract.HeaderMsgID, out.RunID+".1."+out.Outcome)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := r.js.PublishMsg(ctx, msg); err != nil {
		_ = m.NakWithDelay(time.Second)
		return
	}
	_ = m.Ack()
}

// runRelay measures the relay: it runs on its own connection and durable
// consumer while the payloads are published, like the gateway.
func (b *bench) runRelay(ctx context.Context, reg *schemas.Registry) (result, error) {
	bp, ok := reg.Blueprint(agent)
	if !ok || bp.OutputSchema == nil {
		return result{}, fmt.Errorf("no blueprint %q with an output schema in the configuration", agent)
	}
	if err := b.stream(ctx, relayRawStream, relayRawPrefix+".>"); err != nil {
		return result{}, err
	}
	if err := b.stream(ctx, relayOutStream, relayOutPrefix+".>"); err != nil {
		return result{}, err
	}
	defer func() {
		for _, s := range []string{relayRawStream, relayOutStream} {
			_ = b.js.DeleteStream(context.WithoutCancel(ctx), s)
		}
	}()

	nc, err := nats.Connect(b.url, nats.Name("agentgate-bench-relay"))
	if err != nil {
		return result{}, err
	}
	defer nc.Close()
	rjs, err := jetstream.New(nc)
	if err != nil {
		return result{}, err
	}
	cons, err := rjs.CreateOrUpdateConsumer(ctx, relayRawStream, jetstream.ConsumerConfig{
		Durable: "bench-relay", AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: 30 * time.Second, MaxAckPending: maxAckPending,
	})
	if err != nil {
		return result{}, err
	}
	r := &relay{js: rjs, schema: bp.OutputSchema}
	cc, err := cons.Consume(r.handle)
	if err != nil {
		return result{}, err
	}
	defer cc.Stop()

	return b.endToEnd(ctx, "relay", relayRawPrefix+"."+agent, relayOutStream)
}

// runGateway measures agentgate itself: gateway.New + Run on the same
// server, then the payloads published to agent.output.raw.<agent>.
func (b *bench) runGateway(ctx context.Context, configDir string) (result, error) {
	gctx, stop := context.WithCancel(ctx)
	defer stop()
	g, err := gateway.New(gctx, gateway.Config{
		ConfigDir: configDir, NATSURL: b.url, HTTPAddr: "127.0.0.1:0",
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return result{}, err
	}
	var runErr error
	done := make(chan struct{})
	go func() { runErr = g.Run(gctx); close(done) }()
	defer func() {
		stop()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
		}
	}()
	if err := waitHealthy(ctx, "http://"+g.HTTPAddr()+"/healthz", done); err != nil {
		select {
		case <-done:
			err = errors.Join(err, runErr)
		default:
		}
		return result{}, err
	}
	return b.endToEnd(ctx, "agentgate", subjects.Raw(agent), subjects.OutcomeStreams...)
}

// endToEnd publishes every payload to subject while a processor runs, waits
// (at most b.timeout) until the outcome streams hold one outcome per
// payload, and reads them back for the last stored time and latencies.
func (b *bench) endToEnd(ctx context.Context, name, subject string, outStreams ...string) (result, error) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	p, err := newPublisher(b.nc, b.window)
	if err != nil {
		return result{}, err
	}
	sent := make([]time.Time, len(b.ps))
	start, err := p.publishAll(ctx, subject, b.ps, sent)
	if err != nil {
		return result{}, err
	}
	if err := waitCount(ctx, b.js, uint64(len(b.ps)), outStreams...); err != nil {
		return result{}, err
	}
	c, err := collect(ctx, b.js, sent, outStreams...)
	if err != nil {
		return result{}, fmt.Errorf("reading outcomes: %w", err)
	}
	return endToEnd(name, len(b.ps), start, c), nil
}

// waitHealthy polls url until it answers 200, the gateway stops (done is
// closed), or 30 s pass.
func waitHealthy(ctx context.Context, url string, done <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-done:
			return errors.New("gateway stopped before it was ready")
		case <-ctx.Done():
			return fmt.Errorf("gateway not healthy: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
