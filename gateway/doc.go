// Package gateway assembles a running agentgate: the registry, the NATS
// connection (to an embedded server or an external cluster), the streams
// and run-state bucket, the Watermill router, the HTTP API (its tokens
// checked by apiauth, sensitive members masked by redact, dead letters
// served through dlq) and the Prometheus metrics. `agentgate serve` is a
// thin shell around it, and the end-to-end tests start it the same way.
//
// It constructs every part explicitly: the outcome publisher and the
// handlers.Processor first, then the router that feeds the processor, and
// the gated twins that submit to it. Each NATS connection has one owner:
// the gateway's carries the outcomes, the run state, the registry and the
// twins; the router's own carries its subscriptions and acks (Watermill
// drains the connection it subscribes on when it closes). Nothing
// imports it but commands and tests; it must never be imported by a
// library package.
package gateway
