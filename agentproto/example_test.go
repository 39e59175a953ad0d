package agentproto_test

import (
	"fmt"

	"github.com/agentgate/agentgate/agentproto"
)

// A request is plain text or a JSON envelope (protocol section 5.3);
// relaying keeps the members agentgate does not know.
func ExampleParseEnvelope() {
	text, _ := agentproto.ParseEnvelope([]byte("Review this diff"))
	env, _ := agentproto.ParseEnvelope([]byte(`{"prompt": "Review this diff", "trace_id": "t-1"}`))
	env.Prompt += "\n\n## Required Output Format ..."
	_, err := agentproto.ParseEnvelope([]byte(`{"text": "no prompt"}`))
	fmt.Println(text.Prompt)
	fmt.Println(string(env.Encode()))
	fmt.Println(err)
	// Output:
	// Review this diff
	// {"prompt":"Review this diff\n\n## Required Output Format ...","trace_id":"t-1"}
	// agentproto: malformed request: no prompt string
}

// The prompt endpoint's max_payload (protocol section 2.1).
func ExampleParseSize() {
	n, _ := agentproto.ParseSize("512KB")
	fmt.Println(n, agentproto.FormatSize(n))
	// Output: 524288 512KB
}
