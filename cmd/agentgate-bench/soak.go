package main

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/subjects"
	"github.com/agentgate/agentgate/topology"
)

// soakPoint is the gateway's state at one point of the soak.
type soakPoint struct {
	Label      string  `json:"label"`
	Outcomes   uint64  `json:"outcomes"`
	Seconds    float64 `json:"seconds"` // since the first publish
	RSSMB      float64 `json:"rss_mb"`  // VmRSS of the gateway process
	HeapMB     float64 `json:"heap_inuse_mb"`
	Goroutines int     `json:"goroutines"`
}

// soakReport is the soak's outcome.
type soakReport struct {
	N          int     `json:"n"`
	MaxAge     string  `json:"streams_max_age"`
	Window     int     `json:"window,omitempty"`
	PacedRate  float64 `json:"paced_rate,omitempty"`
	MsgsPerSec float64 `json:"msgs_per_sec"`
	Seconds    float64 `json:"seconds"`
	CPUPer1k   float64 `json:"cpu_seconds_per_1k"`
	Cores      float64 `json:"cores"`
	PeakRSSMB  float64 `json:"peak_rss_mb"`
	// Points: idle before the first publish, after every step of outcomes
	// (100,000 when N >= 200,000), at the last outcome, and idle 2 s later.
	Points []soakPoint `json:"points"`
	// RSSRatio is RSS at the last outcome over RSS after the first step;
	// GoroutineGrowth is goroutines at the last outcome minus after the
	// first step; IdleGoroutineGrowth compares the two idle points.
	RSSRatio            float64        `json:"rss_end_over_first_step"`
	GoroutineGrowth     int            `json:"goroutine_growth"`
	IdleGoroutineGrowth int            `json:"idle_goroutine_growth"`
	Outcomes            map[string]int `json:"outcomes"`
}

// streamOutcome names the outcome each outcome stream holds.
var streamOutcome = map[string]string{
	topology.StreamValid: "valid", topology.StreamRetry: "retry",
	topology.StreamRefused: "refused", topology.StreamDLQ: "dlq",
}

// soak runs agentgate alone on n outputs (the generated pool cycled with
// fresh run ids), with MaxAge on its streams and bucket so that the disk
// stays bounded. Publishing is windowed (at most window outputs without an
// outcome) or paced at rate. The outcome count comes from polling the
// outcome streams' last sequence numbers every 100 ms; RSS comes from
// /proc, goroutines and heap from the gateway's /metrics.
func (b *bench) soak(ctx context.Context, window int, maxAge time.Duration, rate float64, profile string) (*soakReport, error) {
	n := b.load.n
	rep := &soakReport{N: n, MaxAge: maxAge.String(), PacedRate: rate}
	if rate == 0 {
		rep.Window = window
	}
	b.resetGateway(ctx)
	defer b.resetGateway(context.WithoutCancel(ctx))
	ch, err := b.startGateway(ctx, maxAge, profile)
	if err != nil {
		return nil, err
	}
	defer stopChild(ch)

	var start time.Time
	point := func(label string, outcomes uint64) error {
		st := ch.stats()
		gm, err := readGoMetrics(ctx, ch.info)
		if err != nil {
			return err
		}
		p := soakPoint{Label: label, Outcomes: outcomes, RSSMB: float64(st.RSSKB) / 1024,
			HeapMB: float64(gm.HeapInuse) / (1 << 20), Goroutines: gm.Goroutines}
		if !start.IsZero() {
			p.Seconds = time.Since(start).Seconds()
		}
		rep.Points = append(rep.Points, p)
		progress("soak: %s: %d outcomes, RSS %.1f MB, heap %.1f MB, %d goroutines", label, outcomes, p.RSSMB, p.HeapMB, p.Goroutines)
		return nil
	}
	time.Sleep(time.Second) // let the gateway settle before the idle point
	if err := point("ready (idle)", 0); err != nil {
		return nil, err
	}
	before := ch.stats()
	start = time.Now()

	// The monitor polls the outcome count, takes a point at every step and
	// fails the soak when the count stalls for a minute.
	step := uint64(100_000)
	if n < 200_000 {
		step = uint64(max(n/10, 1))
	}
	var count atomic.Uint64
	mon := make(chan error, 1)
	mctx, stopMon := context.WithCancel(ctx)
	defer stopMon()
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		next, last, progressAt := step, uint64(0), time.Now()
		for {
			select {
			case <-mctx.Done():
				mon <- mctx.Err()
				return
			case <-tick.C:
			}
			c, err := stored(mctx, b.js, topology.OutcomeStreams...)
			if err != nil {
				mon <- err
				return
			}
			count.Store(c)
			if c != last {
				last, progressAt = c, time.Now()
			} else if time.Since(progressAt) > time.Minute {
				mon <- fmt.Errorf("soak stalled at %d of %d outcomes for a minute", c, n)
				return
			}
			if c >= uint64(n) {
				mon <- nil
				return
			}
			if c >= next {
				if err := point(fmt.Sprintf("after %dk", next/1000), c); err != nil {
					mon <- err
					return
				}
				for next <= c {
					next += step
				}
			}
		}
	}()

	p, err := newPublisher(b.nc, b.window)
	if err != nil {
		return nil, err
	}
	var gate func(context.Context, int) error
	if rate == 0 {
		gate = func(ctx context.Context, i int) error {
			for int64(i)-int64(count.Load()) >= int64(window) {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case err := <-mon:
					mon <- err // for the wait below
					if err == nil {
						err = fmt.Errorf("monitor ended at output %d", i)
					}
					return err
				case <-time.After(5 * time.Millisecond):
				}
			}
			return nil
		}
	}
	// The bound: -timeout, or as long as the soak takes at 100 msgs/s.
	pctx, cancel := context.WithTimeout(ctx, max(b.timeout, time.Duration(n/100)*time.Second))
	defer cancel()
	progress("soak: %d outputs to agentgate, streams MaxAge %s", n, maxAge)
	first, err := p.publishAll(pctx, b.load, publishOpts{subject: subjects.Raw, rate: rate, gate: gate})
	if err != nil {
		return nil, err
	}
	select {
	case err = <-mon:
	case <-pctx.Done():
		err = pctx.Err()
	}
	if err != nil {
		return nil, err
	}
	after := ch.stats()
	last, outcomes, err := lastStored(ctx, b.js)
	if err != nil {
		return nil, err
	}
	rep.Outcomes = outcomes
	if err := point("end", uint64(n)); err != nil {
		return nil, err
	}
	time.Sleep(2 * time.Second)
	if err := point("end (idle, +2 s)", uint64(n)); err != nil {
		return nil, err
	}

	el := last.Sub(first)
	rep.Seconds = el.Seconds()
	if el > 0 {
		rep.MsgsPerSec = float64(n) / el.Seconds()
	}
	cpu := after.CPU - before.CPU
	rep.CPUPer1k = per1k(cpu, n)
	if el > 0 {
		rep.Cores = cpu.Seconds() / el.Seconds()
	}
	rep.PeakRSSMB = float64(after.HWMKB) / 1024
	pts := rep.Points
	step1, end, idle0, idle1 := pts[min(1, len(pts)-1)], pts[len(pts)-2], pts[0], pts[len(pts)-1]
	if step1.RSSMB > 0 {
		rep.RSSRatio = end.RSSMB / step1.RSSMB
	}
	rep.GoroutineGrowth = end.Goroutines - step1.Goroutines
	rep.IdleGoroutineGrowth = idle1.Goroutines - idle0.Goroutines
	return rep, nil
}

// lastStored returns the time of the latest outcome stored and the count by
// outcome (from the last sequence numbers: messages may have expired).
func lastStored(ctx context.Context, js jetstream.JetStream) (time.Time, map[string]int, error) {
	var last time.Time
	outcomes := map[string]int{}
	for _, name := range topology.OutcomeStreams {
		s, err := js.Stream(ctx, name)
		if err != nil {
			return last, nil, err
		}
		seq := s.CachedInfo().State.LastSeq
		outcomes[streamOutcome[name]] = int(seq)
		if seq == 0 {
			continue
		}
		m, err := s.GetMsg(ctx, seq)
		if err != nil {
			return last, nil, fmt.Errorf("stream %s, last message: %w", name, err)
		}
		if m.Time.After(last) {
			last = m.Time
		}
	}
	return last, outcomes, nil
}

// soakVerdict is the soak's one-line summary.
func soakVerdict(s *soakReport) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "RSS at the end / after the first step: %.3f (target <= 1.10); ", s.RSSRatio)
	fmt.Fprintf(&sb, "goroutines after the first step -> end: %+d, idle before -> idle after: %+d (target: no growth)",
		s.GoroutineGrowth, s.IdleGoroutineGrowth)
	return sb.String()
}
