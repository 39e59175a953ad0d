package test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/schemas"
)

// chunk publishes one chunk of a streamed output (contract section 8).
func (b *bus) chunk(run string, seq int, final bool, text string) {
	b.t.Helper()
	h := nats.Header{"Chunk-Seq": {strconv.Itoa(seq)}}
	if final {
		h.Set("Chunk-Final", "true")
	}
	b.publish(raw{subject: "agent.output.partial.pr-reviewer", run: run, payload: text, headers: h})
}

// A streamed output is assembled in Chunk-Seq order however its chunks
// arrive, duplicates included, and goes through the same pipeline.
func TestStream_assembledInOrder(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	startGateway(t, b)
	parts := []string{`{"summary": "Adds retries", `, `"approval": "Approve", `, `"review_comments": []}`}
	b.chunk("s-1", 2, true, parts[2])
	b.chunk("s-1", 0, false, parts[0])
	b.chunk("s-1", 2, true, parts[2]) // delivered twice
	b.chunk("s-1", 1, false, parts[1])
	o := b.awaitOutcomes("s-1", 1)[0]
	if o.Headers.Get(contract.HeaderOutcome) != "valid" || field(o.Body, "result_data", "approval") != "approve" {
		t.Fatalf("outcome: %s", o.Data)
	}
	b.awaitIdle()
	b.awaitState("s-1", contract.RunCompleted, 1)
	assertOneOutcomeEach(t, b, map[string]int{"s-1": 1})
}

// A prefix that can no longer become valid ends the attempt early with a
// retry request of stage "stream"; the rest of the stream changes nothing.
func TestStream_stoppedEarly(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	startGateway(t, b)
	b.chunk("s-2", 0, false, `{"summary": "Risky", "approval": "lgtm", `)
	o := b.awaitOutcomes("s-2", 1)[0]
	if o.Headers.Get(contract.HeaderOutcome) != "retry" || field(o.Body, "error", "stage") != "stream" {
		t.Fatalf("outcome: %s", o.Data)
	}
	v := field(o.Body, "error", "violations").([]any)[0].(map[string]any)
	if v["path"] != "$.approval" || v["keyword"] != "enum" {
		t.Errorf("violation = %v", v)
	}
	b.chunk("s-2", 1, true, `"comments": []}`)
	b.awaitIdle()
	assertOneOutcomeEach(t, b, map[string]int{"s-2": 1})
	b.awaitState("s-2", contract.RunRetryRequested, 1)
}

// A stream whose final chunk never comes is dead-lettered as
// stream_incomplete once idle, with what came so far: kept as one raw
// output of the agent's (where a replay sends it), pointing at its latest
// chunk in the partial stream.
func TestStream_incompleteIsDeadLettered(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	startGateway(t, b, func(c *gateway.Config) { c.StreamIdle = 300 * time.Millisecond })
	b.chunk("s-3", 0, false, `{"summary": "Half`)
	o := b.awaitOutcomes("s-3", 1)[0]
	if o.Subject != "agent.output.dlq.pr-reviewer" || field(o.Body, "error", "type") != "stream_incomplete" ||
		field(o.Body, "raw", "payload") != `{"summary": "Half` {
		t.Fatalf("outcome on %s: %s", o.Subject, o.Data)
	}
	// The bus's only chunk is the partial stream's first message.
	if field(o.Body, "raw", "subject") != "agent.output.raw.pr-reviewer" || field(o.Body, "raw", "stream") != "AGENT_OUTPUT_PARTIAL" ||
		field(o.Body, "raw", "seq") != float64(1) {
		t.Errorf("raw: %s", o.Data)
	}
	b.awaitState("s-3", contract.RunFailed, 1)
}

// The chunks received so far survive a restart of the gateway.
func TestStream_survivesRestart(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	first := startGateway(t, b)
	b.chunk("s-4", 0, false, `{"summary": "ok", "approval": "approve", `)
	b.awaitIdle()
	first.stop()
	startGateway(t, b)
	b.chunk("s-4", 1, true, `"comments": []}`)
	if o := b.awaitOutcomes("s-4", 1)[0]; o.Headers.Get(contract.HeaderOutcome) != "valid" {
		t.Fatalf("outcome: %s", o.Data)
	}
}

// A chunk without a usable Chunk-Seq is an invalid_envelope dead letter.
func TestStream_badChunkIsDeadLettered(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	startGateway(t, b)
	b.publish(raw{subject: "agent.output.partial.pr-reviewer", run: "s-5", payload: `{"summary":`,
		headers: nats.Header{"Chunk-Seq": {"first"}}})
	o := b.awaitOutcomes("s-5", 1)[0]
	if field(o.Body, "error", "type") != "invalid_envelope" || field(o.Body, "raw", "subject") != "agent.output.partial.pr-reviewer" {
		t.Fatalf("outcome: %s", o.Data)
	}
}

// A stream stopped early whose retry request was recorded but not
// published (publishing failed once) gets it published on the retry, once,
// even when a later chunk arrives in between.
func TestStream_stopRepublishedAfterAFailedPublish(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	reg, err := schemas.Load(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	b.startRouter(reg, nil, func(p message.Publisher) message.Publisher {
		return &failFirstPublish{Publisher: p, failed: map[string]bool{}}
	})
	b.chunk("s-6", 0, false, `{"summary": "Risky", "approval": "lgtm", `)
	b.chunk("s-6", 1, false, `"comments": [`)
	o := b.awaitOutcomes("s-6", 1)[0]
	if o.Headers.Get(contract.HeaderOutcome) != "retry" || field(o.Body, "error", "stage") != "stream" {
		t.Fatalf("outcome: %s", o.Data)
	}
	b.chunk("s-6", 2, true, `]}`)
	b.awaitIdle()
	assertOneOutcomeEach(t, b, map[string]int{"s-6": 1})
}

// A character split between two chunks arrives whole.
func TestStream_utf8SplitAcrossChunks(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	startGateway(t, b)
	doc := `{"summary": "café au lait", "approval": "approve", "comments": []}`
	cut := strings.Index(doc, "é") + 1 // inside the two bytes of é
	b.chunk("s-7", 0, false, doc[:cut])
	b.chunk("s-7", 1, true, doc[cut:])
	o := b.awaitOutcomes("s-7", 1)[0]
	if o.Headers.Get(contract.HeaderOutcome) != "valid" || field(o.Body, "result_data", "summary") != "café au lait" {
		t.Fatalf("outcome: %s", o.Data)
	}
}

// Chunks without an Attempt header belong to the run's next expected
// attempt: the answer to a retry request is streamed as attempt 2.
func TestStream_nextAttemptWithoutHeader(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	startGateway(t, b)
	b.chunk("s-8", 0, false, `{"summary": "x", "approval": "lgtm", `)
	b.awaitOutcomes("s-8", 1)
	b.awaitState("s-8", contract.RunRetryRequested, 1)
	b.chunk("s-8", 0, false, `{"summary": "x", "approval": "approve", `)
	b.chunk("s-8", 1, true, `"comments": []}`)
	b.awaitState("s-8", contract.RunCompleted, 2)
	assertOneOutcomeEach(t, b, map[string]int{"s-8": 2})
}

// An expired stream goes through the gate's precedence: an attempt beyond
// the run's allowance is attempts_exhausted and leaves the state alone.
func TestStream_expiryKeepsPrecedence(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	startGateway(t, b, func(c *gateway.Config) { c.StreamIdle = 300 * time.Millisecond })
	b.publish(raw{subject: "agent.output.partial.pr-reviewer", run: "s-9", attempt: 9, payload: `{"sum`,
		headers: nats.Header{"Chunk-Seq": {"0"}}})
	o := b.awaitOutcomes("s-9", 1)[0]
	if field(o.Body, "error", "type") != "attempts_exhausted" {
		t.Fatalf("outcome: %s", o.Data)
	}
	if st := b.runState("s-9"); st != nil {
		t.Errorf("run state changed: %s", st.Status)
	}
}
