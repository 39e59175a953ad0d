// Package router owns agentgate's wiring to the bus: the Watermill router
// with its JetStream subscribers on the durable consumers, the unmarshaler
// that turns any NATS message into a Watermill message, the one place a
// message becomes a handlers.Envelope (Envelope) and a decision's outcome
// becomes a subject (OutcomeSubject, Outcomes), the publisher that reports
// where each outcome is stored, the pool of goroutines messages are handled
// on, poison handling, and the health of the consumers.
//
// It knows how messages move, not what they mean: decisions are the
// handlers package's Processor. It must never import gateway, and nothing
// of the pipeline but handlers' Processor and its types.
package router
