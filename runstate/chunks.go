package runstate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/subjects"
	"github.com/agentgate/agentgate/topology"

	"github.com/nats-io/nats.go/jetstream"
)

// Chunks is a handlers.ChunkStore on a key-value bucket (see
// topology.ChunksBucket).
type Chunks struct {
	kv jetstream.KeyValue
}

// NewChunks returns a Chunks on kv.
func NewChunks(kv jetstream.KeyValue) *Chunks { return &Chunks{kv: kv} }

// Get returns a streamed attempt's chunks and revision, or nil and 0.
func (c *Chunks) Get(ctx context.Context, key string) (*contract.StreamState, uint64, error) {
	e, err := c.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("runstate: get chunks %q: %w", key, err)
	}
	var st contract.StreamState
	if err := json.Unmarshal(e.Value(), &st); err != nil {
		return nil, 0, fmt.Errorf("runstate: decoding chunks %q: %w", key, err)
	}
	// Kept before 25 November 2026, an attempt named neither the subject
	// its whole output counts as published to nor its stream.
	if st.Stream == "" {
		st.Stream = topology.StreamPartial
	}
	if st.Subject == "" && st.AgentID != "" {
		st.Subject = subjects.Raw(st.AgentID)
	}
	return &st, e.Revision(), nil
}

// Put writes st at revision (0: create), or returns contract.ErrStateConflict.
func (c *Chunks) Put(ctx context.Context, key string, st *contract.StreamState, revision uint64) error {
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("runstate: encoding chunks %q: %w", key, err)
	}
	return casPut(ctx, c.kv, key, b, revision)
}

// Keys lists the streamed attempts kept.
func (c *Chunks) Keys(ctx context.Context) ([]string, error) {
	keys, err := c.kv.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("runstate: listing chunks: %w", err)
	}
	return keys, nil
}

// Delete removes a streamed attempt's entry.
func (c *Chunks) Delete(ctx context.Context, key string) error {
	if err := c.kv.Delete(ctx, key); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return fmt.Errorf("runstate: delete chunks %q: %w", key, err)
	}
	return nil
}
