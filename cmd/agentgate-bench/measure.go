package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/contract"
)

// result is one row of the report.
type result struct {
	Name string `json:"name"`
	// PacedRate is the publisher's pace in msgs/s; 0 for as fast as the
	// async publish window allows.
	PacedRate  float64 `json:"paced_rate,omitempty"`
	MsgsPerSec float64 `json:"msgs_per_sec"`
	Seconds    float64 `json:"seconds"`
	P50Ms      float64 `json:"p50_ms,omitempty"`
	P99Ms      float64 `json:"p99_ms,omitempty"`
	MaxMs      float64 `json:"max_ms,omitempty"`
	// CPUPer1k is the CPU seconds per 1,000 messages of the process under
	// test (the gateway or relay child) over the phase; Cores is that CPU
	// over the phase's wall time.
	CPUPer1k float64 `json:"cpu_seconds_per_1k,omitempty"`
	Cores    float64 `json:"cores,omitempty"`
	// PeakRSSMB is the child's VmHWM (it is started fresh for the phase).
	PeakRSSMB float64 `json:"peak_rss_mb,omitempty"`
	// BenchCPUPer1k is the CPU seconds per 1,000 messages of the bench
	// process itself over the phase: the embedded NATS server, the load
	// generator and the outcome counter (the bus's share of the work).
	BenchCPUPer1k float64 `json:"bench_cpu_seconds_per_1k,omitempty"`
	// IOCallsPerMsg and BenchIOCallsPerMsg are the read and write system
	// calls per message of the process under test and of the bench
	// process.
	IOCallsPerMsg      float64 `json:"io_calls_per_msg,omitempty"`
	BenchIOCallsPerMsg float64 `json:"bench_io_calls_per_msg,omitempty"`
	// Goroutines of the gateway at the end of the phase (from its /metrics).
	Goroutines int `json:"goroutines,omitempty"`
	// Rounds is how many rounds the row is the median of.
	Rounds   int            `json:"rounds,omitempty"`
	Outcomes map[string]int `json:"outcomes,omitempty"`
}

// publisher publishes payloads with JetStream async publish, at most window
// unacknowledged at a time.
type publisher struct {
	js     jetstream.JetStream
	failed atomic.Int64
	first  atomic.Value // error
}

func newPublisher(nc *nats.Conn, window int) (*publisher, error) {
	p := &publisher{}
	js, err := jetstream.New(nc,
		jetstream.WithPublishAsyncMaxPending(window),
		jetstream.WithPublishAsyncErrHandler(func(_ jetstream.JetStream, _ *nats.Msg, err error) {
			p.failed.Add(1)
			p.first.CompareAndSwap(nil, err)
		}))
	if err != nil {
		return nil, err
	}
	p.js = js
	return p, nil
}

// publishOpts shape a publishing run.
type publishOpts struct {
	// subject is where an agent's raw outputs go.
	subject func(agent string) string
	// stamp, if set, records when output i was handed to the client.
	stamp func(i int, t time.Time)
	// rate paces the publishes at so many msgs/s (0: no pacing).
	rate float64
	// gate, if set, is called before output i and may block (windowing).
	gate func(ctx context.Context, i int) error
}

// publishAll publishes outputs 0..l.n-1, each with its Run-Id and a
// Nats-Msg-Id, and waits until JetStream acknowledged them all. It returns
// the time of the first publish.
func (p *publisher) publishAll(ctx context.Context, l *load, o publishOpts) (time.Time, error) {
	start := time.Now()
	for i := range l.n {
		if o.gate != nil {
			if err := o.gate(ctx, i); err != nil {
				return start, err
			}
		}
		if o.rate > 0 {
			due := start.Add(time.Duration(float64(i) * float64(time.Second) / o.rate))
			if d := time.Until(due); d > 0 {
				time.Sleep(d)
			}
		}
		pl := l.at(i)
		subject, id := o.subject(pl.agent), runID(i)
		m := nats.NewMsg(subject)
		m.Data = pl.data
		m.Header.Set(contract.HeaderRunID, id)
		m.Header.Set(contract.HeaderMsgID, subject+"/"+id)
		for {
			if o.stamp != nil {
				o.stamp(i, time.Now())
			}
			_, err := p.js.PublishMsgAsync(m)
			if err == nil {
				break
			}
			if !errors.Is(err, jetstream.ErrTooManyStalledMsgs) {
				return start, fmt.Errorf("publishing %s: %w", id, err)
			}
			if ctx.Err() != nil {
				return start, ctx.Err()
			}
		}
		if i%1024 == 0 && ctx.Err() != nil {
			return start, ctx.Err()
		}
	}
	select {
	case <-p.js.PublishAsyncComplete():
	case <-ctx.Done():
		return start, fmt.Errorf("waiting for publish acks: %w", ctx.Err())
	}
	if n := p.failed.Load(); n > 0 {
		return start, fmt.Errorf("%d publishes failed, first: %v", n, p.first.Load())
	}
	return start, nil
}

// stored is how many messages the streams have stored since they were
// created (their last sequence numbers: messages that expired count too).
func stored(ctx context.Context, js jetstream.JetStream, streams ...string) (uint64, error) {
	var total uint64
	for _, name := range streams {
		s, err := js.Stream(ctx, name) // fetches the stream info
		if err != nil {
			return 0, fmt.Errorf("stream %s: %w", name, err)
		}
		total += s.CachedInfo().State.LastSeq
	}
	return total, nil
}

// waitCount polls the streams until they have stored at least n messages.
func waitCount(ctx context.Context, js jetstream.JetStream, n uint64, streams ...string) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		total, err := stored(ctx, js, streams...)
		if err != nil {
			return err
		}
		if total >= n {
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return fmt.Errorf("%d of %d outcomes after waiting: %w", total, n, ctx.Err())
		}
	}
}

// collected is what reading the outcome streams back gives.
type collected struct {
	last      time.Time       // latest stored timestamp
	latencies []time.Duration // outcome stored - raw output handed to the client
	outcomes  map[string]int  // by Outcome header
	samples   []sample        // one per outcome matched to its raw output
}

// sample is one outcome matched to its raw output, for -latency-csv.
type sample struct {
	index   int           // the raw output's position in the load
	sent    time.Duration // when it was handed to the client, after the first
	latency time.Duration
	outcome string
}

// collect reads every message of the streams with an ordered consumer and
// matches each outcome to its raw output by Run-Id.
func collect(ctx context.Context, js jetstream.JetStream, sent []time.Time, streams ...string) (collected, error) {
	c := collected{outcomes: map[string]int{}}
	for _, name := range streams {
		s, err := js.Stream(ctx, name)
		if err != nil {
			return c, err
		}
		want := s.CachedInfo().State.Msgs
		if want == 0 {
			continue
		}
		cons, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
		if err != nil {
			return c, err
		}
		for got := uint64(0); got < want; {
			batch, err := cons.Fetch(1000, jetstream.FetchMaxWait(2*time.Second))
			if err != nil {
				return c, err
			}
			n := 0
			for m := range batch.Messages() {
				n++
				md, err := m.Metadata()
				if err != nil {
					return c, err
				}
				if md.Timestamp.After(c.last) {
					c.last = md.Timestamp
				}
				c.outcomes[m.Headers().Get(contract.HeaderOutcome)]++
				if i, ok := runIndex(m.Headers().Get(contract.HeaderRunID)); ok && i < len(sent) {
					lat := md.Timestamp.Sub(sent[i])
					c.latencies = append(c.latencies, lat)
					c.samples = append(c.samples, sample{i, sent[i].Sub(sent[0]), lat, m.Headers().Get(contract.HeaderOutcome)})
				}
			}
			if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) {
				return c, err
			}
			if n == 0 && ctx.Err() != nil {
				return c, ctx.Err()
			}
			got += uint64(n)
		}
	}
	return c, nil
}

func runIndex(id string) (int, bool) {
	s, ok := strings.CutPrefix(id, "bench-")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(s)
	return i, err == nil && i >= 0
}

// percentiles returns p50, p99 and max of ds (sorted in place), in ms.
func percentiles(ds []time.Duration) (p50, p99, mx float64) {
	if len(ds) == 0 {
		return 0, 0, 0
	}
	slices.Sort(ds)
	pct := func(p float64) float64 { return millis(ds[min(len(ds)-1, int(p*float64(len(ds))))]) }
	return pct(0.50), pct(0.99), millis(ds[len(ds)-1])
}

// endToEnd turns a first publish time and the collected outcomes into a
// row: throughput over first publish to last outcome stored, and latency
// percentiles.
func endToEnd(name string, n int, start time.Time, c collected) result {
	el := c.last.Sub(start)
	r := result{Name: name, Seconds: el.Seconds(), Outcomes: c.outcomes}
	if el > 0 {
		r.MsgsPerSec = float64(n) / el.Seconds()
	}
	r.P50Ms, r.P99Ms, r.MaxMs = percentiles(c.latencies)
	return r
}

// per1k is d in seconds per 1,000 of n messages.
func per1k(d time.Duration, n int) float64 {
	if n == 0 {
		return 0
	}
	return d.Seconds() * 1000 / float64(n)
}

// writeSamples writes one CSV line per outcome (sorted by the raw output's
// position): when the raw output was sent (ms after the first), its
// latency (ms) and the outcome. It shows whether a p99 comes from stalls
// (slow outcomes bunched in time) or from a spread tail.
func writeSamples(path string, ss []sample) error {
	slices.SortFunc(ss, func(a, b sample) int { return a.index - b.index })
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "index,sent_ms,latency_ms,outcome")
	for _, s := range ss {
		fmt.Fprintf(w, "%d,%.3f,%.3f,%s\n", s.index, millis(s.sent), millis(s.latency), s.outcome)
	}
	return errors.Join(w.Flush(), f.Close())
}

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
