package main

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/nats-io/nats.go/jetstream"
)

// storedOutcome is one outcome message read back from its stream.
type storedOutcome struct {
	outcome string // valid, retry, refused or dlq
	seq     uint64 // sequence in its stream
	ev      event
	data    []byte
}

// newStoredOutcome decodes m far enough to order and describe it; a message
// that is not JSON keeps its zero event and sorts first.
func newStoredOutcome(outcome string, m jetstream.Msg) storedOutcome {
	o := storedOutcome{outcome: outcome, data: m.Data()}
	if meta, err := m.Metadata(); err == nil {
		o.seq = meta.Sequence.Stream
	}
	_ = json.Unmarshal(m.Data(), &o.ev)
	return o
}

// orderOutcomes sorts outcomes read from several streams into the order
// they happened: by timestamp, and within each run by attempt (then
// timestamp and stream sequence), whatever the clocks of several gateways
// say. Each run keeps the places its outcomes took in time; only their
// order among those places follows the attempts.
func orderOutcomes(list []storedOutcome) {
	slices.SortStableFunc(list, func(a, b storedOutcome) int {
		return cmp.Or(a.ev.Timestamp.Compare(b.ev.Timestamp), cmp.Compare(a.ev.Attempt, b.ev.Attempt), cmp.Compare(a.seq, b.seq))
	})
	places := map[string][]int{}
	for i, o := range list {
		places[o.ev.RunID] = append(places[o.ev.RunID], i)
	}
	for _, idx := range places {
		if len(idx) < 2 {
			continue
		}
		run := make([]storedOutcome, len(idx))
		for j, i := range idx {
			run[j] = list[i]
		}
		slices.SortStableFunc(run, func(a, b storedOutcome) int { return cmp.Compare(a.ev.Attempt, b.ev.Attempt) })
		for j, i := range idx {
			list[i] = run[j]
		}
	}
}
