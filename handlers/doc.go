// Package handlers owns agentgate's pipeline: the composition of stages
// that turns one raw agent output into exactly one outcome (Check: extract,
// normalize, validate, then the business rules), the decision policy built
// on it (the Gate: accept, retry with a prompt, or dead-letter), and the
// Processor that records run state and emits each outcome through ports.
//
// The stages have homes of their own below it: handlers/jsontext recovers
// JSON text (extraction and repair) and handlers/normalize brings a
// document to its schema's shape; validation is the schemas package's.
// Everything here is a pure function of (input, registry, run state) or
// talks to the world through the small interfaces declared here (RunStore,
// Emitter), so it is tested without a bus: this package never imports
// NATS, Watermill or the router.
package handlers
