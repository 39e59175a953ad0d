package executor_test

import (
	"encoding/base64"
	"fmt"

	"github.com/nats-io/nats.go"

	"github.com/agentgate/agentgate/executor"
)

func encode(sig []byte) string { return base64.RawURLEncoding.EncodeToString(sig) }

// A consumer of valid results checks each one against the gateway's public
// NKey before trusting it. The key is printed by `agentgate serve` at start
// ("outcomes are signed" public_key=U...) and by `nk -inkey gateway.nk
// -pubout`.
func ExampleVerify() {
	const gatewayKey = "UDXU4RCSJNZOIQHZNWXHXORDPRTGNJAHAHFRGZNEEJCPQTT2M7NLCNF4"
	handle := func(m *nats.Msg) {
		if err := executor.VerifyMsg(m, gatewayKey); err != nil {
			fmt.Println("dropped:", err)
			return
		}
		fmt.Println("trusted:", string(m.Data))
	}
	// A forged result, published by someone without the gateway's seed:
	handle(&nats.Msg{Subject: "agent.output.valid.pr-reviewer", Header: nats.Header{}, Data: []byte(`{}`)})
	// Output: dropped: executor: the outcome is not signed: agent.output.valid.pr-reviewer has no Outcome-Signature
}
