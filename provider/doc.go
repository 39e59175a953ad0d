// Package provider owns the export of an agent's output schema into the
// subset of JSON Schema a model provider enforces while decoding (OpenAI's
// Structured Outputs in strict mode; Anthropic's structured outputs and
// strict tool use), with a report of every keyword that could not be
// expressed there and is therefore enforced by agentgate alone.
//
// The rules, one table per provider in rules.go, come from the providers'
// own documentation:
//
//   - OpenAI, "Structured Outputs" guide, section "Supported schemas"
//     (platform.openai.com/docs/guides/structured-outputs#supported-schemas):
//     root an object, every property required (an optional one becomes a
//     union with null), additionalProperties false on every object,
//     anyOf but no allOf, oneOf, not, if/then/else, patternProperties,
//     propertyNames, min/maxProperties, dependent*, unevaluated*,
//     contains, uniqueItems, min/maxLength; string pattern and the
//     formats date-time, time, date, duration, email, hostname, ipv4,
//     ipv6, uuid; numeric bounds and multipleOf; minItems, maxItems;
//     $defs and recursion through $ref; at most 5000 properties, 10
//     levels of nesting, 1000 enum values in all.
//   - Anthropic, "Structured outputs" (platform.claude.com/docs/en/
//     build-with-claude/structured-outputs, section "JSON Schema
//     limitations") and "Strict tool use" (the same limits for a tool's
//     input_schema): additionalProperties false on every object,
//     optional properties allowed, enum of scalars, const, anyOf, $ref
//     and $defs without recursion, formats date-time, time, date,
//     duration, email, hostname, uri, ipv4, ipv6, uuid, minItems of 0 or
//     1 only; no numeric bounds, no string lengths, no maxItems.
//
// Outputs that come back in the exported shape (OpenAI's nulls for
// optional members) need no code here: agentgate's normalizer removes a
// null that an optional member does not allow and records it (a coerce
// normalization), so they are mapped back before validation.
//
// The package knows nothing of the registry, NATS, Watermill or HTTP: it
// takes a decoded schema document and a resolver for $ref.
package provider
