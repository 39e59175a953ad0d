// Package registry is the registry as a service: it keeps agentgate's
// schemas and blueprints in two JetStream key-value buckets (history kept,
// so every version stays readable), checks every registration the way
// Confluent Schema Registry does (a schema name has semantic versions and a
// compatibility level, judged with package compat's classification of
// changes), and serves every gateway replica a compiled
// [schemas.Registry] that it swaps atomically when the buckets change.
//
// A schema's name is its $id without the last path segment, which is its
// version: "https://agentgate.dev/schemas/pr-review/1.0.0" is version 1.0.0
// of "https://agentgate.dev/schemas/pr-review". A registered version is
// immutable. A blueprint is keyed by its agent name; each write gets a new
// bucket revision, which the run state records so that a retry is judged by
// the blueprint its run started with.
//
// The package owns storage ([Store]), the rules ([Check], [Service]) and
// the live view ([Live]). It knows nothing of HTTP, Watermill or the
// pipeline's stages; compilation is package schemas' (through
// [schemas.LoadFS]), so a document is checked exactly as at start-up. It
// must not import the pipeline (handlers, router, gateway) or HTTP.
package registry
