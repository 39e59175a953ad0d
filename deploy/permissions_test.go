package deploy_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/embedded"
	"github.com/agentgate/agentgate/executor"
	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/internal/natstest"
	"github.com/agentgate/agentgate/subjects"
	"github.com/agentgate/agentgate/topology"
)

const validReview = `{"summary": "Adds a bounded retry loop.", "approval": "approve", "comments": []}`

// TestPermissions_agentAttacksAreRefused runs the embedded server with
// deploy/nats/auth.conf (what `serve --auth` does) and a gateway that
// connects with its NKey, then tries, as the pr-reviewer agent, every
// attack an anonymous client could make before there were permissions.
func TestPermissions_agentAttacksAreRefused(t *testing.T) {
	sec := setSecrets(t)
	srv, err := embedded.Start(embedded.Config{Listen: "127.0.0.1:0", StoreDir: t.TempDir(), AuthFile: authFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	url := srv.ClientURL()
	g, _ := natstest.Gateway(t, srv, "../examples", func(c *gateway.Config) { c.NATS.NKey = sec.gatewaySeed })
	if g.SigningKey() != sec.gatewayPub {
		t.Fatalf("gateway signs with %q, want its NKey %q", g.SigningKey(), sec.gatewayPub)
	}

	if _, err := nats.Connect(url); err == nil {
		t.Fatal("an anonymous client connected")
	}
	agent := connectAs(t, url, "pr-reviewer", sec.passwords["pr-reviewer"])
	ajs, _ := jetstream.New(agent.Conn)
	op := connectAs(t, url, "operator", sec.passwords["operator"])
	ojs, _ := jetstream.New(op.Conn)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// What an agent must be able to do: submit and await its outcome
	// through the executor client, and verify the outcome's signature.
	client, err := executor.New(executor.Config{Conn: agent.Conn, GatewayURL: "http://" + g.HTTPAddr(), AwaitTimeout: 20 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := client.Watch(ctx, "pr-reviewer", "genuine-1", 1)
	if err != nil {
		t.Fatalf("agent cannot watch its run: %v", err)
	}
	defer w.Close()
	if _, err := client.Submit(ctx, "pr-reviewer", "genuine-1", 1, validReview); err != nil {
		t.Fatalf("agent cannot submit: %v", err)
	}
	o, err := w.Wait(ctx)
	if err != nil || o.Kind != contract.OutcomeValid {
		t.Fatalf("agent's outcome: %+v, %v", o, err)
	}

	count := func(stream string) uint64 {
		t.Helper()
		s, err := ojs.Stream(ctx, stream)
		if err != nil {
			t.Fatal(err)
		}
		return s.CachedInfo().State.Msgs
	}

	t.Run("publish a forged result", func(t *testing.T) {
		forged := nats.NewMsg(subjects.Valid("pr-reviewer"))
		forged.Header.Set(contract.HeaderRunID, "forged-1")
		forged.Header.Set(contract.HeaderOutcome, "valid")
		forged.Data = []byte(`{"event_type":"result","run_id":"forged-1"}`)
		if err := agent.PublishMsg(forged); err != nil {
			t.Fatal(err)
		}
		agent.refused(t, "Publish", subjects.Valid("pr-reviewer"))
		if err := executor.VerifyMsg(forged, sec.gatewayPub); err == nil {
			t.Error("a forged result verifies")
		}
	})
	t.Run("pre-publish the gateway's Nats-Msg-Id", func(t *testing.T) {
		pre := nats.NewMsg(subjects.Valid("pr-reviewer"))
		pre.Header.Set(contract.HeaderMsgID, contract.MsgID("genuine-2", 1, contract.OutcomeValid))
		pre.Data = []byte(`{}`)
		if _, err := ajs.PublishMsg(shortCtx(t), pre); err == nil {
			t.Fatal("published")
		}
		agent.refused(t, "Publish", subjects.Valid("pr-reviewer"))
		// The genuine outcome still gets stored.
		if _, err := client.Submit(ctx, "pr-reviewer", "genuine-2", 1, validReview); err != nil {
			t.Fatal(err)
		}
		if o, err := client.Await(ctx, "pr-reviewer", "genuine-2", 1); err != nil || o.Kind != contract.OutcomeValid {
			t.Fatalf("genuine outcome: %+v, %v", o, err)
		}
	})
	t.Run("write a run's state as completed", func(t *testing.T) {
		kv, err := ajs.KeyValue(ctx, topology.RunsBucket)
		if err != nil {
			t.Fatalf("agent cannot read run state: %v", err)
		}
		if _, err := kv.Put(shortCtx(t), contract.RunKey("genuine-3"), []byte(`{"status":"completed"}`)); err == nil {
			t.Fatal("put")
		}
		agent.refused(t, "Publish", "$KV."+topology.RunsBucket+"."+contract.RunKey("genuine-3"))
	})
	t.Run("pull and ack from the gateway's consumer", func(t *testing.T) {
		if _, err := ajs.Consumer(shortCtx(t), topology.StreamRaw, topology.GatewayConsumer); err == nil {
			t.Fatal("looked up the gateway's consumer")
		}
		next := "$JS.API.CONSUMER.MSG.NEXT." + topology.StreamRaw + "." + topology.GatewayConsumer
		if _, err := agent.Request(next, []byte(`{"batch":1}`), time.Second); err == nil {
			t.Fatal("pulled a message")
		}
		agent.refused(t, "Publish", next)
		ack := "$JS.ACK." + topology.StreamRaw + "." + topology.GatewayConsumer + ".1.1.1.0.0"
		_ = agent.Publish(ack, []byte("+ACK"))
		agent.refused(t, "Publish", ack)
	})
	t.Run("delete the gateway's consumer", func(t *testing.T) {
		if err := ajs.DeleteConsumer(shortCtx(t), topology.StreamRaw, topology.GatewayConsumer); err == nil {
			t.Fatal("deleted")
		}
		agent.refused(t, "Publish", "$JS.API.CONSUMER.DELETE."+topology.StreamRaw+"."+topology.GatewayConsumer)
		if _, err := ojs.Consumer(ctx, topology.StreamRaw, topology.GatewayConsumer); err != nil {
			t.Fatalf("the consumer is gone: %v", err)
		}
	})
	t.Run("purge or delete the dead letters", func(t *testing.T) {
		api := "$JS.API.STREAM.PURGE." + topology.StreamDLQ
		if _, err := agent.Request(api, nil, time.Second); err == nil {
			t.Fatal("purged")
		}
		agent.refused(t, "Publish", api)
		if err := ajs.DeleteStream(shortCtx(t), topology.StreamDLQ); err == nil {
			t.Fatal("deleted")
		}
		agent.refused(t, "Publish", "$JS.API.STREAM.DELETE."+topology.StreamDLQ)
	})
	t.Run("read every raw output", func(t *testing.T) {
		if _, err := agent.SubscribeSync(subjects.RawPrefix + ".>"); err != nil {
			t.Fatal(err)
		}
		agent.refused(t, "Subscription", subjects.RawPrefix+".>")
		if _, err := ajs.OrderedConsumer(shortCtx(t), topology.StreamRaw, jetstream.OrderedConsumerConfig{}); err == nil {
			t.Fatal("created a consumer on the raw stream")
		}
		get := "$JS.API.DIRECT.GET." + topology.StreamRaw
		if _, err := agent.Request(get, []byte(`{"seq":1}`), time.Second); err == nil {
			t.Fatal("direct get")
		}
		agent.refused(t, "Publish", get)
		if _, err := agent.SubscribeSync(subjects.Valid("code-analyzer")); err != nil {
			t.Fatal(err)
		}
		agent.refused(t, "Subscription", subjects.Valid("code-analyzer"))
	})
	t.Run("publish as another agent", func(t *testing.T) {
		_ = agent.Publish(subjects.Raw("code-analyzer"), []byte(validReview))
		agent.refused(t, "Publish", subjects.Raw("code-analyzer"))
	})

	t.Run("a consumer reads results and nothing else", func(t *testing.T) {
		cons := connectAs(t, url, "consumer", sec.passwords["consumer"])
		cjs, _ := jetstream.New(cons.Conn)
		s, err := cjs.Stream(ctx, topology.StreamValid)
		if err != nil {
			t.Fatalf("consumer cannot read the valid stream: %v", err)
		}
		c, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
		if err != nil {
			t.Fatal(err)
		}
		m, err := c.Next(jetstream.FetchMaxWait(5 * time.Second))
		if err != nil {
			t.Fatalf("consumer cannot fetch a result: %v", err)
		}
		if err := executor.Verify(m.Subject(), m.Headers(), m.Data(), sec.gatewayPub); err != nil {
			t.Errorf("stored result: %v", err)
		}
		for _, subj := range []string{subjects.Raw("pr-reviewer"), subjects.Valid("pr-reviewer")} {
			_ = cons.Publish(subj, []byte(`{}`))
			cons.refused(t, "Publish", subj)
		}
		if _, err := cjs.Stream(shortCtx(t), topology.StreamDLQ); err == nil {
			t.Error("consumer reads the dead letters")
		}
	})

	// Only the two genuine results are in the valid stream.
	waitFor(t, 5*time.Second, "two valid results", func() bool { return count(topology.StreamValid) == 2 })
	time.Sleep(100 * time.Millisecond) // a forged third would have landed by now
	if got := count(topology.StreamValid); got != 2 {
		t.Errorf("valid stream holds %d messages, want the 2 genuine ones", got)
	}
	if _, err := ojs.Stream(ctx, topology.StreamDLQ); err != nil {
		t.Errorf("dead-letter stream: %v", err)
	}
}
