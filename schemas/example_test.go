package schemas_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentgate/agentgate/schemas"
)

func ExampleLoad() {
	reg, err := schemas.Load("testdata/good")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, b := range reg.Blueprints() {
		id := "(free text)"
		if b.OutputSchema != nil {
			id = b.OutputSchema.ID
		}
		fmt.Printf("%s: %s, %d attempts\n", b.Name, id, b.MaxAttempts())
	}
	// Output:
	// chat: (free text), 2 attempts
	// pr-reviewer: https://agentgate.dev/schemas/pr-review/1.0.0, 3 attempts
	// summarizer: urn:agentgate:inline:summarizer, 2 attempts
	// tooler: (free text), 2 attempts
}

func ExampleLoad_error() {
	_, err := schemas.Load("testdata/bad/typo-type")
	fmt.Println(err)
	// Output:
	// testdata/bad/typo-type/schemas/x.schema.json: schema does not conform to its meta-schema (2020-12): $.properties.a.type: value must match at least one of the allowed schemas: value must be one of "array", "boolean", "integer", "null", "number", "object", "string"; or expected array, got string
}

func ExampleSchema_Validate() {
	reg, err := schemas.Load("testdata/good")
	if err != nil {
		fmt.Println(err)
		return
	}
	s, _ := reg.Schema("https://agentgate.dev/schemas/pr-review/1.0.0")

	dec := json.NewDecoder(strings.NewReader(`{
		"summary": "Looks good",
		"approval": "approve",
		"comments": [{"file": "main.go", "severity": "critical", "body": "x"}],
		"note": "extra"
	}`))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range s.Validate(doc) {
		out, _ := json.Marshal(v)
		fmt.Println(string(out))
	}
	// Output:
	// {"path":"$.comments[0].line","keyword":"required","message":"missing required member \"line\""}
	// {"path":"$.comments[0].severity","keyword":"enum","expected":["nitpick","suggestion","concern","blocker"],"received":"critical","message":"value must be one of \"nitpick\", \"suggestion\", \"concern\", \"blocker\""}
	// {"path":"$.note","keyword":"additionalProperties","received":"extra","message":"member \"note\" is not allowed"}
}

func ExampleSchema_Resolve() {
	reg, err := schemas.Load("testdata/good")
	if err != nil {
		fmt.Println(err)
		return
	}
	s, _ := reg.Schema("https://agentgate.dev/schemas/pr-review/1.0.0")
	props := s.Doc["properties"].(map[string]any)
	reviewer := s.Resolve(props["reviewer"].(map[string]any))
	fmt.Println(reviewer["required"])
	// Output:
	// [name]
}

func ExampleLint() {
	report, err := schemas.Lint("testdata/bad/bp-unknown-schema")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range report.Findings {
		fmt.Printf("%s: %s: %s\n", f.File, f.Severity, f.Message)
	}
	fmt.Println(report.Errors(), "error(s)")
	// Output:
	// testdata/bad/bp-unknown-schema/agents/a.json: error: output_schema: unknown schema: no schema file declares $id "https://agentgate.dev/schemas/nope/1.0.0"
	// 1 error(s)
}
