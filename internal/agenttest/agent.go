// Package agenttest is a small agent on the Synadia Agent Protocol (v0.1)
// for tests: a NATS micro service that answers each prompt from a script
// (response chunks in either data form, status acks, a mid-stream query,
// an error, or a stream that never ends) and publishes heartbeats. There
// is no Go SDK for the protocol; this is the upstream agent that the gated
// twin's tests prompt. It is for tests only and must not be imported by
// production code.
package agenttest

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
)

// Step is one thing the agent does while answering a prompt; the first
// field set says which.
type Step struct {
	// Response sends a response chunk; "{{answer}}" is replaced by the
	// last answer to a query. Object sends it in the object form.
	Response string
	Object   bool
	// Ack sends {"type":"status","data":"ack"}.
	Ack bool
	// Query asks the caller and waits (up to 5 s) for its one answer.
	Query string
	// Raw sends these bytes as a chunk as they are (an unknown type, say).
	Raw string
	// ErrorCode ends the stream with an error (then the terminator).
	ErrorCode string
	ErrorText string
	ErrorBody string
	// Hang stops without a terminator: the stream never ends.
	Hang bool
	// Sleep pauses before the next step.
	Sleep time.Duration
}

// Turn answers one prompt.
type Turn []Step

// Config configures an Agent.
type Config struct {
	Agent, Owner, Name, Session string
	// Turns answer the prompts in order; the last one answers every later
	// prompt.
	Turns []Turn
	// MaxPayload is the prompt endpoint's max_payload (default "1MB").
	MaxPayload    string
	AttachmentsOK bool
	// Heartbeat is the heartbeat interval (default 1 s).
	Heartbeat time.Duration
	// ProtocolVersion is metadata.protocol_version (default "0.1").
	ProtocolVersion string
}

// Agent is a running scripted agent.
type Agent struct {
	cfg Config
	nc  *nats.Conn
	svc micro.Service

	mu      sync.Mutex
	prompts []string
	answers []string
	wg      sync.WaitGroup
}

// Start registers the agent on nc and stops it when t ends.
func Start(t testing.TB, nc *nats.Conn, cfg Config) *Agent {
	t.Helper()
	if cfg.MaxPayload == "" {
		cfg.MaxPayload = "1MB"
	}
	if cfg.Heartbeat == 0 {
		cfg.Heartbeat = time.Second
	}
	if cfg.ProtocolVersion == "" {
		cfg.ProtocolVersion = "0.1"
	}
	a := &Agent{cfg: cfg, nc: nc}
	md := map[string]string{"agent": cfg.Agent, "owner": cfg.Owner, "protocol_version": cfg.ProtocolVersion, "harness": "agenttest"}
	if cfg.Session != "" {
		md["session"] = cfg.Session
	}
	svc, err := micro.AddService(nc, micro.Config{
		Name: "SynadiaAgents", Version: "1.0.0", Description: "scripted test agent", Metadata: md,
	})
	if err != nil {
		t.Fatalf("agenttest: %v", err)
	}
	attach := "false"
	if cfg.AttachmentsOK {
		attach = "true"
	}
	err = svc.AddEndpoint("prompt", micro.HandlerFunc(func(req micro.Request) {
		a.wg.Add(1)
		go func() { defer a.wg.Done(); a.answer(req) }()
	}), micro.WithEndpointSubject("agents."+cfg.Agent+"."+cfg.Owner+"."+cfg.Name),
		micro.WithEndpointMetadata(map[string]string{"max_payload": cfg.MaxPayload, "attachments_ok": attach}))
	if err != nil {
		t.Fatalf("agenttest: %v", err)
	}
	a.svc = svc
	stop := make(chan struct{})
	hbDone := make(chan struct{})
	go func() {
		defer close(hbDone)
		tick := time.NewTicker(cfg.Heartbeat)
		defer tick.Stop()
		for {
			a.beat()
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(stop); <-hbDone; _ = svc.Stop(); a.wg.Wait() }) })
	return a
}

// ID is the service's instance id.
func (a *Agent) ID() string { return a.svc.Info().ID }

// Stop removes the service (its subscriptions end at once).
//
// It returns once the server has the unsubscriptions (a flush on the
// agent's connection), so that a request sent after it from another
// connection no longer reaches the agent.
func (a *Agent) Stop() {
	_ = a.svc.Stop()
	_ = a.nc.FlushTimeout(5 * time.Second)
}

// Prompts returns the prompt texts received so far, in order.
func (a *Agent) Prompts() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.prompts...)
}

// Answers returns the answers to its queries received so far.
func (a *Agent) Answers() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.answers...)
}

func (a *Agent) beat() {
	hb := map[string]any{"agent": a.cfg.Agent, "owner": a.cfg.Owner, "instance_id": a.svc.Info().ID,
		"ts": time.Now().UTC().Format(time.RFC3339), "interval_s": max(int(a.cfg.Heartbeat/time.Second), 1)}
	if a.cfg.Session != "" {
		hb["session"] = a.cfg.Session
	}
	b, _ := json.Marshal(hb)
	_ = a.nc.Publish("agents."+a.cfg.Agent+"."+a.cfg.Owner+"."+a.cfg.Name+".heartbeat", b)
}

// answer plays the turn of this prompt.
func (a *Agent) answer(req micro.Request) {
	var env struct {
		Prompt string `json:"prompt"`
	}
	data := req.Data()
	if trimmed := strings.TrimLeft(string(data), " \t\r\n"); strings.HasPrefix(trimmed, "{") {
		if json.Unmarshal(data, &env) != nil || env.Prompt == "" {
			_ = req.Error("400", "malformed request", []byte(`{"error":"bad_request"}`))
			_ = req.Respond(nil)
			return
		}
	} else {
		env.Prompt = string(data)
	}
	if len(data) == 0 {
		_ = req.Error("400", "empty payload", nil)
		_ = req.Respond(nil)
		return
	}
	a.mu.Lock()
	n := len(a.prompts)
	a.prompts = append(a.prompts, env.Prompt)
	a.mu.Unlock()
	if len(a.cfg.Turns) == 0 {
		_ = req.Respond(nil)
		return
	}
	turn := a.cfg.Turns[min(n, len(a.cfg.Turns)-1)]
	answer := ""
	for _, s := range turn {
		switch {
		case s.Response != "":
			text := strings.ReplaceAll(s.Response, "{{answer}}", answer)
			var d any = text
			if s.Object {
				d = map[string]any{"text": text, "extra": "kept"}
			}
			b, _ := json.Marshal(map[string]any{"type": "response", "data": d})
			_ = req.Respond(b)
		case s.Ack:
			_ = req.Respond([]byte(`{"type":"status","data":"ack"}`))
		case s.Query != "":
			inbox := a.nc.NewInbox()
			sub, err := a.nc.SubscribeSync(inbox)
			if err != nil {
				return
			}
			b, _ := json.Marshal(map[string]any{"type": "query", "data": map[string]any{
				"id": "q-1", "reply_subject": inbox, "prompt": s.Query, "note": "unknown member"}})
			_ = req.Respond(b)
			msg, err := sub.NextMsg(5 * time.Second)
			_ = sub.Unsubscribe()
			if err == nil {
				answer = string(msg.Data)
				a.mu.Lock()
				a.answers = append(a.answers, answer)
				a.mu.Unlock()
			}
		case s.Raw != "":
			_ = req.Respond([]byte(s.Raw))
		case s.ErrorCode != "":
			_ = req.Error(s.ErrorCode, s.ErrorText, []byte(s.ErrorBody))
			_ = req.Respond(nil)
			return
		case s.Hang:
			return
		}
		if s.Sleep > 0 {
			time.Sleep(s.Sleep)
		}
	}
	_ = req.Respond(nil)
}
