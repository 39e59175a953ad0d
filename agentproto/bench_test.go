package agentproto_test

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agentgate/agentgate/internal/agenttest"
)

// BenchmarkExchange measures one prompt's round trip, from request to
// terminator, to the scripted agent directly and through its gated twin
// (a valid answer in three chunks: the twin adds the pipeline, the run
// state write and the outcome publish). Run:
//
//	go test ./agentproto -run '^$' -bench Exchange -benchtime 2s
func BenchmarkExchange(b *testing.B) {
	turn := agenttest.Turn{{Ack: true}, {Response: validDoc[:20]}, {Response: validDoc[20:]}}
	e := withTwins(b, []upstream{{blueprint: "gated-bench", agent: scripted("bench", turn)}})
	gated := "agents.gate.test.bench"
	direct := "agents.scripted.test.bench"
	for _, c := range []struct{ name, subject string }{{"direct", direct}, {"gated", gated}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if !roundTrip(b, e.nc, c.subject) {
					b.Fatal("no terminator")
				}
			}
		})
	}
}

// roundTrip sends one prompt and reads to the terminator.
func roundTrip(b *testing.B, nc *nats.Conn, subject string) bool {
	inbox := nc.NewInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := nc.PublishRequest(subject, inbox, []byte("review")); err != nil {
		b.Fatal(err)
	}
	for {
		m, err := sub.NextMsg(10 * time.Second)
		if err != nil {
			return false
		}
		if len(m.Data) == 0 && len(m.Header) == 0 {
			return true
		}
	}
}
