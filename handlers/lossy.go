package handlers

import (
	"slices"
	"strings"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers/jsontext"
)

// Lossy repairs (contract section 3.1): repair fixes syntax, but where it
// would lose, invent or move content (close a document whose text was cut
// off, put a placeholder for a missing value, drop elided content, move a
// member across a bracket) the candidate carries Losses. By default each
// loss is a violation at its path (keyword truncated or repair, received
// the text around it), so the attempt is retried; a blueprint with
// "lossy_repair": "accept" lets the document validate, each loss listed in
// normalizations with op lossy at its path.

// Messages of the violations losses become.
const (
	truncatedMessage = "the output was cut off here: the document ends before it is complete; send the whole document again, complete"
	repairMessage    = "the output is malformed here and repairing it would lose or move content ("
)

// applyLosses applies a candidate's losses to v, whose normalizations from
// index at on are the normalizer's (their renames move the losses' paths):
// each loss becomes a violation, or with accept an op lossy normalization
// inserted at index at.
func applyLosses(v *Verdict, losses []jsontext.Loss, at int, accept bool) {
	if len(losses) == 0 {
		return
	}
	later := v.Normalizations[at:]
	if accept {
		ops := make([]contract.Normalization, len(losses))
		for i, l := range losses {
			ops[i] = l.Normalization()
			ops[i].Path = movedPath(l.Path, later)
		}
		v.Normalizations = slices.Insert(v.Normalizations, at, ops...)
		return
	}
	for _, l := range losses {
		v.Violations = append(v.Violations, lossViolation(l, movedPath(l.Path, later)))
	}
	contract.SortViolations(v.Violations)
}

// lossViolation is the loss l as a violation at path.
func lossViolation(l jsontext.Loss, path string) contract.Violation {
	msg := truncatedMessage
	if l.Keyword != contract.KeywordTruncated {
		msg = repairMessage + l.Detail + "); send it again as valid JSON"
	}
	return contract.Violation{Path: path, Keyword: l.Keyword, Received: l.Text, HasReceived: true, Message: msg}
}

// movedPath follows path through the renames in norms (an alias renamed to
// its canonical name moves what is under it), in order.
func movedPath(path string, norms []contract.Normalization) string {
	for _, n := range norms {
		if n.Op != contract.OpRename || n.From == "" {
			continue
		}
		from := contract.Member(n.Path, n.From)
		if path == from || strings.HasPrefix(path, from+".") || strings.HasPrefix(path, from+"[") {
			path = contract.Member(n.Path, n.To) + path[len(from):]
		}
	}
	return path
}
