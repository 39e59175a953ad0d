package executor_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/executor"
	"github.com/agentgate/agentgate/topology"
)

func TestSubmit_headers(t *testing.T) {
	t.Parallel()
	ag := withGateway(t)
	ctx := testCtx(t)
	tests := []struct {
		name    string
		attempt int
		opts    []executor.SubmitOption
		want    map[string]string // "" : absent
	}{
		{"plain", 1, nil, map[string]string{
			contract.HeaderRunID: "run-h-plain", contract.HeaderAttempt: "1",
			contract.HeaderSessionID: "", contract.HeaderOutputKind: "", contract.HeaderSchemaID: "",
		}},
		{"no attempt", 0, nil, map[string]string{contract.HeaderAttempt: ""}},
		{"options", 2, []executor.SubmitOption{
			executor.WithSessionID("sess-1"), executor.AsRefusal(), executor.WithSchemaID("urn:x"),
		}, map[string]string{
			contract.HeaderAttempt: "2", contract.HeaderSessionID: "sess-1",
			contract.HeaderOutputKind: contract.OutputKindRefusal, contract.HeaderSchemaID: "urn:x",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := "run-h-" + strings.ReplaceAll(tt.name, " ", "-")
			ack, err := ag.client.Submit(ctx, "pr-reviewer", run, tt.attempt, validReview, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if ack.Subject != "agent.output.raw.pr-reviewer" || ack.Stream != topology.StreamRaw || ack.Duplicate {
				t.Errorf("ack = %+v", ack)
			}
			s, err := ag.js.Stream(ctx, topology.StreamRaw)
			if err != nil {
				t.Fatal(err)
			}
			m, err := s.GetMsg(ctx, ack.Sequence)
			if err != nil {
				t.Fatal(err)
			}
			if string(m.Data) != validReview || m.Header.Get(contract.HeaderRunID) != run {
				t.Errorf("stored %q with Run-Id %q", m.Data, m.Header.Get(contract.HeaderRunID))
			}
			if m.Header.Get(contract.HeaderMsgID) != ack.MsgID || !strings.HasPrefix(ack.MsgID, "raw."+run+".") {
				t.Errorf("Nats-Msg-Id = %q, ack says %q", m.Header.Get(contract.HeaderMsgID), ack.MsgID)
			}
			for k, want := range tt.want {
				if k == contract.HeaderRunID {
					continue
				}
				if got := m.Header.Get(k); got != want {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
		})
	}
}

// The same output submitted twice for an attempt is stored once; a
// different output for it is not taken for a duplicate.
func TestSubmit_deduplicated(t *testing.T) {
	t.Parallel()
	ag := withGateway(t)
	ctx := testCtx(t)
	first, err := ag.client.Submit(ctx, "pr-reviewer", "run-dedup", 1, "\xff not utf-8")
	if err != nil {
		t.Fatal(err)
	}
	again, err := ag.client.Submit(ctx, "pr-reviewer", "run-dedup", 1, "\xff not utf-8")
	if err != nil {
		t.Fatal(err)
	}
	if !again.Duplicate || again.Sequence != first.Sequence || again.MsgID != first.MsgID {
		t.Errorf("second Submit = %+v, want a duplicate of %+v", again, first)
	}
	fixed, err := ag.client.Submit(ctx, "pr-reviewer", "run-dedup", 1, validReview)
	if err != nil {
		t.Fatal(err)
	}
	if fixed.Duplicate || fixed.MsgID == first.MsgID {
		t.Errorf("corrected output = %+v, taken for a duplicate", fixed)
	}
	// The corrected output is processed: invalid_encoding left the run as it was.
	o, err := ag.client.Await(ctx, "pr-reviewer", "run-dedup", 1)
	if err != nil || o.Kind != contract.OutcomeValid {
		t.Fatalf("Await = %+v, %v; want valid", o, err)
	}
}

func TestSubmit_invalidArgument(t *testing.T) {
	t.Parallel()
	ag := withGateway(t)
	ctx := testCtx(t)
	tests := []struct {
		name       string
		agent, run string
		attempt    int
		opts       []executor.SubmitOption
	}{
		{"agent with a dot", "a.b", "r", 1, nil},
		{"agent with a wildcard", "a*", "r", 1, nil},
		{"empty run", "a", "", 1, nil},
		{"negative attempt", "a", "r", -1, nil},
		{"session with a line break", "a", "r", 1, []executor.SubmitOption{executor.WithSessionID("s\r\nX: y")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ag.client.Submit(ctx, tt.agent, tt.run, tt.attempt, "x", tt.opts...)
			if !errors.Is(err, executor.ErrInvalidArgument) {
				t.Errorf("err = %v, want ErrInvalidArgument", err)
			}
		})
	}
}
