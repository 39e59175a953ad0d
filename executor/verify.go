package executor

import (
	"encoding/base64"
	"fmt"
	"slices"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"github.com/agentgate/agentgate/contract"
)

// Verify checks that an outcome message was published by a gateway whose
// public NKey (U..., from `nk -inkey gateway.nk -pubout` or the gateway's
// start-up log) is one of trusted: its Outcome-Signature must be an Ed25519
// signature, by the key in Outcome-Signer, over the subject, the headers
// Run-Id, Agent-Id, Attempt, Outcome and Nats-Msg-Id, and the payload
// (contract section 3.5). Pass a core NATS message's Subject, Header and
// Data, or a JetStream message's Subject(), Headers() and Data().
//
// It returns ErrUnsigned when the message carries no signature,
// ErrUntrustedSigner when the signer is not in trusted (or trusted is
// empty), and ErrBadSignature when the signature does not match: the
// message was forged or changed on the way.
func Verify(subject string, header nats.Header, data []byte, trusted ...string) error {
	sig64, signer := header.Get(contract.HeaderOutcomeSignature), header.Get(contract.HeaderOutcomeSigner)
	if sig64 == "" || signer == "" {
		return fmt.Errorf("%w: %s has no %s", ErrUnsigned, subject, contract.HeaderOutcomeSignature)
	}
	if !slices.Contains(trusted, signer) {
		return fmt.Errorf("%w: %s signed by %s", ErrUntrustedSigner, subject, signer)
	}
	sig, err := base64.RawURLEncoding.DecodeString(sig64)
	if err != nil {
		return fmt.Errorf("%w: %s: signature is not base64url: %w", ErrBadSignature, subject, err)
	}
	kp, err := nkeys.FromPublicKey(signer)
	if err != nil {
		return fmt.Errorf("%w: %s: signer %q: %w", ErrUntrustedSigner, subject, signer, err)
	}
	if err := kp.Verify(contract.SigningInput(subject, header.Get, data), sig); err != nil {
		return fmt.Errorf("%w: %s (run %q)", ErrBadSignature, subject, header.Get(contract.HeaderRunID))
	}
	return nil
}

// VerifyMsg is Verify for a core NATS message.
func VerifyMsg(m *nats.Msg, trusted ...string) error {
	return Verify(m.Subject, m.Header, m.Data, trusted...)
}
