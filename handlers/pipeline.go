package handlers

import (
	"fmt"
	"slices"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers/jsontext"
	"github.com/agentgate/agentgate/handlers/normalize"
	"github.com/agentgate/agentgate/rules"
	"github.com/agentgate/agentgate/schemas"
)

// CheckOptions tune the pipeline for one agent.
type CheckOptions struct {
	// MaxDepth bounds nesting (default jsontext.DefaultMaxDepth).
	MaxDepth int
	// ExtraFields is "strip" (default) or "reject".
	ExtraFields string
	// Coerce allows the schema-guided conversions of contract section 3.1.
	Coerce bool
	// Rules are the blueprint's business rules, checked (after the
	// schema's own) on a document the schema accepts; nil for none.
	Rules *rules.Set
	// LossyRepair is schemas.LossyRepairRetry (default: each lossy repair
	// is a violation) or schemas.LossyRepairAccept (each is an op lossy
	// normalization).
	LossyRepair string
	// Base, when set, is the document of attempt BaseAttempt that a
	// partial re-ask's answer is merged into: each candidate object is
	// applied to it as an RFC 7386 merge patch (recorded as an op merge)
	// before it is normalized and validated as a whole.
	Base        any
	BaseAttempt int
}

// Verdict is what the pipeline concluded about one payload.
type Verdict struct {
	Valid bool
	// Data is the normalized document (of the chosen candidate).
	Data any
	// Normalizations lists every change made to reach Data, extraction
	// included; never nil.
	Normalizations []contract.Normalization
	// Violations is empty exactly when Valid.
	Violations []contract.Violation
	// Stage is "stream" when a streamed output was judged on a prefix.
	Stage string
	// Incomplete, when set, says a streamed output never finished: the
	// gate dead-letters it as stream_incomplete with this message.
	Incomplete string
	// FailType, when set with Incomplete, is the dead letter's type instead
	// of stream_incomplete (a gated exchange's upstream_error).
	FailType contract.ErrorType
	// Refusal is the text of a "refusal" member the model put beside its
	// document, which the schema does not have and normalization removed:
	// the outcome records it rather than dropping it silently.
	Refusal *string
}

// Check runs extract, normalize and validate on payload against s. A
// candidate that needed a lossy repair does not validate, each loss a
// violation, unless opts.LossyRepair accepts it (see lossy.go). Of
// several candidate documents it takes the first that validates, else the
// first, in the order of contract section 3.1 (the whole payload, fences,
// prose, JSON strings), repaired blocks in their place among them. Valid
// JSON pays nothing for repair: the repair pass runs only when some block
// did not parse. Check is pure and safe for concurrent use.
func Check(payload []byte, s *schemas.Schema, opts CheckOptions) Verdict {
	cands, bad := jsontext.ExtractAll(payload, opts.MaxDepth)
	if bad != nil {
		return Verdict{Normalizations: []contract.Normalization{}, Violations: []contract.Violation{*bad}}
	}
	v, _ := checkCandidates(cands, s, opts)
	return v
}

// checkCandidates normalizes and validates cands in order: the first that
// validates and true, else the first and false.
func checkCandidates(cands []jsontext.Candidate, s *schemas.Schema, opts CheckOptions) (Verdict, bool) {
	var first Verdict
	for i, c := range cands {
		if overValues(c.Doc, DefaultMaxValues) {
			v := Verdict{Data: c.Doc, Normalizations: append([]contract.Normalization{}, c.Normalizations...),
				Violations: []contract.Violation{{Path: "$", Keyword: "json",
					Message: fmt.Sprintf("the document holds more than %d values, over the limit", DefaultMaxValues)}}}
			if i == 0 {
				first = v
			}
			continue
		}
		in, pre := c.Doc, c.Normalizations
		if _, isObject := c.Doc.(map[string]any); isObject && opts.Base != nil {
			patch, renames := normalize.RenameAliases(c.Doc, s.Doc, s)
			in = MergePatch(opts.Base, patch)
			pre = append(append(slices.Clip(pre), renames...), contract.Normalization{
				Op: contract.OpMerge, Path: "$",
				Detail: fmt.Sprintf("merged into attempt %d's normalized document (RFC 7386 merge patch)", opts.BaseAttempt),
			})
		}
		doc, norms := normalize.Normalize(in, s.Doc, s, normalize.Options{ExtraFields: opts.ExtraFields, Coerce: opts.Coerce})
		all := make([]contract.Normalization, 0, len(pre)+len(norms))
		all = append(append(all, pre...), norms...)
		v := Verdict{Data: doc, Normalizations: all, Violations: s.Validate(doc)}
		v.Refusal = strippedRefusal(in, doc)
		bigIntegers, _ := s.Doc[BigIntegersKeyword].(bool)
		v.Violations = withNumberViolations(v.Violations, numberViolations(doc, bigIntegers, DefaultMaxViolations))
		if len(v.Violations) == 0 {
			// Rules reason about a document of the schema's shape only.
			v.Violations = append(s.Rules.Eval(doc), opts.Rules.Eval(doc)...)
			contract.SortViolations(v.Violations)
		}
		applyLosses(&v, c.Losses, len(c.Normalizations), opts.LossyRepair == schemas.LossyRepairAccept)
		v.Valid = len(v.Violations) == 0
		if v.Valid {
			return v, true
		}
		if i == 0 {
			first = v
		}
	}
	return first, false
}

// strippedRefusal returns the text of a "refusal" string member of the
// candidate's root object that normalization removed, or nil.
func strippedRefusal(before, after any) *string {
	obj, ok := before.(map[string]any)
	if !ok {
		return nil
	}
	text, ok := obj["refusal"].(string)
	if !ok {
		return nil
	}
	if kept, ok := after.(map[string]any); ok {
		if _, still := kept["refusal"]; still {
			return nil // the schema's own member
		}
	}
	return &text
}
