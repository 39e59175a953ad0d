package handlers

import "github.com/agentgate/agentgate/schemas"

// NormalizeCopy is Normalize without the first pass that returns a
// conforming document as is: tests compare the two.
var NormalizeCopy = normalizeCopy

// PartialAskFor is partialAsk: the partial re-ask of a failed verdict.
func PartialAskFor(s *schemas.Schema, v Verdict) *PartialAsk {
	ask, _ := partialAsk(s, v)
	return ask
}
