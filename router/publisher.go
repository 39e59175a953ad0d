package router

import (
	"context"
	"fmt"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// DefaultPublishTimeout bounds one outcome's publish, from the moment the
// call starts, when the caller gives no deadline.
const DefaultPublishTimeout = 10 * time.Second

// Publisher publishes outcomes to JetStream and reports where each was
// stored. watermill-nats' publisher waits for the server's acknowledgement
// with no deadline and drops the stream sequence it reports; the gateway
// needs a publish that cannot hang a worker, and the emitter reports the
// sequence of each outcome (the stored copy's, for a duplicate).
type Publisher struct {
	js      jetstream.JetStream
	timeout time.Duration
}

var (
	_ message.Publisher = (*Publisher)(nil)
	_ SeqPublisher      = (*Publisher)(nil)
)

// SeqPublisher is a message.Publisher that also reports the stream
// sequence a message was stored at (see handlers.Emitter).
type SeqPublisher interface {
	message.Publisher
	PublishSeq(ctx context.Context, topic string, msg *message.Message) (uint64, error)
}

// NewPublisher returns a Publisher on nc; timeout bounds each publish
// (default DefaultPublishTimeout).
func NewPublisher(nc *nats.Conn, timeout time.Duration) (*Publisher, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("router: publisher: %w", err)
	}
	if timeout <= 0 {
		timeout = DefaultPublishTimeout
	}
	return &Publisher{js: js, timeout: timeout}, nil
}

// Publish implements message.Publisher: each message in turn, each within
// the publish timeout.
func (p *Publisher) Publish(topic string, msgs ...*message.Message) error {
	for _, m := range msgs {
		if _, err := p.PublishSeq(context.Background(), topic, m); err != nil {
			return err
		}
	}
	return nil
}

// PublishSeq publishes msg (its metadata as headers; Nats-Msg-Id among them
// sets JetStream's de-duplication) and returns the stream sequence the
// server stored it at. The publish timeout starts now, and ctx may shorten
// it. A duplicate within the window returns the sequence of the copy
// already stored.
func (p *Publisher) PublishSeq(ctx context.Context, topic string, msg *message.Message) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	nm := nats.NewMsg(topic)
	nm.Data = msg.Payload
	for k, v := range msg.Metadata {
		nm.Header.Set(k, v)
	}
	ack, err := p.js.PublishMsg(ctx, nm)
	if err != nil {
		return 0, fmt.Errorf("publishing to %s: %w", topic, err)
	}
	return ack.Sequence, nil
}

// Close implements message.Publisher; the connection is the router's.
func (p *Publisher) Close() error { return nil }
