package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/subjects"
)

// Submitted acknowledges one Submit.
type Submitted struct {
	// Subject is where the output was published (agent.output.raw.<agent>).
	Subject string
	// MsgID is its Nats-Msg-Id (see Submit).
	MsgID string
	// Stream and Sequence locate it in JetStream.
	Stream   string
	Sequence uint64
	// Duplicate is true when JetStream already held this very output under
	// MsgID (a repeated Submit within the de-duplication window, default
	// 2 min): it was not stored, nor processed, again.
	Duplicate bool
}

// Submit publishes a raw output of agent for the run's attempt to
// agent.output.raw.<agent> and waits for JetStream's acknowledgement. The
// output is sent exactly as given; the gateway extracts and normalizes it.
//
// Headers: Run-Id, Attempt when attempt > 0 (0 lets the gateway take the
// run's next expected attempt), and with the options Session-Id
// (WithSessionID), Schema-Id (WithSchemaID) and Output-Kind: refusal
// (AsRefusal). The Nats-Msg-Id is derived from the run, the attempt and a
// digest of the output and those options, so a publish retried after a lost
// acknowledgement, or the same Submit repeated, is stored once, while a
// corrected output for the same attempt (after an invalid_encoding dead
// letter, say) is not mistaken for a duplicate.
//
// A publish without an acknowledgement is retried Config.PublishRetries
// times, each bounded by Config.RequestTimeout, all by ctx. It returns
// ErrInvalidArgument for a bad agent, run id, attempt or option value,
// without publishing.
func (c *Client) Submit(ctx context.Context, agent, runID string, attempt int, output string, opts ...SubmitOption) (*Submitted, error) {
	var o submitOptions
	for _, opt := range opts {
		opt.applySubmit(&o)
	}
	return c.submit(ctx, agent, runID, attempt, output, o)
}

func (c *Client) submit(ctx context.Context, agent, runID string, attempt int, output string, o submitOptions) (*Submitted, error) {
	if err := checkSubmit(agent, runID, attempt, o); err != nil {
		return nil, err
	}
	msg := nats.NewMsg(subjects.Raw(agent))
	msg.Data = []byte(output)
	for k, v := range o.headers(runID, attempt) {
		msg.Header.Set(k, v)
	}
	id := rawMsgID(runID, attempt, output, o)
	ack, err := c.publish(ctx, msg, id)
	if err != nil {
		return nil, fmt.Errorf("executor: submitting run %q attempt %d to %s: %w", runID, attempt, msg.Subject, err)
	}
	c.logger.DebugContext(ctx, "output submitted", "agent", agent, "run_id", runID, "attempt", attempt,
		"seq", ack.Sequence, "duplicate", ack.Duplicate)
	return &Submitted{Subject: msg.Subject, MsgID: id, Stream: ack.Stream, Sequence: ack.Sequence, Duplicate: ack.Duplicate}, nil
}

// publish publishes msg under id, retrying what a retry can fix.
func (c *Client) publish(ctx context.Context, msg *nats.Msg, id string) (*jetstream.PubAck, error) {
	backoff := 100 * time.Millisecond
	for try := 0; ; try++ {
		pctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
		ack, err := c.js.PublishMsg(pctx, msg, jetstream.WithMsgID(id))
		cancel()
		if err == nil {
			return ack, nil
		}
		if ctx.Err() != nil || try >= c.cfg.PublishRetries || !retryablePublish(err) {
			return nil, err
		}
		c.logger.DebugContext(ctx, "publish not acknowledged, retrying", "subject", msg.Subject, "msg_id", id, "err", err)
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, errors.Join(err, ctx.Err())
		case <-t.C:
		}
		backoff *= 2
	}
}

// retryablePublish reports whether a failed publish may succeed when sent
// again: no acknowledgement in time, or no stream answering yet (the
// gateway creates the streams; a stream leader may be moving).
func retryablePublish(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse)
}

func checkSubmit(agent, runID string, attempt int, o submitOptions) error {
	if err := checkAgent(agent); err != nil {
		return err
	}
	if err := checkRun(runID); err != nil {
		return err
	}
	if attempt < 0 {
		return fmt.Errorf("%w: attempt %d, want 0 (the run's next) or more", ErrInvalidArgument, attempt)
	}
	return errors.Join(checkHeader("session id", o.sessionID), checkHeader("schema id", o.schemaID))
}

// rawMsgID is the Nats-Msg-Id of a raw output: raw.<run>.<attempt>.<digest>,
// the digest covering everything the gateway reads from the message. It
// cannot collide with the gateway's outcome ids, which live in other streams
// anyway.
func rawMsgID(runID string, attempt int, output string, o submitOptions) string {
	h := sha256.New()
	for _, part := range []string{o.sessionID, o.schemaID, fmt.Sprint(o.refusal), output} {
		fmt.Fprintf(h, "%d:%s;", len(part), part)
	}
	return "raw." + runID + "." + itoa(attempt) + "." + hex.EncodeToString(h.Sum(nil)[:12])
}
