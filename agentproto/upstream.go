package agentproto

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agentgate/agentgate/contract"
)

// DefaultIdle is the per-stream inactivity timeout of section 6.6.
const DefaultIdle = 60 * time.Second

// endKind says how an upstream stream ended.
type endKind int

const (
	// endComplete: the terminator came.
	endComplete endKind = iota
	// endStopped: the prefix could no longer become valid (section 8's
	// early stop); the subscription was dropped.
	endStopped
	// endIdle: no chunk within the inactivity timeout.
	endIdle
	// endError: an error-headered message (section 9), or a stream that
	// broke the protocol.
	endError
	// endNoResponders: nobody serves the prompt subject.
	endNoResponders
	// endTooLarge: the response outgrew the payload limit.
	endTooLarge
	// endCanceled: agentgate is shutting down.
	endCanceled
)

// streamEnd is what one upstream stream produced.
type streamEnd struct {
	kind endKind
	// text is the concatenated response text.
	text []byte
	// violations are the prefix's, for endStopped.
	violations []contract.Violation
	// code, description and body are the upstream error's, for endError.
	code        int
	description string
	body        []byte
}

// stream is one prompt to the upstream agent and the reading of its
// response stream.
type stream struct {
	nc       *nats.Conn
	idle     time.Duration
	maxBytes int
	// judge returns the violations that rule the prefix out, or nil.
	judge func(prefix []byte) []contract.Violation
	// relay sends a chunk (status ack or rewritten query) to the caller.
	relay func(chunk []byte)
	// queries keeps the subscriptions of relayed queries, dropped when the
	// exchange ends.
	queries *queries
}

// run publishes body to subject and reads the stream until it ends.
func (s *stream) run(ctx context.Context, subject string, body []byte) streamEnd {
	inbox := s.nc.NewRespInbox()
	sub, err := s.nc.SubscribeSync(inbox)
	if err != nil {
		return streamEnd{kind: endError, code: CodeInternal, description: "subscribing: " + err.Error()}
	}
	// Dropping the subscription is the protocol's cancellation (section
	// 6.7): whatever the agent still sends is discarded by the server.
	defer func() { _ = sub.Unsubscribe() }()
	if err := s.nc.PublishMsg(&nats.Msg{Subject: subject, Reply: inbox, Data: body}); err != nil {
		return streamEnd{kind: endError, code: CodeInternal, description: "publishing the prompt: " + err.Error()}
	}
	var text []byte
	for {
		wctx, cancel := context.WithTimeout(ctx, s.idle)
		msg, err := sub.NextMsgWithContext(wctx)
		cancel()
		switch {
		case err != nil && ctx.Err() != nil:
			return streamEnd{kind: endCanceled, text: text}
		case errors.Is(err, nats.ErrNoResponders):
			return streamEnd{kind: endNoResponders}
		case err != nil && errors.Is(err, context.DeadlineExceeded):
			return streamEnd{kind: endIdle, text: text}
		case err != nil:
			return streamEnd{kind: endError, text: text, code: CodeInternal, description: "reading the stream: " + err.Error()}
		}
		if msg.Header.Get("Status") == "503" && len(msg.Data) == 0 {
			return streamEnd{kind: endNoResponders}
		}
		if code := msg.Header.Get(HeaderErrorCode); code != "" {
			n, _ := strconv.Atoi(code)
			return streamEnd{kind: endError, text: text, code: n, description: msg.Header.Get(HeaderError), body: msg.Data}
		}
		if len(msg.Data) == 0 {
			// The terminator (section 6.5).
			return streamEnd{kind: endComplete, text: text}
		}
		var c Chunk
		if err := json.Unmarshal(msg.Data, &c); err != nil || c.Type == "" {
			return streamEnd{kind: endError, text: text, code: CodeInternal,
				description: "the agent sent a chunk that is not a typed JSON object (section 6.2)"}
		}
		switch c.Type {
		case ChunkResponse:
			t, err := ResponseText(c.Data)
			if err != nil {
				return streamEnd{kind: endError, text: text, code: CodeInternal, description: "the agent sent a bad response chunk: " + err.Error()}
			}
			text = append(text, t...)
			if len(text) > s.maxBytes {
				return streamEnd{kind: endTooLarge, text: text}
			}
			if s.judge != nil {
				if vs := s.judge(text); len(vs) > 0 {
					return streamEnd{kind: endStopped, text: text, violations: vs}
				}
			}
		case ChunkStatus:
			var v string
			if json.Unmarshal(c.Data, &v) == nil && v == StatusAck {
				s.relay(msg.Data)
			}
		case ChunkQuery:
			if out, ok := s.queries.relay(s.nc, c.Data); ok {
				s.relay(out)
			}
		}
		// Unknown chunk types are ignored (section 6.6).
	}
}

// queries relays mid-stream queries (section 7): each upstream query is
// passed to the caller with a reply subject of agentgate's own, whose one
// answer is forwarded to the upstream agent's reply subject.
type queries struct {
	mu   sync.Mutex
	subs []*nats.Subscription
}

// relay subscribes the caller-facing reply subject of a query and returns
// the query chunk to send the caller: the upstream's data with only
// reply_subject replaced, so that unknown members are preserved. A query
// without a reply_subject string is not relayed.
func (q *queries) relay(nc *nats.Conn, data json.RawMessage) ([]byte, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return nil, false
	}
	var upstreamReply string
	if json.Unmarshal(obj["reply_subject"], &upstreamReply) != nil || upstreamReply == "" {
		return nil, false
	}
	inbox := nc.NewInbox()
	sub, err := nc.Subscribe(inbox, func(m *nats.Msg) {
		_ = nc.PublishMsg(&nats.Msg{Subject: upstreamReply, Data: m.Data, Header: m.Header})
	})
	if err != nil {
		return nil, false
	}
	_ = sub.AutoUnsubscribe(1)
	q.mu.Lock()
	q.subs = append(q.subs, sub)
	q.mu.Unlock()
	obj["reply_subject"], _ = json.Marshal(inbox)
	return encode(map[string]any{"type": ChunkQuery, "data": obj}), true
}

// close drops every relayed query's subscription still open.
func (q *queries) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, s := range q.subs {
		_ = s.Unsubscribe()
	}
	q.subs = nil
}

// String names an end for logs and dead letters.
func (e streamEnd) String() string {
	switch e.kind {
	case endComplete:
		return "complete"
	case endStopped:
		return "stopped early"
	case endIdle:
		return "idle"
	case endError:
		return fmt.Sprintf("error %d %s", e.code, e.description)
	case endNoResponders:
		return "no responders"
	case endTooLarge:
		return "too large"
	}
	return "canceled"
}
