package runstate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/topology"
)

// Store is a handlers.RunStore on a key-value bucket.
type Store struct {
	kv jetstream.KeyValue
}

// New returns a Store on kv (see topology.Ensure for the bucket).
func New(kv jetstream.KeyValue) *Store { return &Store{kv: kv} }

// Get returns the run's state and its revision, or nil and 0 when the run
// is unknown.
func (s *Store) Get(ctx context.Context, runID string) (*contract.RunState, uint64, error) {
	e, err := s.kv.Get(ctx, contract.RunKey(runID))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("runstate: get %q: %w", runID, err)
	}
	var rec record
	if err := json.Unmarshal(e.Value(), &rec); err != nil {
		return nil, 0, fmt.Errorf("runstate: decoding %q: %w", runID, err)
	}
	rec.RunState.InputStream, rec.RunState.InputSeq = legacyInput(rec.InputStream, rec.InputSeq)
	rec.RunState.OutcomeMsgID = rec.OutcomeMsgID
	return &rec.RunState, e.Revision(), nil
}

// legacyPartialBase is where the partial stream's sequences began in the
// records of agentgate before 25 November 2026, which named their input by
// a sequence alone (the raw stream's, or the partial stream's plus this).
const legacyPartialBase = 1 << 48

// legacyInput names a record's input by stream and sequence, also for a
// record written before inputs were named by their stream: a redelivery of
// that input, after an upgrade, is still known as one.
func legacyInput(stream string, seq uint64) (string, uint64) {
	switch {
	case stream != "" || seq == 0:
		return stream, seq
	case seq >= legacyPartialBase:
		return topology.StreamPartial, seq - legacyPartialBase
	default:
		return topology.StreamRaw, seq
	}
}

// Put writes st if the entry is still at revision (0: if it does not exist
// yet) and returns the entry's new revision, or contract.ErrStateConflict
// when it is not at revision.
func (s *Store) Put(ctx context.Context, st *contract.RunState, revision uint64) (uint64, error) {
	b, err := encodeRecord(st)
	if err != nil {
		return 0, fmt.Errorf("runstate: encoding %q: %w", st.RunID, err)
	}
	return casPutRev(ctx, s.kv, contract.RunKey(st.RunID), b, revision)
}

// casPut writes b under key if the entry is still at revision (0: if it
// does not exist yet), and returns contract.ErrStateConflict when it is not.
func casPut(ctx context.Context, kv jetstream.KeyValue, key string, b []byte, revision uint64) error {
	_, err := casPutRev(ctx, kv, key, b, revision)
	return err
}

// casPutRev is casPut, returning the entry's new revision.
func casPutRev(ctx context.Context, kv jetstream.KeyValue, key string, b []byte, revision uint64) (uint64, error) {
	var rev uint64
	var err error
	if revision == 0 {
		rev, err = kv.Create(ctx, key, b)
		if errors.Is(err, jetstream.ErrKeyExists) {
			return 0, fmt.Errorf("runstate: create %q: %w", key, contract.ErrStateConflict)
		}
	} else {
		rev, err = kv.Update(ctx, key, b, revision)
		// Replicated buckets report a revision conflict as key exists.
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) {
			return 0, fmt.Errorf("runstate: update %q: %w", key, contract.ErrStateConflict)
		}
	}
	if err != nil {
		return 0, fmt.Errorf("runstate: put %q: %w", key, err)
	}
	return rev, nil
}

// recordHead is a record without its outcome.
type recordHead struct {
	RunID        string             `json:"run_id"`
	AgentID      string             `json:"agent_id"`
	Status       contract.RunStatus `json:"status"`
	Attempts     int                `json:"attempts"`
	UpdatedAt    time.Time          `json:"updated_at"`
	Replays      []uint64           `json:"replays,omitempty"`
	InputStream  string             `json:"input_stream,omitempty"`
	InputSeq     uint64             `json:"input_seq,omitempty"`
	OutcomeMsgID string             `json:"outcome_msg_id,omitempty"`

	// BlueprintRevision: see contract.RunState.
	BlueprintRevision uint64 `json:"blueprint_revision,omitempty"`
}

// encodeRecord encodes st as a record. The outcome, the bulk of it, is
// spliced in as published rather than re-encoded: it is the gateway's own
// JSON, and encoding/json would validate and compact it again on every
// write.
func encodeRecord(st *contract.RunState) ([]byte, error) {
	head, err := json.Marshal(recordHead{
		RunID: st.RunID, AgentID: st.AgentID, Status: st.Status, Attempts: st.Attempts, UpdatedAt: st.UpdatedAt,
		Replays: st.Replays, InputStream: st.InputStream, InputSeq: st.InputSeq, OutcomeMsgID: st.OutcomeMsgID,
		BlueprintRevision: st.BlueprintRevision,
	})
	if err != nil {
		return nil, err
	}
	outcome := []byte(st.Outcome)
	if len(outcome) == 0 {
		outcome = []byte("null")
	}
	b := make([]byte, 0, len(head)+len(outcome)+12)
	b = append(b, head[:len(head)-1]...)
	b = append(b, `,"outcome":`...)
	b = append(b, outcome...)
	return append(b, '}'), nil
}

// record is a run's entry as stored: the state of the API plus what only
// the gateway needs.
type record struct {
	contract.RunState
	InputStream  string `json:"input_stream,omitempty"`
	InputSeq     uint64 `json:"input_seq,omitempty"`
	OutcomeMsgID string `json:"outcome_msg_id,omitempty"`
}
