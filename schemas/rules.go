package schemas

import (
	"encoding/json"
	"fmt"

	"github.com/agentgate/agentgate/rules"
)

// rulesKeyword is the root member of a JSON Schema that holds its business
// rules (rules.Spec, in CEL), an extension keyword like x-aliases: JSON
// Schema validators ignore it.
const rulesKeyword = "x-rules"

// compileRules compiles the rules in raw (a JSON array of rules.Spec, or
// nothing); every problem wraps ErrBadRules and names the rule.
func compileRules(raw json.RawMessage) (*rules.Set, error) {
	specs, err := rules.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRules, err)
	}
	set, err := rules.Compile(specs, rules.Config{})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRules, err)
	}
	return set, nil
}

// docRules compiles the x-rules of a schema document.
func docRules(doc map[string]any) (*rules.Set, error) {
	v, ok := doc[rulesKeyword]
	if !ok {
		return nil, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRules, err)
	}
	set, err := compileRules(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rulesKeyword, err)
	}
	return set, nil
}
