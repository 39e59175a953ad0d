// Package agentproto owns agentgate's side of the Synadia Agent Protocol
// for NATS (v0.1): the gated twin of an upstream agent (contract section
// 10). A twin is registered as a protocol-compliant micro service
// (SynadiaAgents, a prompt endpoint with max_payload and attachments_ok,
// heartbeats on the fixed subject); a prompt to it is forwarded to the
// upstream agent's prompt endpoint, learned from discovery, with the
// blueprint's output-format section appended; the streamed response is
// assembled and judged by the gateway's own pipeline through one narrow
// seam (Judge, which handlers.Handler implements), which also records the
// run and publishes its outcomes; retry prompts go back to the upstream
// agent until the answer is valid or the retries are spent, and the caller
// receives one response chunk or one protocol error.
//
// It owns the protocol's wire shapes (envelopes, chunks, heartbeats,
// errors), discovery and the exchange loop. It must never import the bus
// wiring (router, Watermill), the run-state store (runstate) or the
// gateway: outcomes and run state go through Judge only.
package agentproto
