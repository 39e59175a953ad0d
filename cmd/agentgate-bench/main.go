// Command agentgate-bench measures agentgate against the bus it runs on and
// against a minimal hand-written relay, in one run (issue 6).
//
// It starts an embedded NATS server with JetStream (files in a temporary
// directory removed at exit) in its own process and measures, on one load
// of N raw outputs:
//
//   - jetstream publish / consume: async publish of the payloads into a
//     scratch stream, then a durable pull consumer that acks them: the
//     ceiling;
//   - relay: a hand-written nats.go relay (no Watermill) with the same
//     decode, the same validator (each blueprint's compiled schemas.Schema)
//     and a JetStream publish of an outcome, with a worker pool as large as
//     the gateway's;
//   - agentgate: gateway.New + Run (what `agentgate serve --nats-url` runs);
//   - agentgate and the relay with run state, both paced at half
//     agentgate's peak rate, for their p99 latencies side by side.
//
// The relay and the gateway each run as a child process (this binary
// started as "agentgate-bench child relay|gateway"), fresh for each phase,
// so that their CPU time and peak RSS (from /proc) are theirs alone; the
// server, the load generator and the outcome counter stay in the bench
// process, whose CPU is reported separately.
//
// The load: half pr-reviewer, half tripwire-candidates outputs (the bundled
// examples), 1 to 4 KB; in every 40, per agent, 14 valid, 2 drifted (fenced
// in prose, with aliases), 2 invalid (retry requests), 1 refusal and 1 not
// valid UTF-8 (an invalid_encoding dead letter), deterministic for -seed.
//
// Throughput is N over the time from the first publish to the last outcome
// stored in JetStream; latency is each outcome's stored time minus the
// moment its raw output was handed to the client.
//
// -soak N runs agentgate alone on N outputs with MaxAge on its streams,
// and reports the gateway's RSS and goroutines after the first 100,000
// outcomes and at the end.
//
// Usage:
//
//	go run ./cmd/agentgate-bench [-n 20000] [-json] [-rate R] [-half=false] [-soak N]
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/embedded"
	"github.com/agentgate/agentgate/router"
	"github.com/agentgate/agentgate/schemas"
)

// report is everything the bench prints.
type report struct {
	N          int      `json:"n"`
	Seed       uint64   `json:"seed"`
	Agents     []string `json:"agents"`
	Workers    int      `json:"workers"`
	GOMAXPROCS int      `json:"gomaxprocs"`
	NumCPU     int      `json:"num_cpu"`
	// LoadAverage is the 1-minute load average before the run: other work
	// on the box skews every figure.
	LoadAverage float64  `json:"load_average_1m"`
	Payloads    mixStats `json:"payloads"`
	Results     []result `json:"results,omitempty"`
	// RatioRunState is the median over the rounds of agentgate's
	// throughput over that of the relay writing each run's state, the
	// least a conforming gateway does, in the same round (both unpaced):
	// the target. RoundRatiosRunState are the rounds' own.
	RatioRunState       float64   `json:"agentgate_relay_runstate_ratio,omitempty"`
	RoundRatiosRunState []float64 `json:"round_runstate_ratios,omitempty"`
	// Ratio and RoundRatios are the same against the bare relay, which
	// keeps no run state (a reference).
	Ratio       float64   `json:"agentgate_relay_ratio,omitempty"`
	RoundRatios []float64 `json:"round_ratios,omitempty"`
	// HalfP99s are agentgate's p99 latencies in the rounds at half its
	// peak, HalfRunStateP99s the relay's with run state paced at the same
	// rate in the same rounds, and HalfP99Ratios their quotients; the
	// rows are the rounds of median p99, P99Ratio the median quotient.
	HalfP99s         []float64   `json:"half_p99s_ms,omitempty"`
	HalfRunStateP99s []float64   `json:"half_runstate_p99s_ms,omitempty"`
	HalfP99Ratios    []float64   `json:"half_p99_ratios,omitempty"`
	P99Ratio         float64     `json:"half_p99_ratio,omitempty"`
	Soak             *soakReport `json:"soak,omitempty"`
}

// options are the command line's.
type options struct {
	n          int
	configDir  string
	seed       uint64
	window     int
	timeout    time.Duration
	workers    int
	rate       float64
	half       bool
	soak       int
	soakWindow int
	soakMaxAge time.Duration
	cpuprofile string
	busProfile string
	latencyCSV string
	rounds     int
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		os.Exit(childMain(os.Args[2:]))
	}
	var o options
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.IntVar(&o.n, "n", 20000, "raw outputs per measurement")
	flag.StringVar(&o.configDir, "config", "examples", "configuration directory (schemas/ and agents/) with the pr-reviewer and tripwire-candidates blueprints")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the payload generator")
	flag.IntVar(&o.window, "window", 256, "most async publishes awaiting their ack")
	flag.DurationVar(&o.timeout, "timeout", 5*time.Minute, "bound on each phase")
	flag.IntVar(&o.workers, "workers", 0, "worker pool of the relay and gateway.Config.Workers (0: the gateway's default, router.DefaultWorkers)")
	flag.Float64Var(&o.rate, "rate", 0, "pace the relay and agentgate publishers at this many msgs/s (0: as fast as the window allows)")
	flag.BoolVar(&o.half, "half", true, "rerun agentgate paced at half its measured peak and report its latency (ignored with -rate)")
	flag.IntVar(&o.soak, "soak", 0, "instead of the comparison, soak agentgate alone with this many outputs (e.g. 1000000)")
	flag.IntVar(&o.soakWindow, "soak-window", 4096, "soak: most outputs published without an outcome yet (unless -rate)")
	flag.DurationVar(&o.soakMaxAge, "soak-max-age", 2*time.Minute, "soak: MaxAge of the gateway's streams and run-state bucket, to bound the disk")
	flag.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the gateway process (first round, or the soak) to this file, and of the relay process to <file>.relay")
	flag.IntVar(&o.rounds, "rounds", 3, "rounds of relay, relay + run state and agentgate; each row is the median round")
	flag.StringVar(&o.busProfile, "bus-cpuprofile", "", "write CPU profiles of the bench process (embedded NATS server, load generator) during the first round's unpaced phases to <file>.relay, <file>.relay-run-state and <file>.agentgate")
	flag.StringVar(&o.latencyCSV, "latency-csv", "", "write every measured phase's outcomes (sent time, latency, outcome) to <prefix>.<k>-<phase>.csv")
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), `agentgate-bench: measure agentgate against the bare bus and a minimal relay.

Starts an embedded NATS server with JetStream in a temporary directory and, in
one run, measures JetStream async publish and durable consume of the payloads
(the ceiling), a hand-written nats.go relay (decode + validate + publish + ack,
same validator, same worker count) and agentgate itself (gateway.New + Run),
each in a child process of its own, then agentgate and the relay with run
state paced at half agentgate's peak.
Prints msgs/s, latency p50/p99/max, CPU seconds per 1,000 messages, peak RSS
and the agentgate/relay ratio. -soak N instead runs agentgate alone on N
outputs and checks that its RSS and goroutine count stay flat.

Usage: go run ./cmd/agentgate-bench [flags]   (or: make bench)

Flags:
`)
		flag.PrintDefaults()
	}
	flag.Parse()
	if o.n < 1 || o.rounds < 1 || o.window < 1 || o.timeout <= 0 || o.workers < 0 || o.rate < 0 || o.soak < 0 || o.soakWindow < 1 || o.soakMaxAge < 0 {
		fmt.Fprintln(os.Stderr, "agentgate-bench: -n, -rounds, -window, -timeout and -soak-window must be positive; -workers, -rate, -soak and -soak-max-age not negative")
		os.Exit(2)
	}
	if o.workers == 0 {
		o.workers = router.DefaultWorkers()
	}
	if o.cpuprofile != "" {
		// The child writes it, maybe from another working directory.
		o.cpuprofile, _ = filepath.Abs(o.cpuprofile)
	}
	if o.busProfile != "" && o.soak > 0 {
		fmt.Fprintln(os.Stderr, "agentgate-bench: -bus-cpuprofile does not apply to -soak")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "agentgate-bench:", err)
		stop()
		os.Exit(1)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
		return
	}
	printTable(os.Stdout, rep)
}

// run starts the server and runs every phase in order, cleaning up
// whatever happens.
func run(ctx context.Context, o options) (*report, error) {
	reg, err := schemas.Load(o.configDir)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", o.configDir, err)
	}
	for _, a := range agents {
		if bp, ok := reg.Blueprint(a); !ok || bp.OutputSchema == nil {
			return nil, fmt.Errorf("no blueprint %q with an output schema in %s", a, o.configDir)
		}
	}
	load1 := loadAverage()
	if load1 >= 0.5 {
		progress("warning: the 1-minute load average is %.2f: other work on this box skews the figures", load1)
	}
	n := o.n
	if o.soak > 0 {
		n = o.soak
	}
	l, mix := generate(n, o.seed)
	rep := &report{N: n, Seed: o.seed, Agents: agents, Workers: o.workers,
		GOMAXPROCS: runtime.GOMAXPROCS(0), NumCPU: runtime.NumCPU(), LoadAverage: load1, Payloads: mix}

	dir, err := os.MkdirTemp("", "agentgate-bench-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	srv, err := embedded.Start(embedded.Config{Listen: "127.0.0.1:0", StoreDir: dir})
	if err != nil {
		return nil, err
	}
	defer func() { srv.Shutdown(); srv.WaitForShutdown() }()

	nc, err := nats.Connect(srv.ClientURL(), nats.Name("agentgate-bench"))
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	b := &bench{url: srv.ClientURL(), nc: nc, js: js, load: l, configDir: o.configDir,
		workers: o.workers, window: o.window, timeout: o.timeout, busProfile: o.busProfile, latencyCSV: o.latencyCSV}

	if o.soak > 0 {
		rep.Soak, err = b.soak(ctx, o.soakWindow, o.soakMaxAge, o.rate, o.cpuprofile)
		if err != nil {
			return nil, fmt.Errorf("soak: %w", err)
		}
		return rep, nil
	}

	progress("jetstream baseline, %d messages", n)
	pub, con, err := b.baseline(ctx)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	rep.Results = append(rep.Results, pub, con)
	ag, err := b.compare(ctx, o, rep)
	if err != nil {
		return nil, err
	}
	if o.rate == 0 && o.half && ag.MsgsPerSec > 0 {
		// agentgate and the relay with run state, paced at the same rate
		// side by side in each round (the order alternating): the tail is
		// compared to the least a conforming gateway does at that rate.
		half := ag.MsgsPerSec / 2
		var gws, relays []result
		for round := range o.rounds {
			progress("round %d/%d: agentgate and the relay with run state paced at %.0f msgs/s (half agentgate's peak)", round+1, o.rounds, half)
			var gw, rel result
			var err error
			run := []func() error{
				func() error { gw, err = b.runGateway(ctx, "agentgate half", half, ""); return err },
				func() error { rel, err = b.runRelay(ctx, "relay + run state half", half, true, ""); return err },
			}
			if round%2 == 1 {
				run[0], run[1] = run[1], run[0]
			}
			for _, f := range run {
				if err := f(); err != nil {
					return nil, fmt.Errorf("paced at half agentgate's peak: %w", err)
				}
			}
			gws, relays = append(gws, gw), append(relays, rel)
			rep.HalfP99s = append(rep.HalfP99s, gw.P99Ms)
			rep.HalfRunStateP99s = append(rep.HalfRunStateP99s, rel.P99Ms)
			if rel.P99Ms > 0 {
				rep.HalfP99Ratios = append(rep.HalfP99Ratios, gw.P99Ms/rel.P99Ms)
			}
		}
		rep.P99Ratio = median(rep.HalfP99Ratios)
		// The rows of median p99: the tail is what moves from run to run.
		rep.Results = append(rep.Results, medianBy(relays, func(r result) float64 { return r.P99Ms }),
			medianBy(gws, func(r result) float64 { return r.P99Ms }))
	}
	return rep, nil
}

// compare measures the relay, the relay with run state and agentgate, in
// o.rounds rounds (the order rotating from round to round), and adds to
// rep each one's median round (by throughput) and the median of the
// rounds' ratios: on a shared box the speed of the machine drifts within
// seconds, and a ratio of two phases run side by side is steadier than any
// one rate. It returns agentgate's median row.
func (b *bench) compare(ctx context.Context, o options, rep *report) (result, error) {
	type phase struct {
		name string
		run  func(profile string) (result, error)
	}
	phases := []phase{
		{"relay", func(p string) (result, error) { return b.runRelay(ctx, "relay", o.rate, false, p) }},
		{"relay + run state", func(string) (result, error) { return b.runRelay(ctx, "relay + run state", o.rate, true, "") }},
		{"agentgate", func(p string) (result, error) { return b.runGateway(ctx, "agentgate", o.rate, p) }},
	}
	byName := map[string][]result{}
	busProfile := b.busProfile
	defer func() { b.busProfile = busProfile }()
	for round := range o.rounds {
		for i := range phases {
			ph := phases[(round+i)%len(phases)]
			progress("round %d/%d: %s, %d workers", round+1, o.rounds, ph.name, o.workers)
			profile := ""
			if round == 0 && o.cpuprofile != "" {
				profile = o.cpuprofile
				if ph.name == "relay" {
					profile += ".relay"
				}
			}
			r, err := ph.run(profile)
			if err != nil {
				return result{}, fmt.Errorf("%s: %w", ph.name, err)
			}
			byName[ph.name] = append(byName[ph.name], r)
		}
		b.busProfile = "" // profiles are of the first round
		if rel, runs, ag := byName["relay"][round], byName["relay + run state"][round], byName["agentgate"][round]; o.rate == 0 && rel.MsgsPerSec > 0 && runs.MsgsPerSec > 0 {
			rep.RoundRatios = append(rep.RoundRatios, ag.MsgsPerSec/rel.MsgsPerSec)
			rep.RoundRatiosRunState = append(rep.RoundRatiosRunState, ag.MsgsPerSec/runs.MsgsPerSec)
		}
	}
	var ag result
	for _, ph := range phases {
		m := medianBy(byName[ph.name], func(r result) float64 { return r.MsgsPerSec })
		rep.Results = append(rep.Results, m)
		if ph.name == "agentgate" {
			ag = m
		}
	}
	if o.rate == 0 {
		rep.Ratio, rep.RatioRunState = median(rep.RoundRatios), median(rep.RoundRatiosRunState)
	}
	return ag, nil
}

// medianBy is the result of median key (the lower middle one of an even
// count), with the rounds counted in.
func medianBy(rs []result, key func(result) float64) result {
	sorted := slices.Clone(rs)
	slices.SortFunc(sorted, func(a, b result) int { return cmp.Compare(key(a), key(b)) })
	m := sorted[(len(sorted)-1)/2]
	m.Rounds = len(rs)
	return m
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "agentgate-bench: "+format+"...\n", args...)
}

// printTable writes the human-readable report.
func printTable(w io.Writer, rep *report) {
	var mix, byAgent []string
	for _, k := range kindNames {
		mix = append(mix, fmt.Sprintf("%s %d", k, rep.Payloads.Count[k]))
	}
	for _, a := range rep.Agents {
		byAgent = append(byAgent, fmt.Sprintf("%s %d", a, rep.Payloads.ByAgent[a]))
	}
	fmt.Fprintf(w, "%d outputs (%s), %d to %d bytes (avg %d): %s\n", rep.N, strings.Join(byAgent, ", "),
		rep.Payloads.MinBytes, rep.Payloads.MaxBytes, rep.Payloads.AvgBytes, strings.Join(mix, ", "))
	fmt.Fprintf(w, "GOMAXPROCS %d, %d CPUs, load average %.2f before the run; relay and agentgate: %d workers each, each in a child process; NATS in the bench process\n\n",
		rep.GOMAXPROCS, rep.NumCPU, rep.LoadAverage, rep.Workers)
	if rep.Soak != nil {
		printSoak(w, rep.Soak)
		return
	}
	fmt.Fprintf(w, "%-28s %8s %7s %7s %7s %7s %8s %5s %8s %8s %6s %6s\n",
		"", "msgs/s", "seconds", "p50 ms", "p99 ms", "max ms", "CPU s/1k", "cores", "peak RSS", "bus s/1k", "io/msg", "bus io")
	f := func(v float64, format string) string {
		if v == 0 {
			return "-"
		}
		return fmt.Sprintf(format, v)
	}
	for _, r := range rep.Results {
		name := r.Name
		if r.PacedRate > 0 {
			name += fmt.Sprintf(" @ %.0f/s", r.PacedRate)
		}
		fmt.Fprintf(w, "%-28s %8.0f %7.2f %7s %7s %7s %8s %5s %8s %8s %6s %6s\n", name, r.MsgsPerSec, r.Seconds,
			f(r.P50Ms, "%.1f"), f(r.P99Ms, "%.1f"), f(r.MaxMs, "%.1f"), f(r.CPUPer1k, "%.3f"),
			f(r.Cores, "%.2f"), f(r.PeakRSSMB, "%.0f MB"), f(r.BenchCPUPer1k, "%.3f"),
			f(r.IOCallsPerMsg, "%.2f"), f(r.BenchIOCallsPerMsg, "%.2f"))
	}
	for _, r := range rep.Results {
		if r.Rounds > 1 {
			fmt.Fprintf(w, "\nrelay, relay + run state, agentgate: each the median (by msgs/s) of %d rounds, run side by side; agentgate half: the median by p99.", r.Rounds)
			break
		}
	}
	fmt.Fprintln(w, "\nCPU s/1k, cores, peak RSS: the relay or gateway process alone (peak RSS = its VmHWM);")
	fmt.Fprintln(w, "bus s/1k: the bench process (embedded NATS server, load generator, outcome polling);")
	fmt.Fprintln(w, "io/msg, bus io: read and write system calls per message of the process under test and of the bench process.")
	fmt.Fprintln(w)
	for _, r := range rep.Results {
		if len(r.Outcomes) > 0 {
			fmt.Fprintf(w, "%s outcomes: %s\n", r.Name, outcomeList(r.Outcomes))
		}
	}
	if rep.RatioRunState > 0 {
		fmt.Fprintf(w, "agentgate/(relay + run state) throughput: %.2f, the median of %d rounds (%s) (target >= 0.90)\n",
			rep.RatioRunState, len(rep.RoundRatiosRunState), ratioList(rep.RoundRatiosRunState))
		fmt.Fprintf(w, "agentgate/relay throughput: %.2f (%s) (for reference: the relay keeps no run state)\n",
			rep.Ratio, ratioList(rep.RoundRatios))
	}
	if rep.P99Ratio > 0 {
		fmt.Fprintf(w, "p99 at half agentgate's peak, agentgate/(relay + run state): %.2f, the median of %d rounds (%s; agentgate %s ms, relay + run state %s ms) (target <= 1.5)\n",
			rep.P99Ratio, len(rep.HalfP99Ratios), ratioList(rep.HalfP99Ratios), ratioList(rep.HalfP99s), ratioList(rep.HalfRunStateP99s))
	}
}

func printSoak(w io.Writer, s *soakReport) {
	how := fmt.Sprintf("windowed, at most %d without an outcome", s.Window)
	if s.PacedRate > 0 {
		how = fmt.Sprintf("paced at %.0f msgs/s", s.PacedRate)
	}
	fmt.Fprintf(w, "soak: agentgate alone, %s, streams and run-state MaxAge %s\n", how, s.MaxAge)
	fmt.Fprintf(w, "%.0f msgs/s over %.1f s, CPU %.3f s/1k (%.2f cores), peak RSS %.0f MB\n", s.MsgsPerSec, s.Seconds, s.CPUPer1k, s.Cores, s.PeakRSSMB)
	fmt.Fprintf(w, "outcomes: %s\n\n", outcomeList(s.Outcomes))
	fmt.Fprintf(w, "%-18s %9s %8s %8s %8s %10s\n", "", "outcomes", "seconds", "RSS MB", "heap MB", "goroutines")
	for _, p := range s.Points {
		fmt.Fprintf(w, "%-18s %9d %8.1f %8.1f %8.1f %10d\n", p.Label, p.Outcomes, p.Seconds, p.RSSMB, p.HeapMB, p.Goroutines)
	}
	fmt.Fprintf(w, "\n%s\n", soakVerdict(s))
}

// ratioList writes ratios (or milliseconds) with two decimals.
func ratioList(v []float64) string {
	parts := make([]string, len(v))
	for i, r := range v {
		parts[i] = fmt.Sprintf("%.2f", r)
	}
	return strings.Join(parts, ", ")
}

// outcomeList writes outcome counts by the Outcome header, sorted.
func outcomeList(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", cmp.Or(k, `""`), m[k]))
	}
	return strings.Join(parts, ", ")
}
