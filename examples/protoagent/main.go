// Command protoagent is a toy agent on the Synadia Agent Protocol (v0.1),
// for trying agentgate's gated twins (docs/agents.md) without a model: it
// registers agents.<agent>.<owner>.<name> as a SynadiaAgents micro
// service, publishes heartbeats, and answers every prompt with a triage
// report in a code fence with drift (an alias, an enum in the wrong
// case). With --invalid-first its first answer lacks a required member,
// and only the answer to agentgate's retry prompt is whole.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
)

func main() {
	url := flag.String("nats-url", nats.DefaultURL, "NATS server URL")
	agent := flag.String("agent", "demo", "agent identifier (2nd subject token, metadata.agent)")
	owner := flag.String("owner", "me", "owner (3rd subject token, metadata.owner)")
	name := flag.String("name", "triage", "instance name (4th subject token)")
	invalidFirst := flag.Bool("invalid-first", false, "answer the first prompt without the required severity")
	flag.Parse()
	if err := run(*url, *agent, *owner, *name, *invalidFirst); err != nil {
		fmt.Fprintln(os.Stderr, "protoagent:", err)
		os.Exit(1)
	}
}

func run(url, agent, owner, name string, invalidFirst bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	nc, err := nats.Connect(url)
	if err != nil {
		return err
	}
	defer nc.Close()
	root := "agents." + agent + "." + owner + "." + name
	svc, err := micro.AddService(nc, micro.Config{
		// nats.go's micro rejects the space of "Synadia Agents"; the
		// protocol treats SynadiaAgents as the same name (its section 3.1).
		Name: "SynadiaAgents", Version: "0.1.0", Description: "protoagent: a toy triage agent",
		Metadata: map[string]string{"agent": agent, "owner": owner, "session": name, "protocol_version": "0.1"},
	})
	if err != nil {
		return err
	}
	defer func() { _ = svc.Stop() }()
	err = svc.AddEndpoint("prompt", micro.HandlerFunc(func(req micro.Request) { go answer(req, invalidFirst) }),
		micro.WithEndpointSubject(root),
		micro.WithEndpointMetadata(map[string]string{"max_payload": "1MB", "attachments_ok": "false"}))
	if err != nil {
		return err
	}
	slog.Info("protoagent serving", "subject", root, "id", svc.Info().ID)
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	for {
		hb, _ := json.Marshal(map[string]any{"agent": agent, "owner": owner, "session": name, "instance_id": svc.Info().ID,
			"ts": time.Now().UTC().Format(time.RFC3339), "interval_s": 30})
		_ = nc.Publish(root+".heartbeat", hb)
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// answer streams a triage report in three response chunks, after an ack.
func answer(req micro.Request, invalidFirst bool) {
	var env struct {
		Prompt string `json:"prompt"`
	}
	if json.Unmarshal(req.Data(), &env) != nil {
		env.Prompt = string(req.Data())
	}
	retry := strings.HasPrefix(env.Prompt, "<output-validation-error>")
	report := "```json\n{\"overview\": \"Nil dereference in the parser on empty input\", \"severity\": \"High\"}\n```"
	if invalidFirst && !retry {
		report = "```json\n{\"overview\": \"Nil dereference in the parser on empty input\"}\n```"
	}
	chunks := []string{`{"type":"status","data":"ack"}`}
	for _, part := range []string{"Here is my triage:\n", report[:30], report[30:]} {
		b, _ := json.Marshal(map[string]any{"type": "response", "data": part})
		chunks = append(chunks, string(b))
	}
	for _, c := range chunks {
		_ = req.Respond([]byte(c))
		time.Sleep(50 * time.Millisecond)
	}
	_ = req.Respond(nil)
}
