// Package contract holds the wire types of agentgate's public interface, as
// docs/contract.md defines them: header names, outcomes, dead-letter
// error types, violations, normalizations and the JSON payloads published on
// the outcome subjects; and the one reading of a schema's x-aliases (section
// 5), which the normalizer applies and the schema linter enforces.
//
// It owns the shape of the bytes other people's clients read and must not
// know about NATS, Watermill or the validator: every other package imports it,
// and it imports nothing of the project.
package contract
