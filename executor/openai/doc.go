// Package openai is an executor.Model for any server that speaks the
// OpenAI chat-completions HTTP API (POST {base}/chat/completions): OpenAI
// itself, and the compatible servers of other vendors and of local model
// runners (Ollama, vLLM, llama.cpp, LM Studio, ...).
//
// It owns the request and answer shapes of that API and nothing else: it
// knows no NATS and nothing of agentgate's contract beyond executor.Message
// and executor.ModelRefusal: it must never import NATS or any agentgate
// package but executor.
package openai
