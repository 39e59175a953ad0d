package rules

import "errors"

var (
	// ErrBadRule is returned by Parse and Compile for a rule that is not
	// well formed: no name, a duplicate name, no expr, an unknown member,
	// a path that is not a JSONPath starting at $.
	ErrBadRule = errors.New("invalid rule")

	// ErrCompile is returned by Compile for a rule whose expression does
	// not parse or type-check, or whose result is not a boolean.
	ErrCompile = errors.New("rule does not compile")

	// ErrCostLimit is returned by Compile for a rule whose estimated worst
	// cost is over the limit (Config.MaxCost).
	ErrCostLimit = errors.New("rule is over the cost limit")
)
