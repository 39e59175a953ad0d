package compat_test

import (
	"fmt"

	"github.com/agentgate/agentgate/schemas/compat"
)

func ExampleCompare() {
	oldDoc := `{"$id": "https://t.dev/s/1.0.0", "properties": {"level": {"enum": ["low", "high"]}}}`
	newDoc := `{"$id": "https://t.dev/s/1.1.0", "required": ["level"], "properties": {"level": {"enum": ["low", "high", "max"]}}}`
	r, err := compat.Compare([]byte(oldDoc), []byte(newDoc))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range r.Changes {
		fmt.Printf("%s %s breaking=%v: %s\n", c.Path, c.Keyword, c.Breaking, c.Message)
	}
	fmt.Println("versions ok:", r.OK())
	// Output:
	// $.level enum breaking=false: enum widened: "max" now allowed
	// $.level required breaking=true: optional member made required: outputs without it are refused
	// versions ok: false
}
