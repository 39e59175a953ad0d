package provider

// Document is an export as `GET /v1/agents/{name}/provider-schema` and
// `agentgate schema export` give it: the Result, the agent and schema it
// came from, and Request, the fragment of the provider's API request that
// carries the schema, ready to merge into one.
type Document struct {
	Agent    string `json:"agent"`
	SchemaID string `json:"schema_id"`
	*Result
	Request map[string]any `json:"request"`
}

// NewDocument wraps r for the agent and schema it was exported from.
func NewDocument(agent, schemaID string, r *Result) Document {
	d := Document{Agent: agent, SchemaID: schemaID, Result: r}
	switch r.Provider {
	case OpenAI:
		// Chat Completions' response_format (the Responses API takes the
		// same object under text.format, flattened).
		d.Request = map[string]any{"response_format": map[string]any{
			"type":        "json_schema",
			"json_schema": map[string]any{"name": agent, "strict": r.Strict, "schema": r.Schema},
		}}
	case Anthropic:
		d.Request = map[string]any{"output_config": map[string]any{
			"format": map[string]any{"type": "json_schema", "schema": r.Schema},
		}}
	}
	return d
}
