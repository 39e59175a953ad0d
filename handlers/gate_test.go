package handlers_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/router"
	"github.com/agentgate/agentgate/schemas"
)

const (
	goodReview = `{"summary": "ok", "approval": "approve", "comments": []}`
	badReview  = `{"summary": "ok", "approval": "lgtm", "comments": []}`
)

func newGate(t testing.TB, maxPayload, maxMessage int) *handlers.Gate {
	t.Helper()
	reg, err := schemas.Load("../examples")
	if err != nil {
		t.Fatalf("loading examples: %v", err)
	}
	g, err := handlers.NewGate(handlers.GateConfig{
		Registry: reg, MaxPayload: maxPayload, MaxMessage: maxMessage,
		Now: func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func env(subject string, payload string, kv ...string) handlers.Envelope {
	h := map[string][]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		h[kv[i]] = append(h[kv[i]], kv[i+1])
	}
	agent, _ := strings.CutPrefix(subject, "agent.output.raw")
	agent = strings.TrimPrefix(agent, ".")
	return handlers.Envelope{Agent: agent, Headers: h, Payload: []byte(payload),
		Origin: handlers.Origin{Subject: subject, Stream: "AGENT_OUTPUT_RAW", Seq: 7}}
}

// chunked is e as the assembled output of a streamed attempt, its origin a
// chunk in the partial stream.
func chunked(e handlers.Envelope) handlers.Envelope {
	e.Origin.Stream, e.Origin.Chunked = "AGENT_OUTPUT_PARTIAL", true
	return e
}

func TestGate_Decide(t *testing.T) {
	t.Parallel()
	g := newGate(t, 64, 0)
	const pr = "agent.output.raw.pr-reviewer"
	retrying := &contract.RunState{RunID: "r", AgentID: "pr-reviewer", Status: contract.RunRetryRequested, Attempts: 1}
	done := &contract.RunState{RunID: "r", AgentID: "pr-reviewer", Status: contract.RunCompleted, Attempts: 1}
	tests := []struct {
		name        string
		given       handlers.Envelope
		state       *contract.RunState
		wantOutcome contract.Outcome
		wantType    contract.ErrorType
		wantAttempt int
		wantMsgID   string
		wantSubject string
		wantStatus  contract.RunStatus // "" when the state is left alone
	}{
		{"valid", env(pr, goodReview, "Run-Id", "r"), nil,
			contract.OutcomeValid, "", 1, "r.1.valid", "agent.output.valid.pr-reviewer", contract.RunCompleted},
		{"invalid first attempt", env(pr, badReview, "Run-Id", "r"), nil,
			contract.OutcomeRetry, "", 1, "r.1.retry", "agent.retry.requested.pr-reviewer", contract.RunRetryRequested},
		{"invalid last attempt", env(pr, badReview, "Run-Id", "r"), retrying,
			contract.OutcomeDLQ, contract.ErrOutputSchemaValidationFailed, 2, "r.2.dlq", "agent.output.dlq.pr-reviewer", contract.RunFailed},
		{"refusal header", env(pr, "no", "Run-Id", "r", "Output-Kind", "refusal"), nil,
			contract.OutcomeRefused, "", 1, "r.1.refused", "agent.output.refused.pr-reviewer", contract.RunRefused},
		{"refusal object", env(pr, ` {"refusal": "no"} `, "Run-Id", "r"), nil,
			contract.OutcomeRefused, "", 1, "r.1.refused", "agent.output.refused.pr-reviewer", contract.RunRefused},
		{"refusal key among others is no refusal", env(pr, `{"refusal": "no", "x": 1}`, "Run-Id", "r"), nil,
			contract.OutcomeRetry, "", 1, "r.1.retry", "agent.retry.requested.pr-reviewer", contract.RunRetryRequested},
		{"already answered attempt", env(pr, goodReview, "Run-Id", "r", "Attempt", "1"), retrying,
			"", "", 1, "", "", ""},
		{"no attempt on a finished run: its last one, answered", env(pr, goodReview, "Run-Id", "r"), done,
			"", "", 1, "", "", ""},
		{"invalid envelope wins over unknown agent", env("agent.output.raw.nobody", goodReview), nil,
			contract.OutcomeDLQ, contract.ErrInvalidEnvelope, 0, "seq-7.dlq", "agent.output.dlq.nobody", ""},
		{"unknown agent wins over payload too large", env("agent.output.raw.nobody", strings.Repeat("x", 100), "Run-Id", "r"), nil,
			contract.OutcomeDLQ, contract.ErrUnknownAgent, 1, "r.1.dlq", "agent.output.dlq.nobody", contract.RunFailed},
		{"unknown schema", env("agent.output.raw.nobody", goodReview, "Run-Id", "r", "Schema-Id", "urn:x"), nil,
			contract.OutcomeDLQ, contract.ErrUnknownSchema, 1, "r.1.dlq", "agent.output.dlq.nobody", contract.RunFailed},
		{"payload too large wins over invalid encoding", env(pr, strings.Repeat("\xff", 100), "Run-Id", "r"), nil,
			contract.OutcomeDLQ, contract.ErrPayloadTooLarge, 1, "r.1.dlq", "agent.output.dlq.pr-reviewer", contract.RunFailed},
		{"invalid encoding wins over run already completed", env(pr, "\xff", "Run-Id", "r", "Attempt", "2"), done,
			contract.OutcomeDLQ, contract.ErrInvalidEncoding, 2, "r.2.dlq.seq-7", "agent.output.dlq.pr-reviewer", ""},
		{"run already completed wins over attempts exhausted", env(pr, goodReview[:10], "Run-Id", "r", "Attempt", "9"), done,
			contract.OutcomeDLQ, contract.ErrRunAlreadyCompleted, 9, "r.9.dlq.seq-7", "agent.output.dlq.pr-reviewer", ""},
		{"attempts exhausted", env(pr, "{}", "Run-Id", "r", "Attempt", "3"), nil,
			contract.OutcomeDLQ, contract.ErrAttemptsExhausted, 3, "r.3.dlq.seq-7", "agent.output.dlq.pr-reviewer", ""},
		// The partial stream counts from 1 too: a streamed attempt's dead
		// letter names its chunk apart from the raw output of the same
		// sequence.
		{"streamed attempts exhausted", chunked(env(pr, "{}", "Run-Id", "r", "Attempt", "3")), nil,
			contract.OutcomeDLQ, contract.ErrAttemptsExhausted, 3, "r.3.dlq.chunk-7", "agent.output.dlq.pr-reviewer", ""},
		{"streamed without a run", chunked(env(pr, "{}")), nil,
			contract.OutcomeDLQ, contract.ErrInvalidEnvelope, 0, "chunk-7.dlq", "agent.output.dlq.pr-reviewer", ""},
		{"schema by header for an agent without blueprint", env("agent.output.raw.adhoc", goodReview, "Run-Id", "r",
			"Schema-Id", "https://agentgate.dev/schemas/pr-review/1.0.0"), nil,
			contract.OutcomeValid, "", 1, "r.1.valid", "agent.output.valid.adhoc", contract.RunCompleted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := g.Decide(tt.given, tt.state)
			if d.Outcome != tt.wantOutcome || d.ErrorType != tt.wantType || d.Attempt != tt.wantAttempt ||
				d.MsgID != tt.wantMsgID || subjectOf(d) != tt.wantSubject {
				t.Fatalf("Decide = outcome %q type %q attempt %d id %q subject %q; want %q %q %d %q %q\n%s",
					d.Outcome, d.ErrorType, d.Attempt, d.MsgID, router.OutcomeSubject(d),
					tt.wantOutcome, tt.wantType, tt.wantAttempt, tt.wantMsgID, tt.wantSubject, d.Payload)
			}
			switch {
			case tt.wantStatus == "" && d.State != nil:
				t.Errorf("state changed to %+v", d.State)
			case tt.wantStatus != "" && (d.State == nil || d.State.Status != tt.wantStatus || d.State.Attempts != tt.wantAttempt):
				t.Errorf("state = %+v, want %s at attempt %d", d.State, tt.wantStatus, tt.wantAttempt)
			}
			if d.Outcome == "" {
				return
			}
			var body map[string]any
			if err := json.Unmarshal(d.Payload, &body); err != nil {
				t.Fatalf("payload is not JSON: %v", err)
			}
			if d.State != nil && string(d.State.Outcome) != string(d.Payload) {
				t.Errorf("state does not hold the published outcome")
			}
			h := d.Headers()
			if h["Outcome"] != string(d.Outcome) || h["Nats-Msg-Id"] != d.MsgID || h["Run-Id"] != d.RunID {
				t.Errorf("headers = %v", h)
			}
		})
	}
}

func TestGate_deadLetterTooLargeToCopy(t *testing.T) {
	t.Parallel()
	g := newGate(t, 1<<20, 4096)
	big := strings.Repeat("y", 8000)
	d := g.Decide(env("agent.output.raw.pr-reviewer", big, "Run-Id", "r", "Attempt", "5"), nil)
	var ev contract.FailedEvent
	if err := json.Unmarshal(d.Payload, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Error.Type != contract.ErrAttemptsExhausted || !ev.Raw.Omitted || ev.Raw.Payload != nil ||
		ev.Raw.Seq != 7 || ev.Raw.Stream == "" || ev.Raw.Size != 8000 || len(d.Payload) > 4096 {
		t.Errorf("dead letter = %+v (%d bytes)", ev.Raw, len(d.Payload))
	}
}

func TestGate_retryEvent(t *testing.T) {
	t.Parallel()
	g := newGate(t, 0, 0)
	d := g.Decide(env("agent.output.raw.pr-reviewer", badReview, "Run-Id", "r", "Session-Id", "s"), nil)
	var ev contract.RetryEvent
	if err := json.Unmarshal(d.Payload, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.NextAttempt != 2 || !ev.Error.Retryable || ev.Error.RawOutput != badReview || ev.SessionID == nil || *ev.SessionID != "s" ||
		len(ev.Error.Violations) != 1 || ev.Error.Violations[0].Path != "$.approval" {
		t.Errorf("retry event = %+v", ev)
	}
	if !strings.HasPrefix(ev.RetryPrompt, "<output-validation-error>\nYour output did not match the required schema.\n\n## Validation Errors\n- $.approval: ") ||
		!strings.HasSuffix(ev.RetryPrompt, "}\n```\n\nPlease provide output matching the schema exactly.\n</output-validation-error>") {
		t.Errorf("retry prompt:\n%s", ev.RetryPrompt)
	}
}

// A redelivered input whose outcome is recorded gets that outcome again
// (under the same Nats-Msg-Id), even without an Attempt header; another
// input for the answered attempt gets nothing.
func TestGate_redeliveryRepublishesTheRecordedOutcome(t *testing.T) {
	t.Parallel()
	g := newGate(t, 0, 0)
	first := g.Decide(env("agent.output.raw.pr-reviewer", badReview, "Run-Id", "r"), nil)
	if first.State == nil || first.State.InputSeq != 7 {
		t.Fatalf("state = %+v", first.State)
	}
	again := g.Decide(env("agent.output.raw.pr-reviewer", badReview, "Run-Id", "r"), first.State)
	if !again.Republish || again.Outcome != contract.OutcomeRetry || again.Attempt != 1 || again.MsgID != "r.1.retry" ||
		router.OutcomeSubject(again) != "agent.retry.requested.pr-reviewer" || string(again.Payload) != string(first.Payload) || again.State != nil ||
		!again.RecordedAt.Equal(first.State.UpdatedAt) {
		t.Errorf("redelivery = %+v", again)
	}
	// The same sequence in another stream is another input.
	elsewhere := env("agent.output.raw.pr-reviewer", badReview, "Run-Id", "r", "Attempt", "1")
	elsewhere.Origin.Stream = "AGENT_OUTPUT_PARTIAL"
	if d := g.Decide(elsewhere, first.State); d.Outcome != "" || d.Republish {
		t.Errorf("an input of another stream at the same sequence = %+v", d)
	}
	other := env("agent.output.raw.pr-reviewer", badReview, "Run-Id", "r", "Attempt", "1")
	other.Origin.Seq = 8
	if d := g.Decide(other, first.State); d.Outcome != "" {
		t.Errorf("another input for an answered attempt got %s", d.Outcome)
	}
	// Without an Attempt header a new input is the next attempt.
	next := env("agent.output.raw.pr-reviewer", goodReview, "Run-Id", "r")
	next.Origin.Seq = 9
	if d := g.Decide(next, first.State); d.Outcome != contract.OutcomeValid || d.Attempt != 2 || d.Republish {
		t.Errorf("next attempt = %+v", d)
	}
}

// A replayed dead letter reopens its run once: processed against the
// registry as it is now, recorded, and never twice. A Replay-Of that names
// no dead letter of this run and attempt is an invalid_envelope.
func TestGate_replayReopensTheRunOnce(t *testing.T) {
	t.Parallel()
	g := newGate(t, 0, 0)
	failed := &contract.RunState{RunID: "r", AgentID: "pr-reviewer", Status: contract.RunFailed, Attempts: 2}
	replayOf := func(payload, seq string, ref *contract.DeadLetterRef, kv ...string) handlers.Envelope {
		e := env("agent.output.raw.pr-reviewer", payload, append([]string{"Run-Id", "r", "Attempt", "2", "Replay-Of", seq}, kv...)...)
		e.Replayed = ref
		return e
	}
	dl41 := &contract.DeadLetterRef{Seq: 41, RunID: "r", Attempt: 2}
	dl42 := &contract.DeadLetterRef{Seq: 42, RunID: "r", Attempt: 2}

	replay := replayOf(goodReview, "41", dl41)
	replay.Origin.Seq = 100
	d := g.Decide(replay, failed)
	if d.Outcome != contract.OutcomeValid || d.Attempt != 2 || d.MsgID != "r.2.valid.replay-41" {
		t.Fatalf("replay = %q attempt %d id %q: %s", d.Outcome, d.Attempt, d.MsgID, d.Payload)
	}
	if d.State == nil || d.State.Status != contract.RunCompleted || len(d.State.Replays) != 1 || d.State.Replays[0] != 41 {
		t.Fatalf("state = %+v", d.State)
	}
	stillFailed := *failed
	stillFailed.Replays = []uint64{41}
	d4 := g.Decide(replayOf(badReview, "42", dl42), &stillFailed)
	if d4.Outcome != contract.OutcomeDLQ || d4.ErrorType != contract.ErrOutputSchemaValidationFailed || d4.MsgID != "r.2.dlq.replay-42" ||
		len(d4.State.Replays) != 2 {
		t.Errorf("replay still invalid = %q %q %q %+v", d4.Outcome, d4.ErrorType, d4.MsgID, d4.State)
	}

	refused := []struct {
		name  string
		given handlers.Envelope
		state *contract.RunState
	}{
		{"the same dead letter again", replayOf(goodReview, "41", dl41), &stillFailed},
		{"into a run that completed since", replayOf(badReview, "42", dl42), d.State},
		{"a dead letter the stream does not hold", replayOf(goodReview, "999", nil), failed},
		{"a dead letter of another run", replayOf(goodReview, "43", &contract.DeadLetterRef{Seq: 43, RunID: "other", Attempt: 2}), failed},
		{"a dead letter of another attempt", replayOf(goodReview, "44", &contract.DeadLetterRef{Seq: 44, RunID: "r", Attempt: 1}), failed},
		{"a run never seen", replayOf(goodReview, "41", dl41), nil},
		{"a sequence that is not the one looked up", replayOf(goodReview, "45", dl41), failed},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			d := g.Decide(tt.given, tt.state)
			if d.Outcome != contract.OutcomeDLQ || d.ErrorType != contract.ErrInvalidEnvelope || d.State != nil {
				t.Errorf("= %q %q state %+v: %s", d.Outcome, d.ErrorType, d.State, d.Payload)
			}
			if strings.Contains(d.MsgID, "replay") {
				t.Errorf("refused replay named as a replay: %s", d.MsgID)
			}
		})
	}
	// Without Replay-Of the finished run stays finished.
	plain := env("agent.output.raw.pr-reviewer", goodReview, "Run-Id", "r", "Attempt", "3")
	if d5 := g.Decide(plain, failed); d5.ErrorType != contract.ErrRunAlreadyCompleted {
		t.Errorf("plain new attempt on a failed run = %q", d5.ErrorType)
	}
	bad := env("agent.output.raw.pr-reviewer", goodReview, "Run-Id", "r", "Replay-Of", "x")
	if d6 := g.Decide(bad, failed); d6.ErrorType != contract.ErrInvalidEnvelope {
		t.Errorf("bad Replay-Of = %q", d6.ErrorType)
	}
}

// A finished run's recorded outcome stays the answer: no later dead letter
// changes its state, and a run stays with its agent.
func TestGate_finishedRunsAndAgentsAreKept(t *testing.T) {
	t.Parallel()
	g := newGate(t, 64, 0)
	done := &contract.RunState{RunID: "r", AgentID: "pr-reviewer", Status: contract.RunCompleted, Attempts: 1}
	big := env("agent.output.raw.pr-reviewer", strings.Repeat("x", 100), "Run-Id", "r", "Attempt", "2")
	if d := g.Decide(big, done); d.ErrorType != contract.ErrPayloadTooLarge || d.State != nil || d.MsgID != "r.2.dlq.seq-7" {
		t.Errorf("oversized attempt on a finished run: %q, state %v, id %q", d.ErrorType, d.State, d.MsgID)
	}
	other := env("agent.output.raw.code-analyzer", "{}", "Run-Id", "r", "Attempt", "2")
	if d := g.Decide(other, done); d.ErrorType != contract.ErrInvalidEnvelope || d.State != nil || !strings.Contains(string(d.Payload), "belongs to agent") {
		t.Errorf("another agent's output for the run: %q, state %v: %s", d.ErrorType, d.State, d.Payload)
	}
	// An invalid envelope still names the attempt it carried.
	noRun := env("agent.output.raw.pr-reviewer", "{}", "Attempt", "1")
	if d := g.Decide(noRun, nil); d.ErrorType != contract.ErrInvalidEnvelope || d.Attempt != 1 || d.MsgID != "seq-7.dlq" {
		t.Errorf("no Run-Id: %q attempt %d id %q", d.ErrorType, d.Attempt, d.MsgID)
	}
}

// An outcome that would not fit on the bus is a payload_too_large dead
// letter, not a publish that fails on every delivery.
func TestGate_outcomeTooLargeForTheBus(t *testing.T) {
	t.Parallel()
	g := newGate(t, 0, 2048)
	review := `{"summary": "` + strings.Repeat("long ", 300) + `", "approval": "approve", "comments": []}`
	d := g.Decide(env("agent.output.raw.pr-reviewer", review, "Run-Id", "r"), nil)
	if d.ErrorType != contract.ErrPayloadTooLarge || !strings.Contains(string(d.Payload), "over the bus's limit") || len(d.Payload) > 2048 {
		t.Fatalf("decision %q (%d bytes): %s", d.ErrorType, len(d.Payload), d.Payload)
	}
	if d.State == nil || d.State.Status != contract.RunFailed {
		t.Errorf("state = %+v", d.State)
	}
}

// A refusal member beside a valid document is recorded on the result, not
// dropped with the other extra members.
func TestGate_refusalBesideAValidDocument(t *testing.T) {
	t.Parallel()
	g := newGate(t, 0, 0)
	d := g.Decide(env("agent.output.raw.pr-reviewer",
		`{"summary": "ok", "approval": "approve", "comments": [], "refusal": "I will not review the secrets file."}`, "Run-Id", "r"), nil)
	if d.Outcome != contract.OutcomeValid {
		t.Fatalf("outcome %q: %s", d.Outcome, d.Payload)
	}
	var ev map[string]any
	if err := json.Unmarshal(d.Payload, &ev); err != nil {
		t.Fatal(err)
	}
	if ev["refusal"] != "I will not review the secrets file." {
		t.Errorf("refusal not recorded: %s", d.Payload)
	}
	if _, kept := ev["result_data"].(map[string]any)["refusal"]; kept {
		t.Errorf("refusal left in result_data: %s", d.Payload)
	}
	plain := g.Decide(env("agent.output.raw.pr-reviewer", goodReview, "Run-Id", "r2"), nil)
	if strings.Contains(string(plain.Payload), `"refusal"`) {
		t.Errorf("a plain result carries a refusal: %s", plain.Payload)
	}
}

// subjectOf is where the router sends d's outcome; "" when d has none.
func subjectOf(d handlers.Decision) string {
	if d.Outcome == "" {
		return ""
	}
	return router.OutcomeSubject(d)
}

// An inline schema that declares its own $id is named by schema_id
// urn:agentgate:inline:<agent> in outcomes, its $id beside it as
// declared_id, in results and validation errors alike (contract 3.1, 4).
func TestGate_declaredID(t *testing.T) {
	t.Parallel()
	reg, err := schemas.LoadFS(fstest.MapFS{"agents/own.json": {Data: []byte(`{"name": "own", "output_schema":
		{"$id": "https://example.com/own.json", "type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}}`)}})
	if err != nil {
		t.Fatal(err)
	}
	g, err := handlers.NewGate(handlers.GateConfig{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		payload string
		outcome contract.Outcome
		path    []string // where schema_id and declared_id sit
	}{
		{`{"a": "x"}`, contract.OutcomeValid, nil},
		{`{"a": 1}`, contract.OutcomeRetry, []string{"error"}},
	} {
		d := g.Decide(env("agent.output.raw.own", tt.payload, "Run-Id", "r"), nil)
		var body map[string]any
		if err := json.Unmarshal(d.Payload, &body); err != nil || d.Outcome != tt.outcome {
			t.Fatalf("%s: %s %s", tt.payload, d.Outcome, d.Payload)
		}
		at := body
		for _, p := range tt.path {
			at, _ = at[p].(map[string]any)
		}
		if at["schema_id"] != schemas.InlinePrefix+"own" || at["declared_id"] != "https://example.com/own.json" {
			t.Errorf("%s: schema_id %v, declared_id %v: %s", tt.payload, at["schema_id"], at["declared_id"], d.Payload)
		}
	}
}

// A whole retry prompt shows the schema as the model sees it: no $id, no
// x-aliases (the gateway's own renaming), the members and their rules.
func TestGate_retryPromptShowsTheModelSchema(t *testing.T) {
	t.Parallel()
	g := newGate(t, 64, 0)
	d := g.Decide(env("agent.output.raw.pr-reviewer", badReview, "Run-Id", "r"), nil)
	var retry contract.RetryEvent
	if err := json.Unmarshal(d.Payload, &retry); err != nil || d.Outcome != contract.OutcomeRetry {
		t.Fatalf("%s %s", d.Outcome, d.Payload)
	}
	p := retry.RetryPrompt
	for _, want := range []string{"## Required Schema", `"approval": {`, `"enum": [`} {
		if !strings.Contains(p, want) {
			t.Errorf("retry prompt lacks %s:\n%s", want, p)
		}
	}
	for _, gone := range []string{`"$id"`, "x-aliases", "review_summary"} {
		if strings.Contains(p, gone) {
			t.Errorf("retry prompt shows %s:\n%s", gone, p)
		}
	}
}
