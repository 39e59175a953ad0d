package dlq_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/dlq"
	"github.com/agentgate/agentgate/internal/natstest"
	"github.com/agentgate/agentgate/runstate"
	"github.com/agentgate/agentgate/subjects"
	"github.com/agentgate/agentgate/topology"
)

// deadLetter publishes a dead letter of run for agent, as the gateway
// would, keeping payload as the raw output.
func deadLetter(t *testing.T, js jetstream.JetStream, agent, run, payload string) {
	t.Helper()
	ev := contract.FailedEvent{
		EventType: contract.EventFailed, RunID: run, AgentID: agent, Attempt: 1, Status: "failed",
		Error: contract.FailedError{Type: contract.ErrPayloadTooLarge, Message: "too large"},
		Raw: contract.RawMessage{Subject: subjects.Raw(agent), Headers: map[string][]string{contract.HeaderRunID: {run}, contract.HeaderMsgID: {"orig"}},
			Payload: &payload, Size: len(payload)},
		Timestamp: time.Now().UTC(),
	}
	data, _ := json.Marshal(ev)
	msg := nats.NewMsg(subjects.DLQ(agent))
	msg.Data = data
	if run != "" {
		msg.Header.Set(contract.HeaderRunID, run)
	}
	if _, err := js.PublishMsg(t.Context(), msg); err != nil {
		t.Fatal(err)
	}
}

func TestListGetReplay(t *testing.T) {
	srv := natstest.Server(t)
	_, js := natstest.Connect(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	kv, err := topology.Ensure(ctx, js, topology.StreamsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	store := runstate.New(kv)
	deadLetter(t, js, "a", "r1", "one")
	deadLetter(t, js, "b", "r2", "two")
	deadLetter(t, js, "a", "r3", "three")
	deadLetter(t, js, "a", "", "no run")

	tests := []struct {
		name     string
		q        dlq.Query
		wantRuns []string
		wantMore bool
	}{
		{"all", dlq.Query{}, []string{"r1", "r2", "r3", ""}, false},
		{"agent", dlq.Query{Agent: "a"}, []string{"r1", "r3", ""}, false},
		{"run", dlq.Query{Run: "r2"}, []string{"r2"}, false},
		{"page", dlq.Query{Limit: 2}, []string{"r1", "r2"}, true},
		{"next page", dlq.Query{After: 2, Limit: 2}, []string{"r3", ""}, false},
		{"past the end", dlq.Query{After: 10}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, more, err := dlq.List(ctx, js, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			var runs []string
			for _, l := range got {
				runs = append(runs, l.Event.RunID)
			}
			if len(runs) != len(tt.wantRuns) || more != tt.wantMore {
				t.Fatalf("runs %q more %v, want %q %v", runs, more, tt.wantRuns, tt.wantMore)
			}
			for i := range runs {
				if runs[i] != tt.wantRuns[i] {
					t.Fatalf("runs %q, want %q", runs, tt.wantRuns)
				}
			}
		})
	}

	if _, err := dlq.Get(ctx, js, 99); !errors.Is(err, dlq.ErrNotFound) {
		t.Errorf("Get(99) = %v, want ErrNotFound", err)
	}
	l1, err := dlq.Get(ctx, js, 1)
	if err != nil || l1.Event.RunID != "r1" {
		t.Fatalf("Get(1) = %+v, %v", l1, err)
	}
	noRun, _ := dlq.Get(ctx, js, 4)
	if err := dlq.Replayable(ctx, store, noRun); !errors.Is(err, dlq.ErrNotReplayable) {
		t.Errorf("a dead letter without a run: %v", err)
	}
	if err := dlq.Replayable(ctx, store, l1); err != nil {
		t.Errorf("a run without state: %v", err)
	}
	for _, st := range []contract.RunState{
		{RunID: "r1", Status: contract.RunCompleted, Attempts: 1},
		{RunID: "r1", Status: contract.RunFailed, Attempts: 1, Replays: []uint64{1}},
	} {
		_, rev, _ := store.Get(ctx, "r1")
		if _, err := store.Put(ctx, &st, rev); err != nil {
			t.Fatal(err)
		}
		if err := dlq.Replayable(ctx, store, l1); !errors.Is(err, dlq.ErrNotReplayable) {
			t.Errorf("run %s with replays %v: %v", st.Status, st.Replays, err)
		}
	}

	// A replay publishes the kept output with its headers, Replay-Of and
	// an id of its own: twice in a row, it is stored once.
	for range 2 {
		if _, err := dlq.Replay(ctx, js, l1); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := js.Stream(ctx, topology.StreamRaw)
	if err != nil {
		t.Fatal(err)
	}
	if n := raw.CachedInfo().State.Msgs; n != 1 {
		t.Fatalf("raw stream holds %d messages, want 1", n)
	}
	m, err := raw.GetLastMsgForSubject(ctx, subjects.Raw("a"))
	if err != nil {
		t.Fatal(err)
	}
	if string(m.Data) != "one" || m.Header.Get(contract.HeaderReplayOf) != "1" || m.Header.Get(contract.HeaderMsgID) != "replay-1" || m.Header.Get(contract.HeaderRunID) != "r1" {
		t.Errorf("replayed %q with headers %v", m.Data, m.Header)
	}
}
