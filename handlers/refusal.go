package handlers

import (
	"bytes"
	"github.com/agentgate/agentgate/handlers/jsontext"
	"regexp"
	"strings"
)

// Refusal detections: how a refusal was recognised (the refusal outcome's
// detection member, contract section 3.3).
const (
	// RefusalByHeader: the Output-Kind: refusal header.
	RefusalByHeader = "header"
	// RefusalByObject: a payload {"refusal": "..."}.
	RefusalByObject = "object"
	// RefusalByText: a plain-text refusal matched by the default phrasings.
	RefusalByText = "text"
	// RefusalByPattern: a plain-text refusal matched by one of the
	// blueprint's refusal_patterns.
	RefusalByPattern = "pattern"
)

// Bounds of plain-text refusal detection.
const (
	// maxRefusalText is the longest output read as a plain-text refusal: a
	// model that says no says so briefly; a longer text is an answer.
	maxRefusalText = 4000
	// refusalHead is how far into the text the default phrasings must
	// start: a refusal opens with it, while an answer may quote one later.
	refusalHead = 400
	// refusalPhrasingMax bounds the length of a default phrasing's match.
	refusalPhrasingMax = 300
)

// refusalPhrasings are the default plain-text refusal phrasings, matched
// case-insensitively (after curly apostrophes become straight ones) within
// the first refusalHead bytes of the output. They cover the wordings of
// the common model families: OpenAI's ("I'm sorry, but I can't assist with
// that."), Anthropic's ("I can't help with creating ...", "I don't feel
// comfortable ..."), Meta's Llama ("I cannot provide information or
// guidance on ... Can I help you with something else?"), Google's ("I'm
// just a language model, so I can't help you with that."), Mistral's and
// Qwen's. Each needs an explicit refusal verb: "sorry" alone, or "I can't
// find", is no refusal.
var refusalPhrasings = compileAll(
	// "I'm sorry, but I can't ...", "I'm so sorry, I'm unable to ..."
	`\b(?:i'm|i am|im) (?:really |so |very |truly |terribly )?sorry\b[^.!?\n]{0,80}?\b(?:can't|cannot|can not|won't|will not|unable|not able|must decline|not comfortable|not allowed|not permitted|not going to)\b`,
	// "Sorry, but I can't ...", "Apologies, I cannot ...", "I apologize, but I won't ..."
	`\b(?:sorry|apologies|i apologi[sz]e)\b[^.!?\n]{0,40}?\bi (?:can't|cannot|can not|won't|will not|am unable|'m unable|am not able|'m not able)\b`,
	// "I can't help with that", "I won't provide ...", "I'm unable to assist ..."
	`\b(?:i|i'm|i am|i'd|i would) (?:really |simply |just |unfortunately |therefore |also |afraid i |sorry,? i )?(?:can't|cannot|can not|won't|will not|unable to|not able to|won't be able to|will not be able to|must decline to|have to decline to|not allowed to|not permitted to|don't feel comfortable|do not feel comfortable|not comfortable|not going to|rather not|don't think i should|do not think i should)(?: and (?:won't|will not|can't|cannot))? (?:help|assist|provide|comply|fulfil|fulfill|create|generate|produce|write|share|engage|complete|support|participate|give|offer|do that|do this|continue|answer|respond|process|be of (?:any )?(?:help|assistance)|take part|draft|compose|disclose|reveal|facilitate|recommend|encourage|condone|promote|endorse|output|rewrite|translate|summarize|summarise|summarizing|summarising|classify|analy[sz]e|accommodate|writing|creating|generating|providing|helping|assisting)\b`,
	// "As an AI (language model), I cannot ..."
	`\bas an? (?:ai|language model|large language model|ai language model|ai model|ai assistant)\b[^.!?\n]{0,60}?\bi(?: |'m |'m not |'m un| am | am not | am un)(?:can't|cannot|don't|do not|able|unable|won't|will not|must not|shouldn't|should not)\b`,
	// "I must decline", "I have to respectfully decline", "I must refuse",
	// "I refuse to write that", "I won't be generating that"
	`\bi(?: must| have to| need to| will have to|'ll have to|'m going to have to| am going to have to)? (?:respectfully |politely |kindly )?(?:decline|refuse)\b`,
	`\bi (?:won't|will not) be (?:generating|writing|providing|creating|producing|helping|assisting|sharing|completing|doing)\b`,
	// "I'm just a language model", "I'm only an AI and can't ..."
	`\bi(?:'m| am) (?:just |only )?an? (?:large )?(?:language model|text-based ai|ai (?:model|assistant))\b[^.!?\n]{0,60}?\b(?:can't|cannot|don't have the ability|not able|unable)\b`,
	// "That's not something I can help with"
	`\b(?:that's|that is|this is|this isn't|that isn't) (?:not )?something i (?:can|am able to|'m able to|will|could) (?:help|assist|do|provide)\b`,
	// "... against my guidelines", "violates OpenAI's usage policies"
	`\b(?:against|violates?|would violate|goes against|go against) (?:my|our|the|openai's|anthropic's|google's|meta's) (?:usage |content |safety |ethical )?(?:guidelines|policies|policy|principles|programming|terms)\b`,
	// "I'm not able to help with that, as ..."
	`\bunable to (?:help|assist|comply|fulfil|fulfill|provide|complete) (?:with )?(?:that|this|your|the request|such)\b`,
)

// refusalDisqualifiers mark a matched phrasing as no refusal: "I can't
// help but notice", "I can't stress enough".
var refusalDisqualifiers = compileAll(
	`\b(?:can't|cannot|can not) help but\b`,
	`\b(?:can't|cannot) (?:stress|emphasi[sz]e|overstate|recommend [a-z]+ enough)\b`,
	// A hedge, not a refusal: "I can't provide a definitive answer, but ..."
	`\b(?:provide|give|offer) (?:a |an |any )?(?:definitive|exact|precise|certain|conclusive|complete|full|final|100%)\b`,
)

// reportedSpeech marks a sentence that reports what someone else said:
// "The customer said: I can't help you with that".
var reportedSpeech = regexp.MustCompile(`(?i)\b(?:said|says|wrote|writes|replied|replies|answered|told|tells|asked|asks|responded|quoted|reported)\b`)

func compileAll(exprs ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(exprs))
	for i, e := range exprs {
		out[i] = regexp.MustCompile(`(?i)` + e)
	}
	return out
}

// RefusalConfig is one agent's plain-text refusal detection.
type RefusalConfig struct {
	// Off turns plain-text detection off (blueprint refusal_detection:
	// false). The Output-Kind header and {"refusal": "..."} still count.
	Off bool
	// Patterns are the blueprint's refusal_patterns, matched anywhere in
	// the output besides the default phrasings.
	Patterns []*regexp.Regexp
}

// PlainRefusal reports whether payload is a refusal in plain words, and
// how it was recognised (RefusalByText or RefusalByPattern): it reads as a
// refusal and holds no JSON candidate (an output holding a JSON document
// is never a refusal, whatever its prose says). maxDepth bounds the
// extraction as in Extract. Its cost is linear in the payload: the
// phrasings are RE2 expressions read over at most maxRefusalText bytes,
// and only a text that reads as a refusal is searched for JSON.
func PlainRefusal(payload []byte, cfg RefusalConfig, maxDepth int) (string, bool) {
	kind, ok := readsAsRefusal(payload, cfg)
	if !ok {
		return "", false
	}
	if cands, _ := jsontext.Extract(payload, maxDepth); len(cands) > 0 {
		return "", false
	}
	return kind, true
}

// readsAsRefusal is PlainRefusal's reading of the text alone.
func readsAsRefusal(payload []byte, cfg RefusalConfig) (string, bool) {
	if cfg.Off {
		return "", false
	}
	trimmed := bytes.TrimSpace(payload)
	if len(trimmed) == 0 || len(trimmed) > maxRefusalText {
		return "", false
	}
	if len(cfg.Patterns) > 0 {
		text := straight(string(trimmed))
		for _, re := range cfg.Patterns {
			if re.MatchString(text) {
				return RefusalByPattern, true
			}
		}
	}
	if trimmed[0] == '{' || trimmed[0] == '[' {
		// A document, whole or broken: the common case, kept cheap.
		return "", false
	}
	// The phrasings must start within the head; they are short.
	head := straight(string(trimmed[:min(len(trimmed), refusalHead+refusalPhrasingMax)]))
	if !hasRefusalWord(head) {
		return "", false
	}
	for _, re := range refusalPhrasings {
		for _, loc := range re.FindAllStringIndex(head, 4) {
			if loc[0] >= refusalHead {
				break
			}
			if !disqualified(head, loc) {
				return RefusalByText, true
			}
		}
	}
	return "", false
}

// apostrophes makes curly apostrophes straight.
var apostrophes = strings.NewReplacer("\u2019", "'", "\u2018", "'", "\u02bc", "'")

// straight is s with curly apostrophes straight.
func straight(s string) string {
	if !strings.ContainsAny(s, "\u2019\u2018\u02bc") {
		return s
	}
	return apostrophes.Replace(s)
}

// refusalWords are the words one of which every default phrasing holds:
// a text without any is no refusal, and costs no regular expression.
var refusalWords = []string{"can't", "cannot", "can not", "won't", "will not", "unable", "not able",
	"decline", "refuse", "not comfortable", "rather not", "not going to", "not allowed", "not permitted",
	"don't", "do not", "must not", "shouldn't", "should not", "against", "violat", "something i"}

func hasRefusalWord(head string) bool {
	lower := strings.ToLower(head)
	for _, w := range refusalWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// disqualified reports whether the match at loc is a figure of speech or
// a quotation (an odd number of double quotes before it) rather than a
// refusal.
func disqualified(text string, loc []int) bool {
	before := text[:loc[0]]
	if strings.Count(before, `"`)%2 == 1 || strings.HasSuffix(before, "'") || strings.HasSuffix(before, "\u201c") {
		return true
	}
	// The sentence the match starts in.
	sentence := before[strings.LastIndexAny(before, ".!?\n")+1:]
	if reportedSpeech.MatchString(sentence) {
		return true
	}
	end := min(len(text), loc[1]+20)
	window := text[loc[0]:end]
	for _, re := range refusalDisqualifiers {
		if re.MatchString(window) {
			return true
		}
	}
	return false
}
