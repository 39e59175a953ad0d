// Package gateway assembles a running agentgate: the registry, the NATS
// connection (to an embedded server or an external cluster), the streams
// and run-state bucket, the Watermill router, the HTTP API (its tokens
// checked by apiauth, sensitive members masked by redact, dead letters
// served through dlq) and the Prometheus metrics. `agentgate serve` is a
// thin shell around it, and the end-to-end tests start it the same way.
//
// It constructs every part explicitly: the outcome publisher and the
// handlers.Processor first, then the router that feeds the processor, and
// the gated twins that submit to it. Its one NATS connection carries the
// subscriptions and acks, the outcomes, the run state, the registry and the
// twins, and has one owner at a time: the gateway until the router is
// built, then the router, which drains and closes it when it closes
// (Watermill's subscriber drains the connection it is given). Nothing
// imports it but commands and tests; it must never be imported by a
// library package.
package gateway
