package handlers_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/router"
)

// memStore is a handlers.RunStore in memory, compare-and-set included.
type memStore struct {
	mu   sync.Mutex
	runs map[string]*contract.RunState
	revs map[string]uint64
}

func (s *memStore) Get(_ context.Context, id string) (*contract.RunState, uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.runs[id]
	if !ok {
		return nil, 0, nil
	}
	c := *st
	return &c, s.revs[id], nil
}

func (s *memStore) Put(_ context.Context, st *contract.RunState, rev uint64) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.revs[st.RunID] != rev {
		return 0, handlers.ErrStateConflict
	}
	c := *st
	s.runs[st.RunID], s.revs[st.RunID] = &c, rev+1
	return rev + 1, nil
}

// memPub records what is published.
type memPub struct {
	mu   sync.Mutex
	msgs map[string][]*message.Message
}

func (p *memPub) Publish(topic string, msgs ...*message.Message) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.msgs[topic] = append(p.msgs[topic], msgs...)
	return nil
}

func (p *memPub) Close() error { return nil }

// TestHandler_Submit decides attempts that did not come from the raw
// stream (a gated exchange): recorded and published like Handle's, an
// early verdict standing in for the pipeline's.
func TestHandler_Submit(t *testing.T) {
	t.Parallel()
	none := []contract.Normalization{}
	tests := []struct {
		name      string
		payload   string
		early     *handlers.Verdict
		want      contract.Outcome
		wantType  contract.ErrorType
		wantStage string
		status    contract.RunStatus
	}{
		{"valid", goodReview, nil, contract.OutcomeValid, "", "", contract.RunCompleted},
		{"invalid", badReview, nil, contract.OutcomeRetry, "", "", contract.RunRetryRequested},
		{"stopped on a prefix", `{"summary": "ok", "approval": "lgtm",`, &handlers.Verdict{Normalizations: none, Stage: "stream",
			Violations: []contract.Violation{{Path: "$.approval", Keyword: "enum", Message: "value must be one of ..."}}},
			contract.OutcomeRetry, "", "stream", contract.RunRetryRequested},
		{"upstream error", "", &handlers.Verdict{Normalizations: none, Incomplete: "error 500", FailType: contract.ErrUpstreamError},
			contract.OutcomeDLQ, contract.ErrUpstreamError, "", contract.RunFailed},
		{"idle", `{"summary"`, &handlers.Verdict{Normalizations: none, Incomplete: "no chunk"},
			contract.OutcomeDLQ, contract.ErrStreamIncomplete, "", contract.RunFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			store := &memStore{runs: map[string]*contract.RunState{}, revs: map[string]uint64{}}
			pub := &memPub{msgs: map[string][]*message.Message{}}
			h, err := handlers.NewProcessor(handlers.ProcessorConfig{Gate: newGate(t, 1<<20, 0), Store: store, Emitter: router.Outcomes{Publisher: pub}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = h.Close() })
			e := env("agent.output.raw.pr-reviewer", tt.payload, contract.HeaderRunID, "g-1", contract.HeaderAttempt, "1")
			e.Origin = handlers.Origin{}
			d, err := h.Submit(context.Background(), e, tt.early)
			if err != nil || d.Outcome != tt.want || d.ErrorType != tt.wantType {
				t.Fatalf("Submit = %s %s, %v; want %s %s", d.Outcome, d.ErrorType, err, tt.want, tt.wantType)
			}
			st, _, _ := store.Get(context.Background(), "g-1")
			if st == nil || st.Status != tt.status || st.Attempts != 1 {
				t.Errorf("run state %+v, want %s", st, tt.status)
			}
			msgs := pub.msgs["agent."+map[contract.Outcome]string{contract.OutcomeValid: "output.valid", contract.OutcomeRetry: "retry.requested",
				contract.OutcomeDLQ: "output.dlq"}[tt.want]+".pr-reviewer"]
			if len(msgs) != 1 || msgs[0].Metadata.Get(contract.HeaderOutcome) != string(tt.want) {
				t.Fatalf("published %v", pub.msgs)
			}
			if tt.wantStage != "" {
				var ev contract.RetryEvent
				if err := json.Unmarshal(msgs[0].Payload, &ev); err != nil || ev.Error.Stage != tt.wantStage {
					t.Errorf("retry stage %q, %v", ev.Error.Stage, err)
				}
			}
			// The same attempt again has its outcome already: nothing new.
			if d, err := h.Submit(context.Background(), e, tt.early); err != nil || d.Outcome != "" {
				t.Errorf("second Submit = %s, %v; want no outcome", d.Outcome, err)
			}
		})
	}
}
