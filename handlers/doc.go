// Package handlers owns agentgate's pipeline: the stages that turn one raw
// agent output into exactly one outcome (extract, normalize, validate,
// route) and the thin Watermill handler that feeds them from the bus.
//
// The stages are pure functions of (input, registry, run state) and are
// tested without a bus. The handler talks to the bus only through
// Watermill's message.Publisher and the small RunStore interface declared
// here; this package never imports NATS.
package handlers
