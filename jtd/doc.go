// Package jtd owns JSON Type Definition (RFC 8927): parsing a schema and
// checking it against the RFC's syntax and semantic constraints (section
// 2), validating an instance with the RFC's semantics and error indicators
// (section 3), mapping those indicators to agentgate's violations, and
// translating a schema to the equivalent JSON Schema 2020-12 document that
// the rest of agentgate (normalizer, lint, provider export) walks.
//
// The package imports only contract (for the violation type) and
// internal/jsonx (to read numbers exactly); it knows nothing of the
// registry, NATS, Watermill or HTTP.
package jtd
