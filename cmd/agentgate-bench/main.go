// Command agentgate-bench is a load generator that compares agentgate's
// throughput with the bus it runs on and with a minimal hand-written relay.
//
// In one run, on one embedded NATS server (JetStream in a temporary
// directory removed at exit), it measures:
//
//   - jetstream publish: async publish of the payloads into a scratch stream;
//   - jetstream consume: a durable pull consumer receiving and acking them;
//   - relay: a nats.go relay (no Watermill) that pulls each raw output from a
//     durable consumer, decodes it with encoding/json, validates it with the
//     pr-reviewer blueprint's compiled schema, publishes a small outcome with
//     a Nats-Msg-Id and acks;
//   - agentgate: gateway.New + Run on the same server, fed the same payloads
//     on agent.output.raw.pr-reviewer.
//
// For relay and agentgate the processor runs while the payloads are
// published (async, bounded window); throughput is N divided by the time from
// the first publish to the last outcome stored in JetStream, and latency is
// each outcome's stored time minus the moment its raw output was handed to
// the client. The payloads (1 to 4 KB pr-reviewer outputs: about 70 % valid,
// 10 % drifted, 10 % invalid, 5 % refusals, 5 % prose) are generated
// deterministically from -seed.
//
// Usage:
//
//	go run ./cmd/agentgate-bench [-n 5000] [-config examples] [-json]
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
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/router"
	"github.com/agentgate/agentgate/schemas"
)

// cpuProfile names the file of the agentgate phase's CPU profile, if any.
var cpuProfile string

// report is everything the bench prints.
type report struct {
	N        int      `json:"n"`
	Agent    string   `json:"agent"`
	Payloads mixStats `json:"payloads"`
	Results  []result `json:"results"`
	Ratio    float64  `json:"agentgate_relay_ratio"`
}

func main() {
	var (
		n         = flag.Int("n", 5000, "number of raw outputs per measurement")
		configDir = flag.String("config", "examples", "configuration directory (schemas/ and agents/)")
		asJSON    = flag.Bool("json", false, "print the report as JSON")
		seed      = flag.Uint64("seed", 1, "seed of the payload generator")
		window    = flag.Int("window", 256, "most async publishes awaiting their ack")
		timeout   = flag.Duration("timeout", 5*time.Minute, "bound on each phase's wait for acks and outcomes")
	)
	flag.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the agentgate phase (whole process) to this file")
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), `agentgate-bench: measure agentgate against the bare bus and a minimal relay.

Starts an embedded NATS server with JetStream in a temporary directory and, in
one run, measures JetStream async publish and durable consume of the same
payloads, a hand-written nats.go relay (decode + validate + publish + ack) and
agentgate itself (gateway.New + Run) on N pr-reviewer outputs. Prints a table
of msgs/s (with p50/p99 latency for relay and agentgate) and the
agentgate/relay ratio.

Usage: go run ./cmd/agentgate-bench [flags]   (or: make bench)

Flags:
`)
		flag.PrintDefaults()
	}
	flag.Parse()
	if *n < 1 || *window < 1 || *timeout <= 0 {
		fmt.Fprintln(os.Stderr, "agentgate-bench: -n, -window and -timeout must be positive")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := run(ctx, *n, *configDir, *seed, *window, *timeout)
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
func run(ctx context.Context, n int, configDir string, seed uint64, window int, timeout time.Duration) (*report, error) {
	reg, err := schemas.Load(configDir)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", configDir, err)
	}
	ps, mix := generate(n, seed)
	rep := &report{N: n, Agent: agent, Payloads: mix}

	dir, err := os.MkdirTemp("", "agentgate-bench-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	srv, err := router.StartEmbedded(router.EmbeddedConfig{Listen: "127.0.0.1:0", StoreDir: dir})
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
	b := &bench{url: srv.ClientURL(), nc: nc, js: js, ps: ps, window: window, timeout: timeout}

	progress("jetstream baseline, %d messages", n)
	pub, con, err := b.baseline(ctx)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	progress("relay")
	rel, err := b.runRelay(ctx, reg)
	if err != nil {
		return nil, fmt.Errorf("relay: %w", err)
	}
	progress("agentgate")
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
	}
	ag, err := b.runGateway(ctx, configDir)
	if cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		return nil, fmt.Errorf("agentgate: %w", err)
	}
	rep.Results = []result{pub, con, rel, ag}
	if rel.MsgsPerSec > 0 {
		rep.Ratio = ag.MsgsPerSec / rel.MsgsPerSec
	}
	return rep, nil
}

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "agentgate-bench: "+format+"...\n", args...)
}

// printTable writes the human-readable report.
func printTable(w io.Writer, rep *report) {
	var mix []string
	for _, k := range kindNames {
		mix = append(mix, fmt.Sprintf("%s %d", k, rep.Payloads.Count[k]))
	}
	fmt.Fprintf(w, "%d %s outputs, %d to %d bytes (avg %d): %s\n\n", rep.N, rep.Agent,
		rep.Payloads.MinBytes, rep.Payloads.MaxBytes, rep.Payloads.AvgBytes, strings.Join(mix, ", "))
	fmt.Fprintf(w, "%-18s %10s %8s %8s %8s\n", "", "msgs/s", "seconds", "p50 ms", "p99 ms")
	ms := func(v float64) string {
		if v == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f", v)
	}
	for _, r := range rep.Results {
		fmt.Fprintf(w, "%-18s %10.0f %8.2f %8s %8s\n", r.Name, r.MsgsPerSec, r.Seconds, ms(r.P50Ms), ms(r.P99Ms))
	}
	fmt.Fprintln(w)
	for _, r := range rep.Results {
		if len(r.Outcomes) > 0 {
			fmt.Fprintf(w, "%s outcomes: %s\n", r.Name, outcomeList(r.Outcomes))
		}
	}
	fmt.Fprintf(w, "agentgate/relay ratio: %.2f\n", rep.Ratio)
}

// outcomeList writes outcome counts by the Outcome header, sorted.
func outcomeList(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", cmp.Or(k, `""`), m[k]))
	}
	return strings.Join(parts, ", ")
}
