package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/schemas"
	"github.com/agentgate/agentgate/topology"
)

// childMain runs a process under test: "child gateway" (agentgate:
// gateway.New + Run, what `agentgate serve --nats-url` runs, without the
// CLI) or "child relay" (the hand-written relay). The parent measures its
// CPU and RSS from /proc. It prints "ready [HTTP address]" once it
// processes messages and stops gracefully when stdin closes or on
// SIGINT/SIGTERM.
func childMain(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "agentgate-bench child: want gateway or relay")
		return 2
	}
	role := args[0]
	fs := flag.NewFlagSet("agentgate-bench child "+role, flag.ContinueOnError)
	var (
		url        = fs.String("nats-url", "", "NATS server to connect to")
		configDir  = fs.String("config", "examples", "configuration directory")
		workers    = fs.Int("workers", 0, "raw outputs processed at once")
		maxAge     = fs.Duration("max-age", 0, "gateway: MaxAge of the streams and the run-state bucket")
		cpuprofile = fs.String("cpuprofile", "", "write a CPU profile from ready to stop")
		runState   = fs.Bool("runstate", false, "relay: also record each run's state (the outcome) in a key-value bucket before publishing")
	)
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	// Both processes under test get the collector target `agentgate serve`
	// uses, so the comparison stays fair.
	gateway.SetGCPercent(gateway.DefaultGCPercent, false)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// The parent closes stdin to stop the child (or dies).
		_, _ = io.Copy(io.Discard, os.Stdin)
		stop()
	}()
	var err error
	switch role {
	case "gateway":
		err = childGateway(ctx, *url, *configDir, *workers, *maxAge, *cpuprofile)
	case "relay":
		err = childRelay(ctx, *url, *configDir, *workers, *runState, *cpuprofile)
	default:
		err = fmt.Errorf("unknown role %q", role)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentgate-bench child %s: %v\n", role, err)
		return 1
	}
	return 0
}

func childGateway(ctx context.Context, url, configDir string, workers int, maxAge time.Duration, cpuprofile string) error {
	sc := topology.StreamsConfig{MaxAge: maxAge}
	if maxAge > 0 && maxAge < 2*time.Minute {
		// The duplicate window may not exceed MaxAge.
		sc.Duplicates = maxAge
	}
	gctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	g, err := gateway.New(gctx, gateway.Config{
		ConfigDir: configDir, NATSURL: url, HTTPAddr: "127.0.0.1:0",
		Workers: workers, Streams: sc, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return err
	}
	var runErr error
	done := make(chan struct{})
	go func() { runErr = g.Run(gctx); close(done) }()
	if err := waitHealthy(ctx, "http://"+g.HTTPAddr()+"/healthz", done); err != nil {
		cancel()
		<-done
		return errors.Join(err, runErr)
	}
	if cpuprofile != "" {
		stopProfile, err := startProfile(cpuprofile)
		if err != nil {
			cancel()
			<-done
			return err
		}
		defer stopProfile()
	}
	fmt.Println("ready", g.HTTPAddr())
	select {
	case <-ctx.Done():
	case <-done:
		return fmt.Errorf("gateway stopped: %v", runErr)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(time.Minute):
		return errors.New("gateway did not stop within a minute")
	}
	return runErr
}

// Relay streams and consumer, created by the parent.
const (
	relayRawStream = "BENCH_RELAY_RAW"
	relayOutStream = "BENCH_RELAY_OUT"
	relayRawPrefix = "bench.relay.raw"
	relayOutPrefix = "bench.relay.out"
	relayConsumer  = "bench-relay"
	relayRunsKV    = "bench_relay_runs"
)

// relay is a minimal hand-written nats.go relay doing per message what the
// gateway does at its core, with the same validator and no Watermill: a
// UTF-8 check, the gateway's decode (json.Valid, then a Decoder with
// UseNumber that must meet EOF), a refusal check, validation with the
// blueprint's compiled schemas.Schema, then a synchronous JetStream publish
// of an outcome (the document, or the violations and the raw output) with a
// Nats-Msg-Id, and an ack. It does not extract JSON from prose, normalize,
// or keep run state, unless runs is set: then it first creates the run's
// entry (holding the outcome) in a key-value bucket configured like the
// gateway's, as contract section 6 asks of the gateway.
type relay struct {
	js      jetstream.JetStream
	schemas map[string]*schemas.Schema
	runs    jetstream.KeyValue
}

// relayRunState is the relay's run-state entry.
type relayRunState struct {
	RunID    string           `json:"run_id"`
	AgentID  string           `json:"agent_id"`
	Status   contract.Outcome `json:"status"`
	Attempts int              `json:"attempts"`
	Outcome  json.RawMessage  `json:"outcome"`
}

// relayOutcome is the relay's outcome document.
type relayOutcome struct {
	RunID      string               `json:"run_id"`
	AgentID    string               `json:"agent_id"`
	Attempt    int                  `json:"attempt"`
	Outcome    contract.Outcome     `json:"outcome"`
	ResultData any                  `json:"result_data,omitempty"`
	Refusal    string               `json:"refusal,omitempty"`
	Error      string               `json:"error,omitempty"`
	Violations []contract.Violation `json:"violations,omitempty"`
	RawOutput  string               `json:"raw_output,omitempty"`
	Timestamp  time.Time            `json:"timestamp"`
}

func childRelay(ctx context.Context, url, configDir string, workers int, runState bool, cpuprofile string) error {
	reg, err := schemas.Load(configDir)
	if err != nil {
		return err
	}
	r := &relay{schemas: map[string]*schemas.Schema{}}
	for _, bp := range reg.Blueprints() {
		if bp.OutputSchema != nil {
			r.schemas[bp.Name] = bp.OutputSchema
		}
	}
	nc, err := nats.Connect(url, nats.Name("agentgate-bench-relay"))
	if err != nil {
		return err
	}
	defer nc.Close()
	if r.js, err = jetstream.New(nc); err != nil {
		return err
	}
	if runState {
		if r.runs, err = r.js.KeyValue(ctx, relayRunsKV); err != nil {
			return err
		}
	}
	cons, err := r.js.Consumer(ctx, relayRawStream, relayConsumer)
	if err != nil {
		return err
	}
	// One pull subscription feeds a pool of workers, as many as the
	// gateway's.
	msgs := make(chan jetstream.Msg, workers)
	cc, err := cons.Consume(func(m jetstream.Msg) {
		select {
		case msgs <- m:
		case <-ctx.Done():
		}
	})
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case m := <-msgs:
					r.handle(m)
				}
			}
		})
	}
	if cpuprofile != "" {
		stopProfile, err := startProfile(cpuprofile)
		if err != nil {
			cc.Stop()
			return err
		}
		defer stopProfile()
	}
	fmt.Println("ready")
	<-ctx.Done()
	cc.Stop()
	wg.Wait()
	// Acks are fire-and-forget: flush them before closing.
	return nc.Flush()
}

func (r *relay) handle(m jetstream.Msg) {
	data := m.Data()
	out := relayOutcome{
		RunID:     m.Headers().Get(contract.HeaderRunID),
		AgentID:   strings.TrimPrefix(m.Subject(), relayRawPrefix+"."),
		Attempt:   1,
		Outcome:   contract.OutcomeValid,
		Timestamp: time.Now().UTC(),
	}
	schema, known := r.schemas[out.AgentID]
	switch {
	case !utf8.Valid(data):
		out.Outcome, out.Error = contract.OutcomeDLQ, string(contract.ErrInvalidEncoding)
	case !known:
		out.Outcome, out.Error = contract.OutcomeDLQ, string(contract.ErrUnknownAgent)
	default:
		doc, ok := decode(data)
		if !ok {
			out.Outcome, out.RawOutput = contract.OutcomeRetry, contract.TruncateRaw(data)
			out.Violations = []contract.Violation{{Path: "$", Keyword: contract.KeywordJSON, Message: "no JSON document"}}
			break
		}
		if obj, isObj := doc.(map[string]any); isObj && len(obj) == 1 {
			if text, isText := obj["refusal"].(string); isText {
				out.Outcome, out.Refusal = contract.OutcomeRefused, text
				break
			}
		}
		if v := schema.Validate(doc); len(v) > 0 {
			out.Outcome, out.Violations, out.RawOutput = contract.OutcomeRetry, v, contract.TruncateRaw(data)
		} else {
			out.ResultData = doc
		}
	}
	body, err := json.Marshal(out)
	if err != nil {
		_ = m.Term()
		return
	}
	msg := nats.NewMsg(relayOutPrefix + "." + string(out.Outcome) + "." + out.AgentID)
	msg.Data = body
	msg.Header.Set(contract.HeaderRunID, out.RunID)
	msg.Header.Set(contract.HeaderAgentID, out.AgentID)
	msg.Header.Set(contract.HeaderAttempt, "1")
	msg.Header.Set(contract.HeaderOutcome, string(out.Outcome))
	msg.Header.Set(contract.HeaderMsgID, contract.MsgID(out.RunID, 1, out.Outcome))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if r.runs != nil {
		st, err := json.Marshal(relayRunState{RunID: out.RunID, AgentID: out.AgentID, Status: out.Outcome, Attempts: 1, Outcome: body})
		if err != nil {
			_ = m.Term()
			return
		}
		// A redelivered output finds its entry made: it goes on to publish,
		// as the gateway republishes a recorded outcome.
		if _, err := r.runs.Create(ctx, out.RunID, st); err != nil && !errors.Is(err, jetstream.ErrKeyExists) {
			_ = m.NakWithDelay(time.Second)
			return
		}
	}
	if _, err := r.js.PublishMsg(ctx, msg); err != nil {
		_ = m.NakWithDelay(time.Second)
		return
	}
	_ = m.Ack()
}

// decode is the gateway's decode of a candidate document: json.Valid
// screens, then a Decoder with UseNumber decodes and must meet EOF.
func decode(b []byte) (any, bool) {
	b = bytes.TrimSpace(b)
	if !json.Valid(b) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, false
	}
	return doc, true
}
