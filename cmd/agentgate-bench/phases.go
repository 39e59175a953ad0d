package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/subjects"
	"github.com/agentgate/agentgate/topology"
)

const (
	scratchStream = "BENCH_SCRATCH"
	scratchPrefix = "bench.scratch"
	maxAckPending = 256 // the gateway's default, used by the relay and the baseline too
)

// bench holds what every phase shares.
type bench struct {
	url       string
	nc        *nats.Conn
	js        jetstream.JetStream
	load      *load
	configDir string
	workers   int
	window    int
	timeout   time.Duration // bound on each phase
	// busProfile, when set, is the prefix of CPU profiles of this process
	// taken during unpaced phases (compare sets it for the first round).
	busProfile string
	// latencyCSV, when set, is the prefix of per-outcome latency files
	// (writeSamples), one per measured phase: <prefix>.<k>-<phase>.csv.
	latencyCSV string
	measured   int // phases measured so far, numbering those files
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
	if err := b.stream(ctx, scratchStream, scratchPrefix+".>"); err != nil {
		return pub, con, err
	}
	defer func() { _ = b.js.DeleteStream(context.WithoutCancel(ctx), scratchStream) }()

	p, err := newPublisher(b.nc, b.window)
	if err != nil {
		return pub, con, err
	}
	pctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	n := b.load.n
	self0 := selfCPU()
	start, err := p.publishAll(pctx, b.load, publishOpts{subject: func(a string) string { return scratchPrefix + "." + a }})
	if err != nil {
		return pub, con, err
	}
	pub = rateRow("jetstream publish", n, time.Since(start))
	pub.BenchCPUPer1k = per1k(selfCPU()-self0, n)

	cons, err := b.js.CreateOrUpdateConsumer(ctx, scratchStream, jetstream.ConsumerConfig{
		Durable: "bench-consume", AckPolicy: jetstream.AckExplicitPolicy, MaxAckPending: maxAckPending,
	})
	if err != nil {
		return pub, con, err
	}
	done := make(chan struct{})
	var count atomic.Int64
	self0, start = selfCPU(), time.Now()
	cc, err := cons.Consume(func(m jetstream.Msg) {
		_ = m.Ack()
		if count.Add(1) == int64(n) {
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
	con = rateRow("jetstream consume", n, time.Since(start))
	con.BenchCPUPer1k = per1k(selfCPU()-self0, n)
	return pub, con, nil
}

func rateRow(name string, n int, d time.Duration) result {
	return result{Name: name, MsgsPerSec: float64(n) / d.Seconds(), Seconds: d.Seconds()}
}

// runRelay measures the relay (see relay), run as a child process on its
// own streams and durable consumer while the payloads are published.
func (b *bench) runRelay(ctx context.Context, name string, rate float64, runState bool, profile string) (result, error) {
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
		_ = b.js.DeleteKeyValue(context.WithoutCancel(ctx), relayRunsKV)
	}()
	if runState {
		kvc := topology.RunsBucketConfig(topology.StreamsConfig{})
		kvc.Bucket = relayRunsKV
		if _, err := b.js.CreateKeyValue(ctx, kvc); err != nil {
			return result{}, err
		}
	}
	if _, err := b.js.CreateOrUpdateConsumer(ctx, relayRawStream, jetstream.ConsumerConfig{
		Durable: relayConsumer, AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: 30 * time.Second, MaxAckPending: maxAckPending,
	}); err != nil {
		return result{}, err
	}
	args := []string{"-nats-url", b.url, "-config", b.configDir, "-workers", strconv.Itoa(b.workers)}
	if runState {
		args = append(args, "-runstate")
	}
	if profile != "" {
		args = append(args, "-cpuprofile", profile)
	}
	ch, err := startChild(ctx, "relay", args...)
	if err != nil {
		return result{}, err
	}
	defer stopChild(ch)
	return b.measure(ctx, name, ch, "", func(a string) string { return relayRawPrefix + "." + a }, rate, relayOutStream)
}

// runGateway measures agentgate: a child process running gateway.New + Run
// against the bench's server, on fresh streams, fed the payloads on
// agent.output.raw.<agent>.
func (b *bench) runGateway(ctx context.Context, name string, rate float64, profile string) (result, error) {
	b.resetGateway(ctx)
	defer b.resetGateway(context.WithoutCancel(ctx))
	ch, err := b.startGateway(ctx, 0, profile)
	if err != nil {
		return result{}, err
	}
	defer stopChild(ch)
	return b.measure(ctx, name, ch, ch.info, subjects.Raw, rate, topology.OutcomeStreams...)
}

func (b *bench) startGateway(ctx context.Context, maxAge time.Duration, profile string) (*child, error) {
	args := []string{"-nats-url", b.url, "-config", b.configDir, "-workers", strconv.Itoa(b.workers)}
	if maxAge > 0 {
		args = append(args, "-max-age", maxAge.String())
	}
	if profile != "" {
		args = append(args, "-cpuprofile", profile)
	}
	return startChild(ctx, "gateway", args...)
}

// resetGateway deletes the gateway's streams (with its durable consumer)
// and run-state bucket, so that each measurement starts empty and leaves
// no files behind.
func (b *bench) resetGateway(ctx context.Context) {
	for _, sc := range topology.Streams(topology.StreamsConfig{}) {
		_ = b.js.DeleteStream(ctx, sc.Name)
	}
	_ = b.js.DeleteKeyValue(ctx, topology.RunsBucket)
}

func stopChild(ch *child) {
	if err := ch.stop(); err != nil {
		fmt.Fprintln(os.Stderr, "agentgate-bench: warning:", err)
	}
}

// measure publishes every payload (paced at rate msgs/s, or as fast as the
// async window allows when rate is 0) while the child processes them, waits
// (at most b.timeout) until the outcome streams hold one outcome per
// payload, and reads them back for the last stored time and latencies. The
// child's CPU is read before the first publish and once the last outcome
// is stored.
func (b *bench) measure(ctx context.Context, name string, ch *child, httpAddr string, subject func(string) string, rate float64, outStreams ...string) (result, error) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	p, err := newPublisher(b.nc, b.window)
	if err != nil {
		return result{}, err
	}
	stopProfile := func() {}
	if b.busProfile != "" && rate == 0 {
		// <prefix>.relay, <prefix>.relay-run-state, <prefix>.agentgate
		if stopProfile, err = startProfile(b.busProfile + "." + strings.Join(strings.Fields(strings.ReplaceAll(name, "+", "")), "-")); err != nil {
			return result{}, err
		}
	}
	defer func() { stopProfile() }()
	n := b.load.n
	sent := make([]time.Time, n)
	before, self0 := ch.stats(), selfCPU()
	selfIO0, _ := readIOCalls("self")
	start, err := p.publishAll(ctx, b.load, publishOpts{
		subject: subject, rate: rate,
		stamp: func(i int, t time.Time) { sent[i] = t },
	})
	if err != nil {
		return result{}, err
	}
	if err := waitCount(ctx, b.js, uint64(n), outStreams...); err != nil {
		return result{}, err
	}
	stopProfile() // the phase, not the reading back of outcomes
	stopProfile = func() {}
	after, self1 := ch.stats(), selfCPU()
	selfIO1, _ := readIOCalls("self")
	var gm goMetrics
	if httpAddr != "" {
		if gm, err = readGoMetrics(ctx, httpAddr); err != nil {
			fmt.Fprintln(os.Stderr, "agentgate-bench: warning: reading /metrics:", err)
		}
	}
	c, err := collect(ctx, b.js, sent, outStreams...)
	if err != nil {
		return result{}, fmt.Errorf("reading outcomes: %w", err)
	}
	r := endToEnd(name, n, start, c)
	b.measured++
	if b.latencyCSV != "" {
		path := fmt.Sprintf("%s.%d-%s.csv", b.latencyCSV, b.measured, slug(name))
		if err := writeSamples(path, c.samples); err != nil {
			fmt.Fprintln(os.Stderr, "agentgate-bench: warning: writing latencies:", err)
		}
	}
	r.PacedRate = rate
	cpu := after.CPU - before.CPU
	r.CPUPer1k = per1k(cpu, n)
	if r.Seconds > 0 {
		r.Cores = cpu.Seconds() / r.Seconds
	}
	r.PeakRSSMB = float64(after.HWMKB) / 1024
	r.BenchCPUPer1k = per1k(self1-self0, n)
	r.IOCallsPerMsg = float64(after.IOCalls-before.IOCalls) / float64(n)
	r.BenchIOCallsPerMsg = float64(selfIO1-selfIO0) / float64(n)
	r.Goroutines = gm.Goroutines
	return r, nil
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

// startProfile starts a CPU profile of this process into path.
func startProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// slug is name in lower case with every run of other characters than
// letters and digits as one '-': "relay + run state @ 2900/s" gives
// "relay-run-state-2900-s".
func slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}
