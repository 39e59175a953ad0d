package runstate_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/internal/natstest"
	"github.com/agentgate/agentgate/runstate"
	"github.com/agentgate/agentgate/topology"
)

func TestRunKey(t *testing.T) {
	t.Parallel()
	tests := []struct{ given, want string }{
		{"run-1", "run-1"},
		{"a.b_c=d", "a.b_c=d"},
		{"has space", "b64_aGFzIHNwYWNl"},
		{"trailing.", "b64_dHJhaWxpbmcu"},
		{"b64_x", "b64_YjY0X3g"},
		{"ünï", "b64_w7xuw68"},
	}
	for _, tt := range tests {
		if got := contract.RunKey(tt.given); got != tt.want {
			t.Errorf("RunKey(%q) = %q, want %q", tt.given, got, tt.want)
		}
	}
}

func newStore(t *testing.T) *runstate.Store {
	t.Helper()
	_, runs := newBuckets(t)
	return runstate.New(runs)
}

// newBuckets is a server with the contract's streams and buckets, and its
// run-state bucket.
func newBuckets(t *testing.T) (jetstream.JetStream, jetstream.KeyValue) {
	t.Helper()
	_, js := natstest.Connect(t, natstest.Server(t))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kv, err := topology.Ensure(ctx, js, topology.StreamsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return js, kv
}

func TestStore_compareAndSet(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	for _, id := range []string{"plain-run", "run with spaces & <html>", strings.Repeat("x", 256)} {
		st, rev, err := s.Get(ctx, id)
		if st != nil || rev != 0 || err != nil {
			t.Fatalf("%q: unknown run = %v, %d, %v", id, st, rev, err)
		}
		first := &contract.RunState{RunID: id, AgentID: "a", Status: contract.RunRetryRequested, Attempts: 1,
			Outcome: []byte(`{"retry_prompt":"<x>"}`)}
		created, err := s.Put(ctx, first, 0)
		if err != nil {
			t.Fatalf("%q: create: %v", id, err)
		}
		if _, err := s.Put(ctx, first, 0); !errors.Is(err, contract.ErrStateConflict) {
			t.Fatalf("%q: second create = %v, want ErrStateConflict", id, err)
		}
		got, rev, err := s.Get(ctx, id)
		if rev != created {
			t.Errorf("%q: Put returned revision %d, Get %d", id, created, rev)
		}
		if err != nil || got.RunID != id || got.Attempts != 1 || string(got.Outcome) != `{"retry_prompt":"<x>"}` {
			t.Fatalf("%q: Get = %+v, %v", id, got, err)
		}
		next := *got
		next.Status, next.Attempts = contract.RunCompleted, 2
		next.Replays, next.InputStream, next.InputSeq, next.OutcomeMsgID = []uint64{7}, "S", 42, id+".2.valid"
		if _, err := s.Put(ctx, &next, rev+5); !errors.Is(err, contract.ErrStateConflict) {
			t.Fatalf("%q: stale update = %v, want ErrStateConflict", id, err)
		}
		if _, err := s.Put(ctx, &next, rev); err != nil {
			t.Fatalf("%q: update: %v", id, err)
		}
		if got, _, _ := s.Get(ctx, id); got.Status != contract.RunCompleted || got.Attempts != 2 ||
			len(got.Replays) != 1 || got.Replays[0] != 7 || got.InputStream != "S" || got.InputSeq != 42 || got.OutcomeMsgID != id+".2.valid" ||
			string(got.Outcome) != `{"retry_prompt":"<x>"}` {
			t.Errorf("%q: after update = %+v", id, got)
		}
	}
}

// Records written before inputs were named by their stream (a sequence
// alone, the partial stream's offset by 1<<48) still name their input, so
// a redelivery after an upgrade is known as one; so do kept chunks.
func TestStore_legacyRecords(t *testing.T) {
	t.Parallel()
	js, runs := newBuckets(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	store := runstate.New(runs)
	for _, tt := range []struct {
		record     string
		wantStream string
		wantSeq    uint64
	}{
		{`{"run_id":"raw","agent_id":"a","status":"completed","attempts":1,"input_seq":7}`, topology.StreamRaw, 7},
		{`{"run_id":"partial","agent_id":"a","status":"completed","attempts":1,"input_seq":281474976710663}`, topology.StreamPartial, 7},
		{`{"run_id":"named","agent_id":"a","status":"completed","attempts":1,"input_stream":"S","input_seq":3}`, "S", 3},
		{`{"run_id":"none","agent_id":"a","status":"completed","attempts":1}`, "", 0},
	} {
		var head struct {
			RunID string `json:"run_id"`
		}
		if err := json.Unmarshal([]byte(tt.record), &head); err != nil {
			t.Fatal(err)
		}
		if _, err := runs.Create(ctx, contract.RunKey(head.RunID), []byte(tt.record)); err != nil {
			t.Fatal(err)
		}
		st, _, err := store.Get(ctx, head.RunID)
		if err != nil || st == nil || st.InputStream != tt.wantStream || st.InputSeq != tt.wantSeq {
			t.Errorf("%s: input %+v, %v; want %s %d", head.RunID, st, err, tt.wantStream, tt.wantSeq)
		}
	}

	kv, err := js.KeyValue(ctx, topology.ChunksBucket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Create(ctx, "old", []byte(`{"run_id":"r","agent_id":"pr-reviewer","attempt":1,"chunks":{},"final":-1}`)); err != nil {
		t.Fatal(err)
	}
	st, _, err := runstate.NewChunks(kv).Get(ctx, "old")
	if err != nil || st == nil || st.Subject != "agent.output.raw.pr-reviewer" || st.Stream != topology.StreamPartial {
		t.Errorf("old chunks = %+v, %v", st, err)
	}
}
