package runstate

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/contract"
)

// Summary is a run's state without its outcome: what a list of runs shows.
type Summary struct {
	RunID     string             `json:"run_id"`
	AgentID   string             `json:"agent_id"`
	Status    contract.RunStatus `json:"status"`
	Attempts  int                `json:"attempts"`
	UpdatedAt time.Time          `json:"updated_at"`
}

// List calls fn with the summary of every run the bucket holds, in no
// particular order, reading at most max entries (0: no bound); truncated is
// true when max cut the read short. An entry that does not decode is
// skipped: a list is a view, the run's own route reports the error.
func (s *Store) List(ctx context.Context, max int, fn func(Summary)) (truncated bool, err error) {
	w, err := s.kv.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return false, fmt.Errorf("runstate: listing runs: %w", err)
	}
	defer func() { _ = w.Stop() }()
	n := 0
	for {
		select {
		case <-ctx.Done():
			return false, fmt.Errorf("runstate: listing runs: %w", ctx.Err())
		case e, ok := <-w.Updates():
			if !ok || e == nil {
				return false, nil // nil marks the end of what the bucket held
			}
			if max > 0 && n == max {
				return true, nil
			}
			n++
			var h Summary
			if json.Unmarshal(e.Value(), &h) != nil || h.RunID == "" {
				continue
			}
			fn(h)
		}
	}
}
