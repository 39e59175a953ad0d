// Package rules owns agentgate's business rules: named CEL expressions
// (cel.dev/cel-go) over an agent's normalized output, bound to the CEL
// variable "output", that say what a schema cannot ("line is set when
// severity is blocker", "end after start", "total equals the sum of the
// items").
//
// A rule is parsed, type-checked and cost-estimated once, by [Compile]; a
// rule that does not compile, does not yield a boolean, or whose estimated
// cost is over the limit is an error naming it. Every evaluation runs under
// the same cost limit, so no rule can stall the gateway whatever the
// output; a rule that fails, cannot be evaluated, or runs out of budget is a
// contract violation with keyword "rule" (fail closed).
//
// The package knows nothing of schemas, NATS, Watermill or HTTP; it
// imports only contract (for the violation type) and cel-go.
package rules
