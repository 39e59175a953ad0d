// Package normalize brings a decoded document to its schema's shape
// without judging it (contract section 3.1): it renames x-aliases members
// to their canonical names, strips members a closed object does not allow,
// and makes the schema-guided coercions (numeric strings, booleans, enum
// case, one-element arrays, optional nulls), recording each change as a
// contract.Normalization. Under anyOf and oneOf it decides with a small
// pure schema evaluator of its own, with a fixed budget, which says "can't
// tell" rather than guess. The same evaluator judges the prefix of a
// streamed output (PrefixViolations).
//
// It reads schemas as decoded JSON through the Resolver port, so it knows
// nothing of how they are loaded or compiled; validation is the schemas
// package's, and the decision (retry, dead letter, accept) is the
// pipeline's. It must never import handlers, the text recovery of
// handlers/jsontext or the bus: it imports only contract and
// internal/jsonx.
package normalize
