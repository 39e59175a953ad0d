package handlers

import "github.com/agentgate/agentgate/schemas"

// PartialAskFor is partialAsk: the partial re-ask of a failed verdict.
func PartialAskFor(s *schemas.Schema, v Verdict) *PartialAsk {
	ask, _ := partialAsk(s, v)
	return ask
}
