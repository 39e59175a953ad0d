// Package provider owns the export of an agent's output schema into the
// subset of JSON Schema a model provider enforces while decoding (OpenAI's
// Structured Outputs in strict mode; Anthropic's structured outputs and
// strict tool use), with a report of every keyword that could not be
// expressed there and is therefore enforced by agentgate alone.
//
// The rules, one table per provider in rules.go, follow the providers'
// own documentation. Neither official page was in the reference corpus
// this was checked against (November 2026); each rule below is backed by
// the copies and summaries of those pages that were, named here and in
// docs/contract.md section 5.2:
//
//   - OpenAI, "Structured model outputs", section "Supported schemas"
//     (https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas,
//     formerly platform.openai.com/docs/guides/structured-outputs): root
//     an object, not anyOf; every property required (an optional one
//     becomes a union with null); additionalProperties false on every
//     object; anyOf, $defs and recursion through $ref; string pattern
//     and formats; numeric bounds and multipleOf; minItems, maxItems. Its
//     limits, as read in the artifactize-core crate's
//     src/agent/verdict/structured/limits.rs (docs.rs, citing that page)
//     and the same table in Telepatia's "Smart templates output schema"
//     page: 5,000 properties, 10 levels of nesting, 1,000 enum values in
//     all, 120,000 characters of property names and enum values, 15,000
//     characters for an enum of over 250 values. (An OpenAI community
//     thread, "Measuring maximum depth and object properties in
//     structured outputs", quotes an earlier version of the page: 100
//     properties, 5 levels.) The keyword list (no allOf, oneOf, not,
//     if/then/else, patternProperties, min/maxLength, ...) and the format
//     list were not found in any stored copy and stay as first written.
//   - Anthropic, "Structured outputs" (https://platform.claude.com/docs/en/
//     build-with-claude/structured-outputs, section "JSON Schema
//     limitations"; strict tool use, tools[].strict, has the same
//     limits), as read in the LangSchema.Converter.Anthropic
//     documentation (hexdocs, citing that page), a mirror of the page's
//     introduction (learn-ai.blindshot.kz) and Google Cloud's
//     "Structured outputs with Anthropic Claude models": additionalProperties
//     false on every object, optional properties allowed; enum of
//     scalars; const, anyOf, $ref and $defs without recursion; formats
//     date-time, time, date, duration, email, hostname, uri, ipv4, ipv6,
//     uuid; pattern without backreferences, lookaround or \b; minItems of
//     0 or 1 only; no numeric bounds, no minLength/maxLength, no
//     maxItems; at most 24 optional properties and 16 schemas with anyOf
//     or a list of types per request (and 20 strict tools).
//
// Outputs that come back in the exported shape (OpenAI's nulls for
// optional members) need no code here: agentgate's normalizer removes a
// null that an optional member does not allow and records it (a coerce
// normalization), so they are mapped back before validation.
//
// The package knows nothing of the registry, NATS, Watermill or HTTP: it
// takes a decoded schema document and a resolver for $ref, and must never
// import the registry, the bus or the pipeline.
package provider
