package agentproto_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agentgate/agentgate/agentproto"
	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/internal/agenttest"
	"github.com/agentgate/agentgate/internal/natstest"
	"github.com/agentgate/agentgate/schemas"
)

// TestTwin_discoveryAndHeartbeat checks the twin's registration as a
// caller sees it: subscribed to the heartbeat wildcard before discovery
// (section 8.5), then $SRV.PING and $SRV.INFO.
func TestTwin_discoveryAndHeartbeat(t *testing.T) {
	cfg := scripted("reviewer", agenttest.Turn{{Response: validDoc}})
	cfg.MaxPayload, cfg.AttachmentsOK = "512KB", true
	e := withTwins(t, []upstream{{blueprint: "gated-reviewer", agent: cfg}})

	var mu sync.Mutex
	var beats []*nats.Msg
	sub, err := e.nc.Subscribe("agents.gate.*.*.heartbeat", func(m *nats.Msg) {
		mu.Lock()
		beats = append(beats, m)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sub.Unsubscribe() }()

	subject, info := e.twinSubject("gated-reviewer")
	if subject != "agents.gate.test.reviewer" || info["name"] != agentproto.ServiceNameCompact {
		t.Errorf("twin %v on %s", info["name"], subject)
	}
	md := info["metadata"].(map[string]any)
	upID := e.agents["gated-reviewer"][0].ID()
	for k, want := range map[string]string{
		"agent": "gate", "owner": "test", "session": "reviewer-session", "protocol_version": "0.1",
		"harness":        "agenttest", // an upstream key the twin must preserve
		"upstream_agent": "scripted", "upstream_instance_id": upID, "upstream_subject": "agents.scripted.test.reviewer",
		"blueprint": "gated-reviewer", "schema_id": "https://agentgate.dev/schemas/pr-review/1.0.0",
	} {
		if md[k] != want {
			t.Errorf("metadata %s = %v, want %q", k, md[k], want)
		}
	}
	ep := info["endpoints"].([]any)[0].(map[string]any)
	epmd := ep["metadata"].(map[string]any)
	size, err := agentproto.ParseSize(epmd["max_payload"].(string))
	if err != nil || size <= 0 || size >= 512<<10 || epmd["attachments_ok"] != "true" {
		t.Errorf("prompt endpoint metadata %v: want max_payload under the upstream's 512KB, attachments_ok true", epmd)
	}

	// $SRV.PING answers with the same id.
	msg, err := e.nc.Request("$SRV.PING."+agentproto.ServiceNameCompact+"."+info["id"].(string), nil, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var ping map[string]any
	_ = json.Unmarshal(msg.Data, &ping)
	if ping["id"] != info["id"] {
		t.Errorf("ping %v", ping)
	}

	// Heartbeats on the fixed subject, with every field of section 8.3.
	waitFor(t, 5*time.Second, "two heartbeats", func() bool { mu.Lock(); defer mu.Unlock(); return len(beats) >= 2 })
	mu.Lock()
	b := beats[0]
	mu.Unlock()
	var hb map[string]any
	if err := json.Unmarshal(b.Data, &hb); err != nil {
		t.Fatal(err)
	}
	ts, _ := hb["ts"].(string)
	if _, err := time.Parse(time.RFC3339, ts); err != nil || b.Subject != "agents.gate.test.reviewer.heartbeat" ||
		hb["agent"] != "gate" || hb["owner"] != "test" || hb["session"] != "reviewer-session" ||
		hb["instance_id"] != info["id"] || hb["interval_s"] != float64(1) {
		t.Errorf("heartbeat on %s: %v", b.Subject, hb)
	}
}

// TestTwin_twoInstances gates an agent with two instances sharing one
// identity: one twin, prompts served by both, by the survivor once one
// stops, and a typed failure once none is left.
func TestTwin_twoInstances(t *testing.T) {
	e := withTwins(t, []upstream{{blueprint: "gated-pair", agent: scripted("pair", agenttest.Turn{{Response: validDoc}}), instances: 2}})
	n := 0
	waitFor(t, 10*time.Second, "the twin in discovery", func() bool { n = e.twins(); return n > 0 })
	if n != 1 {
		t.Fatalf("%d twins registered, want 1", n)
	}
	subject, _ := e.twinSubject("gated-pair")
	a, b := e.agents["gated-pair"][0], e.agents["gated-pair"][1]
	for i := 0; i < 40 && (len(a.Prompts()) == 0 || len(b.Prompts()) == 0); i++ {
		if r := e.call(subject, []byte("review"), nil, ""); r.code != "" {
			t.Fatalf("prompt %d: error %s %s", i, r.code, r.description)
		}
	}
	if len(a.Prompts()) == 0 || len(b.Prompts()) == 0 {
		t.Errorf("prompts were not shared: %d and %d", len(a.Prompts()), len(b.Prompts()))
	}

	a.Stop()
	before := len(b.Prompts())
	for i := range 5 {
		if r := e.call(subject, []byte("review"), nil, ""); r.code != "" {
			t.Fatalf("prompt %d after one instance stopped: error %s %s", i, r.code, r.description)
		}
	}
	if got := len(b.Prompts()) - before; got != 5 {
		t.Errorf("the surviving instance took %d of 5 prompts", got)
	}

	b.Stop()
	r := e.call(subject, []byte("review"), nil, "")
	if r.code != "500" || r.body["error"] != string(contract.ErrUpstreamError) || !strings.Contains(r.description, "no instance") {
		t.Errorf("with no instance left: %s %q %v", r.code, r.description, r.body)
	}
	if st := e.run(r.runID); st == nil || st["status"] != string(contract.RunFailed) {
		t.Errorf("run state %v, want failed", st)
	}
}

// TestTwin_callerDisconnects drops the caller after the first chunk: the
// run still completes and is recorded, and the twin serves the next caller.
func TestTwin_callerDisconnects(t *testing.T) {
	turn := agenttest.Turn{{Ack: true, Sleep: 300 * time.Millisecond}, {Response: validDoc}}
	e := withTwins(t, []upstream{{blueprint: "gated-slow", agent: scripted("slow", turn)}})
	subject, _ := e.twinSubject("gated-slow")

	nc, err := nats.Connect(e.srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	inbox := nc.NewInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		t.Fatal(err)
	}
	hdr := nats.Header{contract.HeaderRunID: {"caller-gone-1"}}
	if err := nc.PublishMsg(&nats.Msg{Subject: subject, Reply: inbox, Data: []byte("review"), Header: hdr}); err != nil {
		t.Fatal(err)
	}
	first, err := sub.NextMsg(5 * time.Second)
	if err != nil || !strings.Contains(string(first.Data), `"ack"`) {
		t.Fatalf("first chunk %v, %v: want the upstream's ack passed through", first, err)
	}
	nc.Close() // the caller goes away mid-stream

	waitFor(t, 10*time.Second, "the run to complete", func() bool {
		st := e.run("caller-gone-1")
		return st != nil && st["status"] == string(contract.RunCompleted)
	})
	if r := e.call(subject, []byte("review"), nil, ""); r.code != "" || len(r.chunks) == 0 {
		t.Errorf("next caller: %+v", r)
	}
}

// TestTwin_keepAlive: while the twin holds the upstream's text back (and
// judges it), its caller gets a status ack after each keep-alive interval
// without a chunk, so that the caller's inactivity timeout (protocol
// section 6.6) does not fire; then the one response and the terminator.
func TestTwin_keepAlive(t *testing.T) {
	turn := agenttest.Turn{{Response: `{"summary": "ok", `}, {Sleep: 700 * time.Millisecond}, {Response: `"approval": "approve", "comments": []}`}}
	e := withTwins(t, []upstream{{blueprint: "gated-quiet", agent: scripted("quiet", turn)}},
		func(c *gateway.Config) { c.GateKeepAlive = 200 * time.Millisecond })
	subject, _ := e.twinSubject("gated-quiet")
	r := e.call(subject, []byte("review"), nil, "")
	acks := 0
	for _, c := range r.chunks {
		if c["type"] == "status" && c["data"] == "ack" {
			acks++
		}
	}
	last := r.chunks[len(r.chunks)-1]
	if r.code != "" || acks < 2 || last["type"] != "response" {
		t.Errorf("chunks %v (code %q): want status acks while the text is held back, then the response", r.chunks, r.code)
	}
}

// TestTwin_badRequests checks the 400s of sections 5.3 and 5.4: no run is
// started and the upstream agent is not prompted.
func TestTwin_badRequests(t *testing.T) {
	e := withTwins(t, []upstream{{blueprint: "gated-strict", agent: scripted("strict", agenttest.Turn{{Response: validDoc}})}})
	subject, _ := e.twinSubject("gated-strict")
	tests := []struct {
		name    string
		payload string
		want    string
	}{
		{"empty", "", "bad_request"},
		{"bad JSON", `  {"prompt": `, "bad_request"},
		{"no prompt", `{"text": "hi"}`, "bad_request"},
		{"empty prompt", `{"prompt": ""}`, "bad_request"},
		{"attachments not accepted", `{"prompt": "hi", "attachments": [{"filename": "a.txt", "content": "aGk="}]}`, "attachments_not_accepted"},
		{"too large", strings.Repeat("x", 1100<<10), "payload_too_large"},
	}
	for _, tt := range tests {
		r := e.call(subject, []byte(tt.payload), nil, "")
		if r.code != "400" || r.body["error"] != tt.want || !r.terminated || r.runID != "" {
			t.Errorf("%s: %s %q %v (run %q), want 400 %s", tt.name, r.code, r.description, r.body, r.runID, tt.want)
		}
	}
	if n := len(e.agents["gated-strict"][0].Prompts()); n != 0 {
		t.Errorf("upstream was prompted %d times", n)
	}

	// A Run-Id of a run that already has its outcome: 409, and the
	// recorded outcome stays.
	hdr := nats.Header{contract.HeaderRunID: {"dup-1"}}
	if r := e.call(subject, []byte("review"), hdr, ""); r.code != "" || r.runID != "dup-1" {
		t.Fatalf("first: %s %q %v", r.code, r.description, r.body)
	}
	r := e.call(subject, []byte("review"), hdr, "")
	if r.code != "409" || r.body["error"] != "run_already_answered" || r.runID != "dup-1" {
		t.Errorf("second: %s %q %v, want 409 run_already_answered", r.code, r.description, r.body)
	}
	if st := e.run("dup-1"); st == nil || st["status"] != string(contract.RunCompleted) || st["attempts"] != float64(1) {
		t.Errorf("run state %v", st)
	}
}

// TestTwin_byInstanceID gates one instance named by its service id, next to
// another instance of a different identity, and checks the metrics count
// the gated runs like any other.
func TestTwin_byInstanceID(t *testing.T) {
	e := withTwins(t, []upstream{
		{blueprint: "gated-by-id", agent: scripted("by-id", agenttest.Turn{{Response: validDoc}}), byInstance: true},
		{blueprint: "gated-other", agent: scripted("other", agenttest.Turn{{Response: validDoc}})},
	})
	subject, info := e.twinSubject("gated-by-id")
	md := info["metadata"].(map[string]any)
	if subject != "agents.gate.test.by-id" || md["upstream_instance_id"] != e.agents["gated-by-id"][0].ID() {
		t.Fatalf("twin on %s gates %v", subject, md["upstream_instance_id"])
	}
	r := e.call(subject, []byte("review"), nil, "")
	if r.code != "" {
		t.Fatalf("error %s %s", r.code, r.description)
	}
	if n := len(e.agents["gated-by-id"][0].Prompts()); n != 1 || len(e.agents["gated-other"][0].Prompts()) != 0 {
		t.Errorf("the named instance got %d prompts, the other %d", n, len(e.agents["gated-other"][0].Prompts()))
	}
	want := `agentgate_outcomes_total{agent="gated-by-id",outcome="valid",schema="https://agentgate.dev/schemas/pr-review/1.0.0"} 1`
	if m := e.metrics(); !strings.Contains(m, want) {
		t.Errorf("metrics lack %s", want)
	}
}

// TestDiscover matches upstream agents by identity (the subject's
// abbreviation included) or instance id, pins protocol 0.1 (section 11)
// and says why a matching instance was skipped.
func TestDiscover(t *testing.T) {
	t.Parallel()
	srv := natstest.Server(t)
	nc, _ := natstest.Connect(t, srv)
	ok := agenttest.Start(t, nc, agenttest.Config{Agent: "ccc", Owner: "ann", Name: "s1", ProtocolVersion: "0.1.2"})
	agenttest.Start(t, nc, agenttest.Config{Agent: "pi", Owner: "ann", Name: "new", ProtocolVersion: "0.3"})
	tests := []struct {
		name    string
		given   schemas.Upstream
		wantID  string
		wantErr string
	}{
		{"identity by subject abbreviation", schemas.Upstream{Agent: "ccc", Owner: "ann", Name: "s1"}, ok.ID(), ""},
		{"instance id", schemas.Upstream{InstanceID: ok.ID()}, ok.ID(), ""},
		{"other owner", schemas.Upstream{Agent: "ccc", Owner: "bob", Name: "s1"}, "", "not found"},
		{"newer protocol", schemas.Upstream{Agent: "pi", Owner: "ann", Name: "new"}, "", `implements protocol "0.3", not 0.1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			found, err := agentproto.Discover(context.Background(), nc, tt.given, 300*time.Millisecond)
			if tt.wantErr != "" {
				if !errors.Is(err, agentproto.ErrNotFound) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want ErrNotFound with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(found) != 1 || found[0].ID != tt.wantID || found[0].PromptSubject != "agents.ccc.ann.s1" ||
				found[0].MaxPayload != 1<<20 || found[0].Name != "s1" || found[0].Owner != "ann" {
				t.Fatalf("found %+v, %v", found, err)
			}
		})
	}
}

// TestTwin_followsTheLiveBlueprint: a blueprint changed through the
// registry's API changes what the next exchange asks the upstream agent
// for, as it changes what the gateway judges it by.
func TestTwin_followsTheLiveBlueprint(t *testing.T) {
	e := withTwins(t, []upstream{{blueprint: "gated-live", agent: scripted("live",
		agenttest.Turn{{Response: validDoc}}, agenttest.Turn{{Response: `{"verdict": "ok"}`}})}})
	subject, _ := e.twinSubject("gated-live")
	if r := e.call(subject, []byte("review"), nil, ""); r.code != "" {
		t.Fatalf("first exchange: %+v", r)
	}
	changed := `{"name": "gated-live", "description": "gated", "max_retries": 1, "system_prompt": "",
		"upstream": {"agent": "scripted", "owner": "test", "name": "live"},
		"output_schema": {"type": "object", "required": ["verdict"], "properties": {"verdict": {"type": "string"}}}}`
	req, err := http.NewRequest("PUT", "http://"+e.gw.HTTPAddr()+"/v1/agents/gated-live", strings.NewReader(changed))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT /v1/agents/gated-live = %d", resp.StatusCode)
	}
	waitFor(t, 10*time.Second, "the changed blueprint", func() bool {
		bp, ok := e.gw.Registry().Blueprint("gated-live")
		return ok && bp.OutputSchema != nil && strings.Contains(string(bp.OutputSchema.Raw), "verdict")
	})
	if r := e.call(subject, []byte("review"), nil, ""); r.code != "" {
		t.Errorf("second exchange: %+v", r)
	}
	prompts := e.agents["gated-live"][0].Prompts()
	if len(prompts) != 2 || !strings.Contains(prompts[0], `"approval"`) ||
		!strings.Contains(prompts[1], `"verdict"`) || strings.Contains(prompts[1], `"approval"`) {
		t.Errorf("prompts, before and after the change:\n%s", strings.Join(prompts, "\n----\n"))
	}
}
