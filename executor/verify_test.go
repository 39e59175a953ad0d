package executor_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/executor"
	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/internal/natstest"
	"github.com/agentgate/agentgate/subjects"
)

// signedOutcome runs a gateway that signs with a fresh NKey, publishes a
// valid review and returns its outcome message and the gateway's key.
func signedOutcome(t *testing.T) (*nats.Msg, string) {
	t.Helper()
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := kp.Seed()
	pub, _ := kp.PublicKey()
	seedFile := filepath.Join(t.TempDir(), "gateway.nk")
	if err := os.WriteFile(seedFile, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := natstest.Server(t)
	g, _ := natstest.Gateway(t, srv, "../examples", func(c *gateway.Config) { c.SigningKey = seedFile })
	if g.SigningKey() != pub {
		t.Fatalf("gateway signs with %q, want %q", g.SigningKey(), pub)
	}
	nc, js := natstest.Connect(t, srv)
	sub, err := nc.SubscribeSync(subjects.Valid("pr-reviewer"))
	if err != nil {
		t.Fatal(err)
	}
	msg := nats.NewMsg(subjects.Raw("pr-reviewer"))
	msg.Header.Set(contract.HeaderRunID, "signed-1")
	msg.Data = []byte(validReview)
	if _, err := js.PublishMsg(testCtx(t), msg); err != nil {
		t.Fatal(err)
	}
	out, err := sub.NextMsg(20 * time.Second)
	if err != nil {
		t.Fatalf("no outcome: %v", err)
	}
	return out, pub
}

func TestVerify(t *testing.T) {
	out, pub := signedOutcome(t)
	other, _ := nkeys.CreateUser()
	otherPub, _ := other.PublicKey()

	clone := func(mutate func(m *nats.Msg)) *nats.Msg {
		m := &nats.Msg{Subject: out.Subject, Header: nats.Header{}, Data: append([]byte(nil), out.Data...)}
		for k, v := range out.Header {
			m.Header[k] = append([]string(nil), v...)
		}
		mutate(m)
		return m
	}
	tests := []struct {
		name    string
		msg     *nats.Msg
		trusted []string
		wantErr error
	}{
		{"genuine", out, []string{pub}, nil},
		{"genuine, one of several trusted keys", out, []string{otherPub, pub}, nil},
		{"payload changed", clone(func(m *nats.Msg) { m.Data[len(m.Data)-2] ^= 1 }), []string{pub}, executor.ErrBadSignature},
		{"moved to another agent's subject", clone(func(m *nats.Msg) { m.Subject = subjects.Valid("code-analyzer") }), []string{pub}, executor.ErrBadSignature},
		{"outcome header changed", clone(func(m *nats.Msg) { m.Header.Set(contract.HeaderOutcome, "dlq") }), []string{pub}, executor.ErrBadSignature},
		{"run changed", clone(func(m *nats.Msg) { m.Header.Set(contract.HeaderRunID, "other") }), []string{pub}, executor.ErrBadSignature},
		{"garbage signature", clone(func(m *nats.Msg) { m.Header.Set(contract.HeaderOutcomeSignature, "!!") }), []string{pub}, executor.ErrBadSignature},
		{"signature removed", clone(func(m *nats.Msg) { m.Header.Del(contract.HeaderOutcomeSignature) }), []string{pub}, executor.ErrUnsigned},
		{"signed by a key not trusted", out, []string{otherPub}, executor.ErrUntrustedSigner},
		{"no key trusted", out, nil, executor.ErrUntrustedSigner},
		{"forged with another key", clone(func(m *nats.Msg) {
			sig, _ := other.Sign(contract.SigningInput(m.Subject, m.Header.Get, m.Data))
			m.Header.Set(contract.HeaderOutcomeSignature, encode(sig))
			// The forger keeps the gateway's key as the signer.
		}), []string{pub}, executor.ErrBadSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := executor.VerifyMsg(tt.msg, tt.trusted...)
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("VerifyMsg = %v, want %v", err, tt.wantErr)
			}
		})
	}
}
