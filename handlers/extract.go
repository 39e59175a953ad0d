package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/agentgate/agentgate/contract"
)

// maxCandidates bounds how many candidate documents Extract returns.
const maxCandidates = 16

// What an extract normalization took the document out of (its Detail).
const (
	extractedFromFence  = "code fence"
	extractedFromText   = "surrounding text"
	extractedFromString = "json string"
)

// utf8BOM is the byte order mark some tools put before a UTF-8 payload.
var utf8BOM = []byte("\uFEFF")

// Candidate is one JSON document found in a payload.
type Candidate struct {
	// Doc is the document as encoding/json decodes it with UseNumber:
	// json.Number, map[string]any, []any, string, bool or nil.
	Doc any
	// Normalizations holds the extract ops (path "$", Detail saying from
	// what) when the document was taken out of surrounding text, a code
	// fence or a JSON string; nil when the whole payload was the document.
	Normalizations []contract.Normalization
}

// Extract finds the candidate JSON documents in payload, in the order of
// contract section 3.1: the whole payload (trimmed of whitespace and a UTF-8
// byte order mark) when it is one JSON value; otherwise each fenced block
// (``` or ~~~) whose content parses, in order, then each balanced {...} or
// [...] at the top level of the prose that parses, in order; then, for each
// candidate so far that is a JSON string holding a JSON object or array, that
// content. At most 16 candidates are returned.
//
// maxDepth bounds nesting (DefaultMaxDepth when <= 0); it is checked on the
// bytes before anything is decoded, so a hostile payload costs time linear
// in its length and never deep recursion. Extract assumes valid UTF-8 (the
// gateway rejects anything else first).
//
// When no candidate is found Extract returns a violation at "$" with keyword
// contract.KeywordJSON whose message says what is wrong: an empty output, a
// document nesting deeper than maxDepth, the first syntax error met, or no
// JSON at all.
func Extract(payload []byte, maxDepth int) ([]Candidate, *contract.Violation) {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	x := &extraction{maxDepth: maxDepth}
	body := trimPayload(payload)
	if len(body) == 0 {
		return nil, extractViolation("the output is empty: expected a JSON document")
	}
	if !x.whole(body) {
		x.fromMarkdown(body)
	}
	x.fromStrings()
	if len(x.cands) == 0 {
		return nil, x.violation()
	}
	return x.cands, nil
}

// extraction accumulates the candidates of one payload and what went wrong
// with the rest.
type extraction struct {
	maxDepth int
	cands    []Candidate
	// tooDeep is set when a block was skipped for nesting deeper than
	// maxDepth.
	tooDeep bool
	// bad is the first block that looked like JSON but did not parse, and
	// badWhere says where it was.
	bad      []byte
	badWhere string
}

// whole takes the payload as the document when it is exactly one JSON value.
func (x *extraction) whole(body []byte) bool {
	switch c := body[0]; {
	case c == '{' || c == '[' || c == '"' || c == '-' || c == 't' || c == 'f' || c == 'n' || (c >= '0' && c <= '9'):
	default:
		return false
	}
	doc, ok := x.try(body, "output", body[0] == '{' || body[0] == '[')
	if ok {
		x.add(doc, "")
	}
	return ok
}

// fromMarkdown collects the fenced blocks that parse, then the balanced
// spans of the prose between them (and of the unparsed fences that claim to
// hold JSON).
func (x *extraction) fromMarkdown(body []byte) {
	var segments [][]byte
	prev := 0
	for _, f := range findFences(body) {
		segments = append(segments, body[prev:f.open])
		prev = f.close
		content := body[f.start:f.end]
		if x.full() {
			continue
		}
		if doc, ok := x.try(content, extractedFromFence, true); ok {
			x.add(doc, extractedFromFence)
		} else if f.jsonish {
			segments = append(segments, content)
		}
	}
	segments = append(segments, body[prev:])
	for _, seg := range segments {
		for _, sp := range topLevelSpans(seg) {
			if x.full() {
				return
			}
			if doc, ok := x.try(seg[sp[0]:sp[1]], extractedFromText, true); ok {
				x.add(doc, extractedFromText)
			}
		}
	}
}

// fromStrings adds the content of each candidate that is a JSON string
// holding a JSON object or array.
func (x *extraction) fromStrings() {
	for i, n := 0, len(x.cands); i < n && !x.full(); i++ {
		s, ok := x.cands[i].Doc.(string)
		if !ok {
			continue
		}
		content := trimPayload([]byte(s))
		if len(content) == 0 || (content[0] != '{' && content[0] != '[') {
			continue
		}
		if doc, ok := x.try(content, extractedFromString, false); ok {
			norms := append(slices.Clone(x.cands[i].Normalizations), extractNormalization(extractedFromString))
			x.cands = append(x.cands, Candidate{Doc: doc, Normalizations: slices.Clip(norms)})
		}
	}
}

// try decodes b when it nests no deeper than maxDepth and is exactly one
// JSON value. record keeps the first failure for the violation message.
func (x *extraction) try(b []byte, where string, record bool) (any, bool) {
	b = trimPayload(b)
	if len(b) == 0 {
		return nil, false
	}
	// Only arrays and objects nest; anything else is a scalar or not JSON.
	if (b[0] == '{' || b[0] == '[') && exceedsDepth(b, x.maxDepth) {
		x.tooDeep = true
		return nil, false
	}
	doc, ok := decodeCandidate(b)
	if !ok && record && x.bad == nil {
		x.bad, x.badWhere = b, where
	}
	return doc, ok
}

func (x *extraction) add(doc any, from string) {
	c := Candidate{Doc: doc}
	if from != "" {
		c.Normalizations = []contract.Normalization{extractNormalization(from)}
	}
	x.cands = append(x.cands, c)
}

func (x *extraction) full() bool { return len(x.cands) >= maxCandidates }

// violation explains why nothing was found: nesting first (nothing deeper
// was even decoded), then the first syntax error, then plain absence.
func (x *extraction) violation() *contract.Violation {
	switch {
	case x.tooDeep:
		return extractViolation(fmt.Sprintf("document nests deeper than %d levels", x.maxDepth))
	case x.bad != nil:
		return extractViolation(fmt.Sprintf("no valid JSON document found: invalid JSON in the %s: %s", x.badWhere, syntaxError(x.bad)))
	default:
		return extractViolation("no JSON document found in the output: expected a JSON object or array")
	}
}

func extractViolation(msg string) *contract.Violation {
	return &contract.Violation{Path: "$", Keyword: contract.KeywordJSON, Message: msg}
}

func extractNormalization(from string) contract.Normalization {
	return contract.Normalization{Op: contract.OpExtract, Path: "$", Detail: from}
}

// decodeCandidate decodes b when it is exactly one JSON value: json.Valid
// screens cheaply (most blocks of prose fail it), then a Decoder with
// UseNumber decodes and must meet EOF after the value.
func decodeCandidate(b []byte) (any, bool) {
	if !json.Valid(b) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, false
	}
	return doc, true
}

// syntaxError describes why b does not parse; only called once, for the
// violation message.
func syntaxError(b []byte) string {
	var raw json.RawMessage
	err := json.Unmarshal(b, &raw)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
	case err != nil:
		return err.Error()
	default:
		return "not a single JSON value"
	}
}

// trimPayload trims surrounding whitespace and a leading byte order mark.
func trimPayload(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if bytes.HasPrefix(b, utf8BOM) {
		b = bytes.TrimSpace(b[len(utf8BOM):])
	}
	return b
}

// exceedsDepth reports whether b nests arrays and objects deeper than max.
// It reads bytes only, skipping JSON strings, and stops at the first level
// too many, so it is linear and allocation-free whatever b holds.
func exceedsDepth(b []byte, max int) bool {
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > max {
				return true
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return false
}

// topLevelSpans returns the [start, end) of each balanced {...} or [...] in
// b that no other balanced pair encloses, in order. One pass with a stack of
// open brackets: quotes open JSON strings only inside a bracket (in prose
// they are just quotes), a closing bracket that does not match the innermost
// open one is ignored, and a pair closing around earlier pairs replaces
// them. Time and memory are linear in len(b).
func topLevelSpans(b []byte) [][2]int {
	var open []int
	var spans [][2]int
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = len(open) > 0
		case '{', '[':
			open = append(open, i)
		case '}', ']':
			if len(open) == 0 {
				continue
			}
			o := open[len(open)-1]
			if (b[o] == '{') != (c == '}') {
				continue
			}
			open = open[:len(open)-1]
			// Pairs closed earlier and opened after o lie inside this one.
			for len(spans) > 0 && spans[len(spans)-1][0] > o {
				spans = spans[:len(spans)-1]
			}
			spans = append(spans, [2]int{o, i + 1})
		}
	}
	return spans
}

// fence is one fenced code block of a Markdown payload.
type fence struct {
	open, close int // the block, fence lines included
	start, end  int // its content
	// jsonish is set when the info string is empty or names JSON (json,
	// jsonc, json5, ...): such a block is scanned like prose when it does not
	// parse as a whole. Other languages' code is not searched for JSON.
	jsonish bool
}

// findFences returns the fenced blocks of b (CommonMark style: a line of at
// least three backticks or tildes, optionally indented, opens a block that a
// line of at least as many of the same character closes; an unclosed block
// runs to the end). Linear in len(b).
func findFences(b []byte) []fence {
	var (
		fences []fence
		cur    fence
		inside bool
		char   byte
		run    int
	)
	for pos := 0; pos <= len(b); {
		lineEnd := len(b)
		if i := bytes.IndexByte(b[pos:], '\n'); i >= 0 {
			lineEnd = pos + i
		}
		next := min(lineEnd+1, len(b))
		line := bytes.TrimRight(b[pos:lineEnd], "\r")
		switch {
		case !inside:
			if c, n, info, ok := fenceOpening(line); ok {
				inside, char, run = true, c, n
				cur = fence{open: pos, start: next, jsonish: jsonInfo(info)}
			}
		case fenceClosing(line, char, run):
			inside = false
			cur.end, cur.close = pos, next
			fences = append(fences, cur)
		}
		if lineEnd == len(b) {
			break
		}
		pos = next
	}
	if inside {
		cur.end, cur.close = len(b), len(b)
		fences = append(fences, cur)
	}
	return fences
}

// fenceOpening reports whether line opens a fenced block, with the fence
// character, its run length and the info string.
func fenceOpening(line []byte) (char byte, run int, info []byte, ok bool) {
	t := bytes.TrimLeft(line, " \t")
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return 0, 0, nil, false
	}
	char = t[0]
	for run < len(t) && t[run] == char {
		run++
	}
	if run < 3 {
		return 0, 0, nil, false
	}
	info = bytes.TrimSpace(t[run:])
	if char == '`' && bytes.IndexByte(info, '`') >= 0 {
		return 0, 0, nil, false // inline code such as ```{"a":1}```, not a fence
	}
	return char, run, info, true
}

func fenceClosing(line []byte, char byte, run int) bool {
	t := bytes.TrimSpace(line)
	if len(t) < run {
		return false
	}
	for _, c := range t {
		if c != char {
			return false
		}
	}
	return true
}

func jsonInfo(info []byte) bool {
	if i := bytes.IndexAny(info, " \t{"); i >= 0 {
		info = info[:i]
	}
	return len(info) == 0 || bytes.HasPrefix(bytes.ToLower(info), []byte("json"))
}
