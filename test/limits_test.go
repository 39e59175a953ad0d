package test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/schemas"
	"github.com/agentgate/agentgate/topology"
)

// hostileRegistry has an agent "slow" whose schema has a pattern that
// backtracks catastrophically on the ECMA-262 engine (the lookahead keeps
// it off RE2), and an agent "strict" that rejects extra fields.
func hostileRegistry(t *testing.T) *schemas.Registry {
	t.Helper()
	fsys := fstest.MapFS{
		"schemas/slow.schema.json": {Data: []byte(`{
			"$schema": "https://json-schema.org/draft/2020-12/schema",
			"$id": "https://agentgate.test/slow/1.0.0",
			"type": "object", "required": ["words"],
			"properties": {"words": {"type": "array", "items": {"type": "string", "pattern": "^(?=a)(a|aa)+$"}}}
		}`)},
		"schemas/strict.schema.json": {Data: []byte(`{
			"$schema": "https://json-schema.org/draft/2020-12/schema",
			"$id": "https://agentgate.test/strict/1.0.0",
			"type": "object", "required": ["name"], "additionalProperties": false,
			"properties": {"name": {"type": "string"}}
		}`)},
		"agents/slow.json":   {Data: []byte(`{"name": "slow", "output_schema": "https://agentgate.test/slow/1.0.0", "max_retries": 1}`)},
		"agents/strict.json": {Data: []byte(`{"name": "strict", "output_schema": "https://agentgate.test/strict/1.0.0", "max_retries": 1, "extra_fields": "reject"}`)},
	}
	reg, err := schemas.LoadFS(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// backtracking is an output of n strings that each make the slow pattern
// run into its match timeout.
func backtracking(n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = `"` + strings.Repeat("a", 40) + `b"`
	}
	return `{"words": [` + strings.Join(words, ", ") + `]}`
}

// An output whose decision takes longer than the decision limit is a
// processing_limit dead letter that keeps the raw output and marks the run
// failed, at once: not an error retried forever.
func TestGateway_slowDecisionIsAProcessingLimit(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	b.startRouterWith(hostileRegistry(t), routerSetup{handler: func(c *handlers.ProcessorConfig) {
		c.DecisionTimeout = 300 * time.Millisecond
	}})
	payload := backtracking(30)
	start := time.Now()
	b.publish(raw{agent: "slow", run: "slow-1", payload: payload})
	o := b.awaitOutcomes("slow-1", 1)[0]
	t.Logf("dead letter after %s", time.Since(start).Round(10*time.Millisecond))
	if field(o.Body, "error", "type") != "processing_limit" || field(o.Body, "error", "limit") != "decision_time" ||
		field(o.Body, "raw", "payload") != payload {
		t.Fatalf("outcome: %.400s", o.Data)
	}
	b.awaitState("slow-1", contract.RunFailed, 1)
	b.awaitIdle()
	if n := len(b.outcomesOf("slow-1")); n != 1 {
		t.Errorf("%d outcomes, want 1", n)
	}
}

// The store's and the publish's deadlines start when those calls start: an
// output whose decision takes longer than either timeout still gets its
// outcome.
func TestGateway_deadlinesStartWithTheirCalls(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		call string
		set  func(*handlers.ProcessorConfig)
	}{
		// A second, under the ~2 s decision, with room for -race.
		{"store", func(c *handlers.ProcessorConfig) { c.StoreTimeout = time.Second }},
		{"publish", func(c *handlers.ProcessorConfig) { c.PublishTimeout = time.Second }},
	} {
		t.Run(tt.call, func(t *testing.T) {
			t.Parallel()
			b := startBus(t)
			b.startRouterWith(hostileRegistry(t), routerSetup{handler: func(c *handlers.ProcessorConfig) {
				tt.set(c)
				c.DecisionTimeout = time.Minute
			}})
			run := "slow-" + tt.call
			b.publish(raw{agent: "slow", run: run, payload: backtracking(5)})
			if o := b.awaitOutcomes(run, 1)[0]; o.Headers.Get(contract.HeaderOutcome) != "retry" {
				t.Fatalf("outcome: %.400s", o.Data)
			}
		})
	}
}

// A message held longer than the ack wait is not redelivered while its
// decision runs (the router tells JetStream it is in progress), and its
// ack, sent after the ack wait, is not lost.
func TestGateway_inProgressHoldsASlowMessage(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	b.startRouterWith(hostileRegistry(t), routerSetup{ackWait: time.Second, handler: func(c *handlers.ProcessorConfig) {
		c.DecisionTimeout = time.Minute
	}})
	start := time.Now()
	b.publish(raw{agent: "slow", run: "slow-progress", payload: backtracking(8)})
	b.awaitOutcomes("slow-progress", 1)
	held := time.Since(start)
	b.awaitIdle()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := b.js.Consumer(ctx, topology.StreamRaw, topology.GatewayConsumer)
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if held < 2*time.Second {
		t.Skipf("the decision took %s, not over the ack wait twice: nothing to hold", held)
	}
	if info.NumRedelivered != 0 {
		t.Errorf("held %s with a 1s ack wait: %d redelivered, want 0", held.Round(time.Millisecond), info.NumRedelivered)
	}
}

// brokenStore fails every write, as a store that is down would.
type brokenStore struct {
	handlers.RunStore
	puts atomic.Int32
}

func (s *brokenStore) Put(context.Context, *contract.RunState, uint64) (uint64, error) {
	s.puts.Add(1)
	return 0, errors.New("injected: store down")
}

// An output that still fails at its last delivery ends in the dead-letter
// stream, typed processing_limit with its delivery count, and is not
// delivered again.
func TestGateway_lastDeliveryIsDeadLettered(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	reg, err := schemas.Load(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	store := &brokenStore{}
	b.startRouterWith(reg, routerSetup{
		wrapStore: func(s handlers.RunStore) handlers.RunStore { store.RunStore = s; return store },
		handler:   func(c *handlers.ProcessorConfig) { c.MaxDeliver = 2 },
	})
	b.publish(raw{agent: "pr-reviewer", run: "doomed", payload: validReview})
	o := b.awaitOutcomes("doomed", 1)[0]
	if field(o.Body, "error", "type") != "processing_limit" || field(o.Body, "error", "limit") != "max_deliver" ||
		field(o.Body, "error", "deliveries") != float64(2) || field(o.Body, "raw", "payload") != validReview {
		t.Fatalf("dead letter: %.400s", o.Data)
	}
	b.awaitIdle()
	if n := len(b.outcomesOf("doomed")); n != 1 {
		t.Errorf("%d outcomes, want 1", n)
	}
	if st := b.runState("doomed"); st != nil {
		t.Errorf("run state written: %+v", st)
	}
}

// Closing with a slow decision in flight is bounded by the close timeouts,
// not by the decision.
func TestGateway_closeIsBoundedWithASlowMessageInFlight(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	stop := b.startRouterWith(hostileRegistry(t), routerSetup{
		handler: func(c *handlers.ProcessorConfig) {
			c.DecisionTimeout = time.Hour
			c.CloseTimeout = 500 * time.Millisecond
		},
		router: func(c *routerConfig) { c.CloseTimeout = 500 * time.Millisecond },
	})
	b.publish(raw{agent: "slow", run: "slow-close", payload: backtracking(2000)})
	waitFor(t, 15*time.Second, "the slow output in hand", func() bool {
		return b.consumerAckPending(1)
	})
	start := time.Now()
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Logf("closed in %s", time.Since(start).Round(10*time.Millisecond))
	case <-time.After(20 * time.Second):
		t.Fatal("close still waiting after 20s with a slow message in flight")
	}
}

// extraKeys is a strict output with n extra members.
func extraKeys(n int) string {
	var sb strings.Builder
	sb.WriteString(`{"name": "x"`)
	for i := range n {
		fmt.Fprintf(&sb, `, "extra_%d": %d`, i, i)
	}
	sb.WriteString("}")
	return sb.String()
}

// An output with thousands of extra members under extra_fields "reject"
// gets its retry request with the first violations and a count of the
// rest, within the bus's maximum message size: never a dead letter for
// the size of its own error report.
func TestGateway_manyViolationsKeepTheRetry(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	b.startRouterWith(hostileRegistry(t), routerSetup{gate: func(c *handlers.GateConfig) {
		c.MaxMessage = 16 << 10
	}})
	b.publish(raw{agent: "strict", run: "extra", payload: extraKeys(5000)})
	o := b.awaitOutcomes("extra", 1)[0]
	if o.Headers.Get(contract.HeaderOutcome) != "retry" {
		t.Fatalf("outcome: %.400s", o.Data)
	}
	vs, _ := field(o.Body, "error", "violations").([]any)
	omitted, _ := field(o.Body, "error", "violations_omitted").(float64)
	if len(vs) == 0 || len(vs) >= handlers.DefaultMaxViolations || len(vs)+int(omitted) != 5000 || len(o.Data) > 16<<10 {
		t.Errorf("%d violations kept, %v omitted, %d bytes", len(vs), omitted, len(o.Data))
	}
	if v := vs[0].(map[string]any); v["path"] != "$.extra_0" {
		t.Errorf("first violation kept = %v", v)
	}
}
