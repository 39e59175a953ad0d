package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/cost"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/ext"
	"cel.dev/cel-go/interpreter"

	"github.com/agentgate/agentgate/contract"
)

// Keyword is the violation keyword of a failed rule.
const Keyword = "rule"

// Variable is the CEL variable the normalized output is bound to.
const Variable = "output"

// Defaults of Config.
const (
	// DefaultMaxCost bounds each rule's cost in CEL cost units (roughly one
	// per operation), estimated at load and counted at evaluation.
	DefaultMaxCost = 1_000_000
	// DefaultEstimateSize is the size of every list, map and string of the
	// output that the estimate assumes: a large output's collections. A
	// larger output is still bounded by the cost counted at evaluation.
	DefaultEstimateSize = 1_000
)

// nameRE is the shape of a rule name: it is a metrics label value and
// appears in messages.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// Spec is a rule as written in a blueprint's "rules" or a schema's
// "x-rules" (JTD: "metadata.rules").
type Spec struct {
	// Name names the rule in violations and metrics ([A-Za-z0-9_.-]{1,64}).
	Name string `json:"name"`
	// Expr is the CEL expression; true means the output passes.
	Expr string `json:"expr"`
	// Message is what the violation says (default: the expression).
	Message string `json:"message,omitempty"`
	// Path is the JSONPath the violation points at (default "$").
	Path string `json:"path,omitempty"`
}

// Config tunes Compile. The zero value takes the defaults.
type Config struct {
	// MaxCost is each rule's cost limit (default DefaultMaxCost).
	MaxCost uint64
	// EstimateSize is the size assumed for the output's lists, maps and
	// strings when estimating a rule's cost (default DefaultEstimateSize).
	EstimateSize uint64
}

func (c *Config) setDefaults() {
	if c.MaxCost == 0 {
		c.MaxCost = DefaultMaxCost
	}
	if c.EstimateSize == 0 {
		c.EstimateSize = DefaultEstimateSize
	}
}

// Rule is one compiled rule.
type Rule struct {
	Spec
	// Estimate is the rule's estimated cost range at load.
	Estimate cost.CostEstimate
	prg      cel.Program
}

// Set is an ordered list of compiled rules, safe for concurrent use. A nil
// *Set holds no rules.
type Set struct {
	rules []*Rule
}

// Parse decodes a JSON array of rules, refusing unknown members so that a
// misspelt "expresion" is an error rather than a rule that checks nothing.
// Null or empty gives nil.
func Parse(raw json.RawMessage) ([]Spec, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var specs []Spec
	if err := dec.Decode(&specs); err != nil {
		return nil, fmt.Errorf("%w: want an array of {name, expr, message, path}: %w", ErrBadRule, err)
	}
	return specs, nil
}

// Compile parses, type-checks and cost-estimates every rule once. Every
// problem is reported, joined; each names its rule and wraps ErrBadRule,
// ErrCompile or ErrCostLimit. No rules give a nil *Set.
func Compile(specs []Spec, cfg Config) (*Set, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	cfg.setDefaults()
	env, err := newEnv()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCompile, err)
	}
	var (
		errs []error
		set  = &Set{}
		seen = map[string]bool{}
	)
	for i, s := range specs {
		label := fmt.Sprintf("rule %d", i)
		if s.Name != "" {
			label = fmt.Sprintf("rule %q", s.Name)
		}
		switch {
		case !nameRE.MatchString(s.Name):
			errs = append(errs, fmt.Errorf("%s: %w: name must match %s", label, ErrBadRule, nameRE))
			continue
		case seen[s.Name]:
			errs = append(errs, fmt.Errorf("%s: %w: the name is used twice", label, ErrBadRule))
			continue
		case strings.TrimSpace(s.Expr) == "":
			errs = append(errs, fmt.Errorf("%s: %w: no expr", label, ErrBadRule))
			continue
		case s.Path != "" && !strings.HasPrefix(s.Path, "$"):
			errs = append(errs, fmt.Errorf("%s: %w: path %q is not a JSONPath starting at $", label, ErrBadRule, s.Path))
			continue
		}
		seen[s.Name] = true
		r, err := compileOne(env, s, cfg)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", label, err))
			continue
		}
		set.rules = append(set.rules, r)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return set, nil
}

// newEnv is the CEL environment every rule compiles in: the output as a
// dynamic value, CEL's standard library with its string, math and list
// extensions, and sum().
func newEnv() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable(Variable, cel.DynType),
		ext.Strings(), ext.Math(), ext.Lists(),
		cel.CrossTypeNumericComparisons(true),
		sumFunction(),
	)
}

func compileOne(env *cel.Env, s Spec, cfg Config) (*Rule, error) {
	ast, iss := env.Compile(s.Expr)
	if iss != nil && iss.Err() != nil {
		return nil, fmt.Errorf("%w: %w", ErrCompile, iss.Err())
	}
	if t := ast.OutputType(); !t.IsExactType(types.BoolType) && !t.IsExactType(types.DynType) {
		return nil, fmt.Errorf("%w: the expression yields %s, want bool", ErrCompile, t)
	}
	est, err := env.EstimateCost(ast, estimator{size: cfg.EstimateSize})
	if err != nil {
		return nil, fmt.Errorf("%w: estimating its cost: %w", ErrCompile, err)
	}
	if est.Max > cfg.MaxCost {
		return nil, fmt.Errorf("%w: estimated cost up to %d (with lists, maps and strings of %d) is over the limit of %d",
			ErrCostLimit, est.Max, cfg.EstimateSize, cfg.MaxCost)
	}
	prg, err := env.Program(ast,
		cel.CostLimit(cfg.MaxCost),
		cel.CostTracking(estimator{size: cfg.EstimateSize}),
		cel.InterruptCheckFrequency(64),
	)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCompile, err)
	}
	return &Rule{Spec: s, Estimate: est, prg: prg}, nil
}

// Len is the number of rules.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.rules)
}

// Rules returns the compiled rules in order.
func (s *Set) Rules() []*Rule {
	if s == nil {
		return nil
	}
	return s.rules
}

// Specs returns the rules as written, in order (nil for none).
func (s *Set) Specs() []Spec {
	if s == nil {
		return nil
	}
	out := make([]Spec, len(s.rules))
	for i, r := range s.rules {
		out[i] = r.Spec
	}
	return out
}

// Eval evaluates every rule on doc, a document decoded with encoding/json
// and UseNumber, and returns a violation per rule that does not hold, in
// rule order; nil when all hold. A rule that cannot be evaluated (a member
// it reads is absent, a wrong type, its cost limit reached) does not hold:
// the violation's message says why. Safe for concurrent use.
func (s *Set) Eval(doc any) []contract.Violation {
	var out []contract.Violation
	for _, r := range s.Rules() {
		if v, failed := r.eval(doc); failed {
			out = append(out, v)
		}
	}
	return out
}

func (r *Rule) eval(doc any) (v contract.Violation, failed bool) {
	v = contract.Violation{
		Path: r.Path, Keyword: Keyword, Rule: r.Name,
		Message: fmt.Sprintf("%s (rule %s)", r.message(), r.Name),
	}
	if v.Path == "" {
		v.Path = "$"
	}
	out, _, err := r.prg.Eval(map[string]any{Variable: doc})
	var cancelled interpreter.EvalCancelledError
	switch {
	case errors.As(err, &cancelled) && cancelled.Cause == interpreter.CostLimitExceeded:
		v.Message = fmt.Sprintf("%s (rule %s: the output is too large to check within the rule's cost limit)", r.message(), r.Name)
		return v, true
	case err != nil:
		v.Message = fmt.Sprintf("%s (rule %s could not be evaluated: %s)", r.message(), r.Name, err)
		return v, true
	}
	if b, ok := out.(types.Bool); ok {
		return v, !bool(b)
	}
	v.Message = fmt.Sprintf("%s (rule %s yielded %s, not a boolean)", r.message(), r.Name, out.Type().(ref.Type).TypeName())
	return v, true
}

func (r *Rule) message() string {
	if r.Message != "" {
		return r.Message
	}
	return "must hold: " + r.Expr
}
