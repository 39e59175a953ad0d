package main

import (
	"context"
	"errors"
	"fmt"
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
	Name       string         `json:"name"`
	MsgsPerSec float64        `json:"msgs_per_sec"`
	Seconds    float64        `json:"seconds"`
	P50Ms      float64        `json:"p50_ms,omitempty"`
	P99Ms      float64        `json:"p99_ms,omitempty"`
	Outcomes   map[string]int `json:"outcomes,omitempty"`
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

// publishAll publishes every payload to subject(agent) with its Run-Id and a
// Nats-Msg-Id, records when each was handed to the client in sent (indexed
// like ps) and waits until JetStream acknowledged them all. It returns the
// time of the first publish.
func (p *publisher) publishAll(ctx context.Context, subject string, ps []payload, sent []time.Time) (time.Time, error) {
	start := time.Now()
	for i, pl := range ps {
		m := nats.NewMsg(subject)
		m.Data = pl.data
		m.Header.Set(contract.HeaderRunID, pl.runID)
		m.Header.Set(contract.HeaderMsgID, subject+"/"+pl.runID)
		for {
			if sent != nil {
				sent[i] = time.Now()
			}
			_, err := p.js.PublishMsgAsync(m)
			if err == nil {
				break
			}
			if !errors.Is(err, jetstream.ErrTooManyStalledMsgs) {
				return start, fmt.Errorf("publishing %s: %w", pl.runID, err)
			}
			if ctx.Err() != nil {
				return start, ctx.Err()
			}
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

// waitCount polls the streams until they hold at least n messages in all.
func waitCount(ctx context.Context, js jetstream.JetStream, n uint64, streams ...string) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var total uint64
	for {
		total = 0
		for _, name := range streams {
			s, err := js.Stream(ctx, name)
			if err != nil {
				return fmt.Errorf("stream %s: %w", name, err)
			}
			info, err := s.Info(ctx)
			if err != nil {
				return fmt.Errorf("stream %s: %w", name, err)
			}
			total += info.State.Msgs
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
		info, err := s.Info(ctx)
		if err != nil {
			return c, err
		}
		want := info.State.Msgs
		if want == 0 {
			continue
		}
		cons, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
		if err != nil {
			return c, err
		}
		for got := uint64(0); got < want; {
			batch, err := cons.Fetch(500, jetstream.FetchMaxWait(2*time.Second))
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
					c.latencies = append(c.latencies, md.Timestamp.Sub(sent[i]))
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

func runIndex(runID string) (int, bool) {
	s, ok := strings.CutPrefix(runID, "bench-")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(s)
	return i, err == nil && i >= 0
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
	if len(c.latencies) > 0 {
		slices.Sort(c.latencies)
		pct := func(p float64) float64 {
			i := min(len(c.latencies)-1, int(p*float64(len(c.latencies))))
			return float64(c.latencies[i].Microseconds()) / 1000
		}
		r.P50Ms, r.P99Ms = pct(0.50), pct(0.99)
	}
	return r
}
