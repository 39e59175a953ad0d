// Package executor is the client side of agentgate for an agent executor:
// it publishes a model's raw output (Submit), waits for the gateway's
// verdict on it (Await), and drives the whole loop (Run): fetch the agent's
// enriched system prompt, call the model, submit its answer, and on a retry
// request send the retry prompt back to the model in the same conversation,
// until the output is valid, refused or dead-lettered.
//
// It owns the executor's half of the wire contract (headers, de-duplication
// ids, how an outcome is matched to a run and attempt) and the typed errors
// a caller branches on (*ValidationFailed, *Refused, *DeadLettered). It talks
// to the gateway only through NATS (subjects, the run-state bucket) and the
// HTTP API, and must not know about the pipeline: it never imports the
// handlers, schemas or gateway packages, and it knows no model vendor (a
// Model is any function from a conversation to an answer; see the openai
// subpackage for an OpenAI-compatible adapter).
package executor
