package executor

import "context"

// Roles of a conversation's messages, as chat-completion APIs name them.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one turn of the conversation Run keeps with the model.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Model is the language model Run drives. Complete gets the whole
// conversation so far (system prompt first, then user and assistant turns
// in order; the slice is the caller's copy) and returns the model's answer
// as text, exactly as produced: Run submits it untouched and the gateway
// extracts and normalizes it. To decline, return a *ModelRefusal. Any other
// error ends the Run with that error, wrapped.
type Model interface {
	Complete(ctx context.Context, messages []Message) (string, error)
}

// ModelFunc adapts a function to Model.
type ModelFunc func(ctx context.Context, messages []Message) (string, error)

// Complete calls f.
func (f ModelFunc) Complete(ctx context.Context, messages []Message) (string, error) {
	return f(ctx, messages)
}
