package schemas

import (
	"fmt"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/internal/jsonx"
	"github.com/agentgate/agentgate/schemas/validator"
)

// sensitiveKeyword marks a property whose value the HTTP API masks for
// read tokens (contract section 6.3; package redact applies it).
const sensitiveKeyword = "x-sensitive"

// checkSensitive returns every "x-sensitive" of doc that is not a boolean,
// each wrapping ErrBadSensitive: a misspelt value ("true" as a string)
// would otherwise mask nothing, without a word.
func checkSensitive(doc any) []error {
	var errs []error
	validator.WalkSchema(doc, "$", func(node map[string]any, path, _ string) bool {
		if v, ok := node[sensitiveKeyword]; ok {
			if _, isBool := v.(bool); !isBool {
				errs = append(errs, fmt.Errorf("%w: %s: want true or false, got %s", ErrBadSensitive, contract.Member(path, sensitiveKeyword), jsonx.TypeName(v, jsonx.IntegerApart)))
			}
		}
		return true
	})
	return errs
}
