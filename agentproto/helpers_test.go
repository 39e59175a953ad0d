package agentproto_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/agentgate/agentgate/agentproto"
	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/internal/agenttest"
	"github.com/agentgate/agentgate/internal/natstest"
)

// prReviewSchema is the bundled example schema the gated agents answer to.
const prReviewSchema = "../examples/schemas/pr-review.schema.json"

// upstream is one scripted agent and the blueprint that gates it.
type upstream struct {
	blueprint string
	agent     agenttest.Config
	// instances is how many copies of the agent to start (default 1).
	instances int
	// extra blueprint members, as JSON ("" for none).
	extra string
	// byInstance names the upstream by the first instance's id.
	byInstance bool
}

// env is a gateway with gated twins of scripted agents, on one server.
type env struct {
	t      testing.TB
	srv    *server.Server
	nc     *nats.Conn
	gw     *gateway.Gateway
	agents map[string][]*agenttest.Agent

	mu       sync.Mutex
	outcomes []*nats.Msg
}

// withTwins starts a server, the scripted agents, and a gateway whose
// configuration gates each of them (upstream by agent, owner and name).
// The tests that use it run one at a time: a gateway per test in parallel
// overloads a small shared box past natstest's start-up limit.
func withTwins(t testing.TB, ups []upstream, mutate ...func(*gateway.Config)) *env {
	t.Helper()
	dir := t.TempDir()
	for _, sub := range []string{"schemas", "agents"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	schema, err := os.ReadFile(prReviewSchema)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "schemas", "pr-review.schema.json"), schema, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := natstest.Server(t)
	nc, _ := natstest.Connect(t, srv)
	e := &env{t: t, srv: srv, nc: nc, agents: map[string][]*agenttest.Agent{}}
	sub, err := nc.Subscribe("agent.>", func(m *nats.Msg) {
		e.mu.Lock()
		e.outcomes = append(e.outcomes, m)
		e.mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	for _, u := range ups {
		for range max(u.instances, 1) {
			anc, _ := natstest.Connect(t, srv)
			e.agents[u.blueprint] = append(e.agents[u.blueprint], agenttest.Start(t, anc, u.agent))
		}
		extra := ""
		if u.extra != "" {
			extra = "," + u.extra
		}
		ref := fmt.Sprintf(`{"agent": %q, "owner": %q, "name": %q}`, u.agent.Agent, u.agent.Owner, u.agent.Name)
		if u.byInstance {
			ref = fmt.Sprintf(`{"instance_id": %q}`, e.agents[u.blueprint][0].ID())
		}
		bp := fmt.Sprintf(`{"name": %q, "description": "gated", "output_schema": "https://agentgate.dev/schemas/pr-review/1.0.0",
			"max_retries": 1, "system_prompt": "", "upstream": %s%s}`, u.blueprint, ref, extra)
		if err := os.WriteFile(filepath.Join(dir, "agents", u.blueprint+".json"), []byte(bp), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gcfg := func(c *gateway.Config) {
		c.GateIdle, c.GateHeartbeat = 2*time.Second, time.Second
		c.GateDiscoveryWait, c.GateDiscoveryRetry = 300*time.Millisecond, 200*time.Millisecond
	}
	e.gw, _ = natstest.Gateway(t, srv, dir, append([]func(*gateway.Config){gcfg}, mutate...)...)
	for _, tw := range e.gw.Twins() {
		select {
		case <-tw.Registered():
		case <-time.After(10 * time.Second):
			t.Fatal("a twin did not register within 10s")
		}
	}
	return e
}

// reply is what a caller received for one prompt.
type reply struct {
	chunks []map[string]any
	// code, description and body are the error's, if one came.
	code        string
	description string
	body        map[string]any
	runID       string
	terminated  bool
}

// result is the data of the one response chunk.
func (r reply) result(t *testing.T) (data map[string]any, doc map[string]any) {
	t.Helper()
	for _, c := range r.chunks {
		if c["type"] == "response" {
			data, _ = c["data"].(map[string]any)
			text, _ := data["text"].(string)
			if err := json.Unmarshal([]byte(text), &doc); err != nil {
				t.Fatalf("response text %q is not JSON: %v", text, err)
			}
			return data, doc
		}
	}
	t.Fatalf("no response chunk in %+v (error %s %s %v)", r.chunks, r.code, r.description, r.body)
	return nil, nil
}

// call prompts subject as a protocol caller: it reads chunks until the
// terminator, answering a query with answer.
func (e *env) call(subject string, payload []byte, hdr nats.Header, answer string) reply {
	e.t.Helper()
	inbox := e.nc.NewInbox()
	sub, err := e.nc.SubscribeSync(inbox)
	if err != nil {
		e.t.Fatal(err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := e.nc.PublishMsg(&nats.Msg{Subject: subject, Reply: inbox, Data: payload, Header: hdr}); err != nil {
		e.t.Fatal(err)
	}
	var r reply
	for {
		msg, err := sub.NextMsg(20 * time.Second)
		if err != nil {
			e.t.Fatalf("reading the twin's stream: %v (so far %+v)", err, r)
		}
		if len(msg.Data) == 0 && len(msg.Header) == 0 {
			r.terminated = true
			return r
		}
		if id := msg.Header.Get(contract.HeaderRunID); id != "" {
			r.runID = id
		}
		if code := msg.Header.Get(agentproto.HeaderErrorCode); code != "" {
			r.code, r.description = code, msg.Header.Get(agentproto.HeaderError)
			if len(msg.Data) > 0 {
				if err := json.Unmarshal(msg.Data, &r.body); err != nil {
					e.t.Fatalf("error body %q is not JSON: %v", msg.Data, err)
				}
			}
			continue
		}
		var c map[string]any
		if err := json.Unmarshal(msg.Data, &c); err != nil {
			e.t.Fatalf("chunk %q is not JSON: %v", msg.Data, err)
		}
		r.chunks = append(r.chunks, c)
		if c["type"] == "query" {
			d := c["data"].(map[string]any)
			if err := e.nc.Publish(d["reply_subject"].(string), []byte(answer)); err != nil {
				e.t.Fatal(err)
			}
		}
	}
}

// twinSubject discovers the twin of blueprint as a caller would: through
// $SRV.INFO, its prompt endpoint's subject.
func (e *env) twinSubject(blueprint string) (string, map[string]any) {
	e.t.Helper()
	var subject string
	var found map[string]any
	// A busy box may answer discovery after its window: ask again.
	waitFor(e.t, 10*time.Second, "the twin of "+blueprint+" in discovery", func() bool {
		for _, info := range e.discover() {
			md, _ := info["metadata"].(map[string]any)
			if md["agent"] != agentproto.TwinAgent || md["blueprint"] != blueprint {
				continue
			}
			for _, ep := range info["endpoints"].([]any) {
				ep := ep.(map[string]any)
				if ep["name"] == "prompt" {
					subject, found = ep["subject"].(string), info
					return true
				}
			}
		}
		return false
	})
	return subject, found
}

// twins counts the gated twins in one discovery.
func (e *env) twins() int {
	n := 0
	for _, info := range e.discover() {
		if md, _ := info["metadata"].(map[string]any); md["agent"] == agentproto.TwinAgent {
			n++
		}
	}
	return n
}

// discover collects the $SRV.INFO.SynadiaAgents records for half a second.
func (e *env) discover() []map[string]any {
	e.t.Helper()
	inbox := e.nc.NewInbox()
	sub, err := e.nc.SubscribeSync(inbox)
	if err != nil {
		e.t.Fatal(err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := e.nc.PublishRequest("$SRV.INFO."+agentproto.ServiceNameCompact, inbox, nil); err != nil {
		e.t.Fatal(err)
	}
	var out []map[string]any
	for {
		msg, err := sub.NextMsg(500 * time.Millisecond)
		if err != nil {
			return out
		}
		var info map[string]any
		if err := json.Unmarshal(msg.Data, &info); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, info)
	}
}

// run reads the run's state through the HTTP API (nil when unknown).
func (e *env) run(id string) map[string]any {
	e.t.Helper()
	resp, err := http.Get("http://" + e.gw.HTTPAddr() + "/v1/runs/" + id)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil
	}
	b, _ := io.ReadAll(resp.Body)
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		e.t.Fatalf("run %s: %s", id, b)
	}
	return st
}

// metrics returns the gateway's /metrics text.
func (e *env) metrics() string {
	e.t.Helper()
	resp, err := http.Get("http://" + e.gw.HTTPAddr() + "/metrics")
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// outcomesOf returns the outcome messages of a run seen on the contract's
// subjects, in order.
func (e *env) outcomesOf(run string) []*nats.Msg {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []*nats.Msg
	for _, m := range e.outcomes {
		if m.Header.Get(contract.HeaderRunID) == run {
			out = append(out, m)
		}
	}
	return out
}

// waitFor polls cond until it holds or limit passes.
var waitFor = natstest.WaitFor
