// Package router owns agentgate's wiring to the bus: the embedded NATS
// server, the Watermill router with its JetStream subscriber and publisher,
// the unmarshaler that turns any NATS message into a Watermill message, and
// the middleware stack around the raw-output handler.
//
// It knows how messages move, not what they mean: decisions are the
// handlers package's.
package router
