package router_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/internal/natstest"
	"github.com/agentgate/agentgate/router"
)

// The unmarshaler never fails: a repeated header, which makes the stock one
// fail (and watermill-nats crash), is kept whole, and our own metadata keys
// cannot be set from outside.
func TestUnmarshaler_neverFails(t *testing.T) {
	t.Parallel()
	_, js := natstest.Connect(t, natstest.Server(t))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "T", Subjects: []string{"t.>"}})
	if err != nil {
		t.Fatal(err)
	}
	msg := nats.NewMsg("t.x")
	msg.Data = []byte("payload")
	msg.Header.Add("Run-Id", "a")
	msg.Header.Add("Run-Id", "b")
	msg.Header.Set("Session-Id", "s")
	msg.Header.Set(router.MetaSubject, "spoofed")
	msg.Header.Set(router.MetaRepeated, `{"Run-Id":["evil"]}`)
	if _, err := js.PublishMsg(ctx, msg); err != nil {
		t.Fatal(err)
	}
	c, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Next(jetstream.FetchMaxWait(5 * time.Second))
	if err != nil {
		t.Fatal(err)
	}

	m, err := router.Unmarshaler{}.Unmarshal(got)
	if err != nil || m == nil {
		t.Fatalf("Unmarshal = %v, %v", m, err)
	}
	if string(m.Payload) != "payload" || m.UUID != "seq-1" {
		t.Errorf("payload %q, uuid %q", m.Payload, m.UUID)
	}
	want := map[string]string{
		"Session-Id": "s", "Run-Id": "a", router.MetaSubject: "t.x", router.MetaStream: "T", router.MetaSeq: "1", router.MetaDelivered: "1",
	}
	for k, v := range want {
		if m.Metadata.Get(k) != v {
			t.Errorf("metadata %s = %q, want %q", k, m.Metadata.Get(k), v)
		}
	}
	var repeated map[string][]string
	if err := json.Unmarshal([]byte(m.Metadata.Get(router.MetaRepeated)), &repeated); err != nil {
		t.Fatal(err)
	}
	if len(repeated) != 1 || len(repeated["Run-Id"]) != 2 {
		t.Errorf("repeated = %v", repeated)
	}
	env := router.Envelope(m)
	if len(env.Headers["Run-Id"]) != 2 || env.Origin != (handlers.Origin{Subject: "t.x", Stream: "T", Seq: 1}) {
		t.Errorf("envelope = %+v", env)
	}
	if _, reason := handlers.ParseMeta(env); reason == "" {
		t.Error("an envelope with two Run-Ids was accepted")
	}
}
