package agentproto_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agentgate/agentgate/agentproto"
	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/internal/agenttest"
)

// TestTwin_discoveryAndHeartbeat checks the twin's registration as a
// caller sees it: subscribed to the heartbeat wildcard before discovery
// (section 8.5), then $SRV.PING and $SRV.INFO.
func TestTwin_discoveryAndHeartbeat(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	e := withTwins(t, []upstream{{blueprint: "gated-pair", agent: scripted("pair", agenttest.Turn{{Response: validDoc}}), instances: 2}})
	twins := 0
	for _, info := range e.discover() {
		if md := info["metadata"].(map[string]any); md["agent"] == "gate" {
			twins++
		}
	}
	if twins != 1 {
		t.Fatalf("%d twins registered, want 1", twins)
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
	t.Parallel()
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

// TestTwin_badRequests checks the 400s of sections 5.3 and 5.4: no run is
// started and the upstream agent is not prompted.
func TestTwin_badRequests(t *testing.T) {
	t.Parallel()
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
}
