package registry_test

import (
	"errors"
	"fmt"

	"github.com/agentgate/agentgate/registry"
)

// Check judges a new version against the registered ones under a
// compatibility level, as a registration does.
func ExampleCheck() {
	v1 := []byte(`{"$id":"https://example.com/schemas/answer/1.0.0","type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	v11 := []byte(`{"$id":"https://example.com/schemas/answer/1.1.0","type":"object","properties":{"text":{"type":"string"},"score":{"type":"number"}},"required":["text","score"]}`)
	err := registry.Check(registry.Backward, "https://example.com/schemas/answer", "1.1.0", v11,
		[]registry.Prior{{Version: "1.0.0", Doc: v1}})
	var ie *registry.IncompatibleError
	if errors.As(err, &ie) {
		for _, c := range ie.Changes {
			fmt.Println(c.Path, c.Keyword, c.Direction, "against", c.Against)
		}
	}
	// As 2.0.0 the same document starts a new line: accepted.
	fmt.Println(registry.Check(registry.Backward, "https://example.com/schemas/answer", "2.0.0", v11,
		[]registry.Prior{{Version: "1.0.0", Doc: v1}}))
	// Output:
	// $.score required backward against 1.0.0
	// <nil>
}
