package gateway

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nkeys"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/router"
)

// signingPublisher signs every message it publishes (contract section
// 3.5) before handing it to the next publisher.
type signingPublisher struct {
	next message.Publisher
	kp   nkeys.KeyPair
	pub  string
}

// loadSigner reads an NKey seed file (as written by nsc or nk, comments
// and decorations allowed).
func loadSigner(path string) (nkeys.KeyPair, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("%w: signing key: %w", ErrBadConfig, err)
	}
	kp, err := nkeys.ParseDecoratedNKey(b)
	if err != nil {
		return nil, "", fmt.Errorf("%w: signing key %s: %w", ErrBadConfig, path, err)
	}
	pub, err := kp.PublicKey()
	if err != nil {
		return nil, "", fmt.Errorf("%w: signing key %s: %w", ErrBadConfig, path, err)
	}
	if _, err := kp.Seed(); err != nil {
		return nil, "", fmt.Errorf("%w: signing key %s holds no seed (a public key cannot sign)", ErrBadConfig, path)
	}
	return kp, pub, nil
}

// Publish signs each message over topic (its subject), its signed headers
// and its payload, then publishes them.
func (p *signingPublisher) Publish(topic string, msgs ...*message.Message) error {
	for _, m := range msgs {
		if err := p.sign(topic, m); err != nil {
			return err
		}
	}
	return p.next.Publish(topic, msgs...)
}

// PublishSeq signs msg and publishes it through the next publisher's
// PublishSeq, so that the processor still learns where each outcome is
// stored (exactly once beyond the dedupe window, contract section 3).
func (p *signingPublisher) PublishSeq(ctx context.Context, topic string, msg *message.Message) (uint64, error) {
	sp, ok := p.next.(router.SeqPublisher)
	if !ok {
		return 0, fmt.Errorf("%w: the outcome publisher reports no stream sequence", ErrBadConfig)
	}
	if err := p.sign(topic, msg); err != nil {
		return 0, err
	}
	return sp.PublishSeq(ctx, topic, msg)
}

// sign sets msg's signature headers.
func (p *signingPublisher) sign(topic string, m *message.Message) error {
	sig, err := p.kp.Sign(contract.SigningInput(topic, m.Metadata.Get, m.Payload))
	if err != nil {
		return fmt.Errorf("signing the outcome on %s: %w", topic, err)
	}
	m.Metadata.Set(contract.HeaderOutcomeSignature, base64.RawURLEncoding.EncodeToString(sig))
	m.Metadata.Set(contract.HeaderOutcomeSigner, p.pub)
	return nil
}

// Close closes the next publisher.
func (p *signingPublisher) Close() error { return p.next.Close() }
