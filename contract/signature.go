package contract

import "encoding/binary"

// Outcome signature headers (section 3.5). The gateway signs every outcome
// it publishes when it has an NKey seed; a consumer checks the signature
// against the gateway's public key it trusts (executor.Verify).
const (
	// HeaderOutcomeSignature is the Ed25519 signature of SigningInput,
	// base64url without padding.
	HeaderOutcomeSignature = "Outcome-Signature"
	// HeaderOutcomeSigner is the public NKey (U...) the signature was made
	// with. It tells which key to check against; it is trusted only if the
	// consumer trusts that key.
	HeaderOutcomeSigner = "Outcome-Signer"
)

// SignatureDomain starts every signing input, so that a signature made for
// an outcome can never pass for a signature of anything else.
const SignatureDomain = "agentgate-outcome-signature/v1"

// SignedHeaders are the headers an outcome signature covers, in order.
var SignedHeaders = []string{HeaderRunID, HeaderAgentID, HeaderAttempt, HeaderOutcome, HeaderMsgID}

// SigningInput is what an outcome signature covers: SignatureDomain, the
// subject, the value of each of SignedHeaders ("" when absent) and the
// payload, each preceded by its length as 4 bytes big-endian, so that no
// two different messages share an input.
func SigningInput(subject string, header func(name string) string, payload []byte) []byte {
	parts := make([][]byte, 0, 3+len(SignedHeaders))
	parts = append(parts, []byte(SignatureDomain), []byte(subject))
	for _, h := range SignedHeaders {
		parts = append(parts, []byte(header(h)))
	}
	parts = append(parts, payload)
	n := 0
	for _, p := range parts {
		n += 4 + len(p)
	}
	buf := make([]byte, 0, n)
	for _, p := range parts {
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(p)))
		buf = append(buf, p...)
	}
	return buf
}
