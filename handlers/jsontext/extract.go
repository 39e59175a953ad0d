package jsontext

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentgate/agentgate/contract"
)

// DefaultMaxDepth is how deeply a document may nest before it is a
// violation at $ (keyword json).
const DefaultMaxDepth = 256

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
	// fence or a JSON string, and the lossless repair ops; nil when the
	// whole payload was the document.
	Normalizations []contract.Normalization
	// Losses lists the lossy repairs made to reach Doc (see Loss); the
	// pipeline turns each into a violation, or into an op lossy
	// normalization where the blueprint accepts lossy repairs.
	Losses []Loss
	// rank orders candidates as contract section 3.1 does, whichever pass
	// found them: the whole payload, then fences, then prose, then the
	// content of JSON strings, each group in document order.
	rank int64
}

// Candidate groups, in contract order (see Candidate.rank).
const (
	rankWhole int64 = iota << 32
	rankFence
	rankProse
	rankString
)

// rankOf is the rank of a block found as from (an extract Detail, "" for
// the whole payload) at offset start of the body.
func rankOf(from string, start int) int64 {
	switch from {
	case "":
		return rankWhole
	case extractedFromFence:
		return rankFence + int64(start)
	case extractedFromString:
		return rankString + int64(max(start, 0))
	}
	return rankProse + int64(start) // surrounding text, or a wrapper
}

// Extract finds the candidate JSON documents in payload, in the order of
// contract section 3.1: the whole payload (trimmed of whitespace and a UTF-8
// byte order mark) when it is one JSON value; otherwise each fenced block
// (``` or ~~~) whose content parses, in order, then each balanced {...} or
// [...] at the top level of the prose that parses, in order (its Detail
// names the wrapper around it, such as a <tool_call> tag, when there is
// one: see wrappers.go); then, for each candidate so far that is a JSON
// string holding a JSON object or array, that content. At most 16
// candidates are returned.
//
// Repair (op repair) runs only where strict parsing failed: on a payload or
// a JSON fence that is one broken or truncated document (it starts with {
// or [ and its first bracket closes at its end or never), at once, and on
// the other blocks that looked like JSON but did not parse (balanced spans
// of the prose, a document cut short in the prose, the content of a JSON
// string), only when nothing at all parsed; ExtractAll repairs those too
// whenever a block did not parse, for the pipeline to try when no strict
// candidate validates. A payload that is valid JSON never pays for any of
// it.
//
// A fragment of a broken document is never a candidate: not the balanced
// spans inside a document that never closes (at the start of a line, after
// a tag or a label), nor a span followed by more members of its object
// ({"a": 1}, "b": 2}); only the whole is repaired, and its Losses say what
// the repair lost or moved.
//
// maxDepth bounds nesting (DefaultMaxDepth when <= 0); it is checked on the
// bytes before anything is decoded, so a hostile payload costs time linear
// in its length and never deep recursion. Extract assumes valid UTF-8 (the
// gateway rejects anything else first).
//
// When no candidate is found Extract returns a violation at "$" with keyword
// contract.KeywordJSON whose message says what is wrong: an empty output, a
// document nesting deeper than maxDepth, the first syntax error met (and
// why repair failed), or no JSON at all.
func Extract(payload []byte, maxDepth int) ([]Candidate, *contract.Violation) {
	x, bad := extract(payload, maxDepth)
	if bad != nil {
		return nil, bad
	}
	slices.SortStableFunc(x.cands, func(a, b Candidate) int { return cmp.Compare(a.rank, b.rank) })
	return x.cands, nil
}

// ExtractAll is Extract with the repair pass run whenever some block did
// not parse, not only when nothing did: every candidate document of payload,
// repaired ones included, in contract order. The pipeline takes the first
// that validates, so a strict candidate that the schema rejects does not
// hide a repaired one that it accepts; a payload that is valid JSON still
// pays nothing for repair.
func ExtractAll(payload []byte, maxDepth int) ([]Candidate, *contract.Violation) {
	x, bad := extract(payload, maxDepth)
	if bad != nil {
		return nil, bad
	}
	if len(x.failed) > 0 {
		x.repairPass()
	}
	slices.SortStableFunc(x.cands, func(a, b Candidate) int { return cmp.Compare(a.rank, b.rank) })
	return x.cands, nil
}

// extract runs the strict pass, and the repair pass when it found nothing.
func extract(payload []byte, maxDepth int) (*extraction, *contract.Violation) {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	body := trimPayload(payload)
	if len(body) == 0 {
		return nil, extractViolation("the output is empty: expected a JSON document")
	}
	x := &extraction{maxDepth: maxDepth, body: body}
	x.scan()
	x.fromStrings(0)
	if len(x.cands) == 0 {
		x.repairPass()
	}
	if len(x.cands) == 0 {
		return nil, x.violation()
	}
	return x, nil
}

// extraction accumulates the candidates of one payload and what went wrong
// with the rest.
type extraction struct {
	maxDepth int
	body     []byte
	cands    []Candidate
	// tooDeep is set when a block was skipped for nesting deeper than
	// maxDepth.
	tooDeep bool
	// bad is the first block that looked like JSON but did not parse, and
	// badWhere says where it was.
	bad      []byte
	badWhere string
	// failed are the blocks that looked like JSON but did not parse, in
	// order, for the repair pass; repaired is set once it ran.
	failed   []failedBlock
	repaired bool
	// repairErr is the first reason repair gave for refusing a block.
	repairErr error
	// tried holds the body offsets of blocks already given to Repair.
	tried map[int]bool
}

// failedBlock is a block that did not parse: its text, the extract Detail
// it would be recorded with ("" for the whole payload) and its offset in
// the body (-1 for the content of a JSON string).
type failedBlock struct {
	text  []byte
	from  string
	start int
	// prior holds the normalizations of the candidate a string came from,
	// and rank the rank of the content of that string.
	prior []contract.Normalization
	rank  int64
}

// stringRank is the rank of the content of a JSON string found at parent's
// rank: after every other group, in the order of the strings.
func stringRank(parent int64) int64 {
	return rankString + parent&(1<<32-1) + (parent>>32)<<28
}

// scan is the strict pass: the whole payload, then fences, then prose.
func (x *extraction) scan() {
	body := x.body
	if x.whole(body) {
		return
	}
	if isJSONOpener(body[0]) && docLike(body) && x.repairNow(failedBlock{text: body, start: 0}) {
		return
	}
	var segments [][2]int
	prev := 0
	for _, f := range findFences(body) {
		segments = append(segments, [2]int{prev, f.open})
		prev = f.close
		if x.full() {
			continue
		}
		content := body[f.start:f.end]
		if doc, ok := x.try(content, extractedFromFence, true); ok {
			x.add(doc, extractedFromFence, f.start)
			continue
		}
		if !f.jsonish {
			continue
		}
		if t := trimPayload(content); len(t) > 0 && isJSONOpener(t[0]) && docLike(t) &&
			x.repairNow(failedBlock{text: t, from: extractedFromFence, start: offsetIn(body, t)}) {
			continue
		}
		segments = append(segments, [2]int{f.start, f.end})
	}
	segments = append(segments, [2]int{prev, len(body)})
	for _, seg := range segments {
		x.fromProse(seg[0], seg[1])
	}
}

// fromProse collects the balanced spans of body[from:to] that parse. A
// document cut short (a bracket that never closes, at the start of a line
// or right after a tag or a colon) is repaired at once, and the spans
// inside it are not candidates of their own. Spans that do not parse are
// kept for the repair pass.
func (x *extraction) fromProse(from, to int) {
	seg := x.body[from:to]
	spans, unclosed := topLevelSpans(seg)
	tail := -1
	for _, p := range unclosed {
		if docStart(seg, p) {
			tail = p
			break
		}
	}
	skip := 0 // spans before skip lie in a broken document already tried
	for _, sp := range spans {
		if x.full() {
			return
		}
		if tail >= 0 && sp[0] > tail {
			break
		}
		if sp[0] < skip {
			continue
		}
		if end, ok := continuedAt(seg, sp[1]); ok {
			// {"a": 1}, "b": 2}: the span is a fragment of a document
			// that goes on past it; only the whole may be a candidate.
			skip = end
			x.repairNow(failedBlock{text: seg[sp[0]:end], from: x.textDetail(seg, sp[0]), start: from + sp[0]})
			continue
		}
		x.span(seg, from, sp[0], sp[1])
	}
	if tail < 0 {
		if len(unclosed) > 0 {
			x.keepFailed(seg[unclosed[0]:], from+unclosed[0], x.textDetail(seg, unclosed[0]))
		}
		return
	}
	// The spans inside the tail are fragments of it, never candidates of
	// their own, whether it repairs or not.
	x.repairNow(failedBlock{text: seg[tail:], from: x.textDetail(seg, tail), start: from + tail})
}

// continuedAt reports whether the span of seg ending at end is followed by
// more members of the same object: a comma, a key and a colon, then text
// up to a closing bracket that nothing in it opened. It returns the end of
// that bracket. Linear in what it scans.
func continuedAt(seg []byte, end int) (int, bool) {
	j := skipSpace(seg, end)
	if j >= len(seg) || seg[j] != ',' {
		return 0, false
	}
	j = skipSpace(seg, j+1)
	if !keyAt(seg, j) {
		return 0, false
	}
	depth, inString := 0, false
	for k := j; k < len(seg); k++ {
		c := seg[k]
		if inString {
			switch c {
			case '\\':
				k++
			case '"', '\n':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return k + 1, true
			}
			depth--
		}
	}
	return 0, false
}

// keyAt reports whether an object key and its colon start at j: a quoted
// string on one line, or a word, then a colon.
func keyAt(b []byte, j int) bool {
	switch {
	case j >= len(b):
		return false
	case b[j] == '"' || b[j] == '\'':
		q := b[j]
		j++
		for j < len(b) && b[j] != q && b[j] != '\n' {
			if b[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(b) || b[j] != q {
			return false
		}
		j++
	case isIdentStart(b[j]):
		for j < len(b) && isIdentChar(b[j]) {
			j++
		}
	default:
		return false
	}
	j = skipSpace(b, j)
	return j < len(b) && b[j] == ':'
}

// skipSpace returns the first byte at or after j that is not whitespace.
func skipSpace(b []byte, j int) int {
	for j < len(b) && isSpace(b[j]) {
		j++
	}
	return j
}

// span tries one balanced span of the prose.
func (x *extraction) span(seg []byte, from, start, end int) {
	detail := x.textDetail(seg, start)
	if doc, ok := x.try(seg[start:end], extractedFromText, true); ok {
		x.add(doc, detail, from+start)
		return
	}
	x.keepFailed(seg[start:end], from+start, detail)
}

// textDetail is the extract Detail of a span starting at p of seg: the
// wrapper before it, else "surrounding text".
func (x *extraction) textDetail(seg []byte, p int) string {
	if w := wrapperBefore(seg, p); w != "" {
		return w
	}
	return extractedFromText
}

func (x *extraction) keepFailed(text []byte, start int, from string) {
	if len(x.failed) < 2*maxCandidates {
		if start == 0 && len(text) == len(x.body) {
			from = ""
		}
		x.failed = append(x.failed, failedBlock{text: text, from: from, start: start})
	}
}

// fromStrings adds the content of each candidate from the i-th on that is
// a JSON string holding a JSON object or array; content that does not parse
// is kept for the repair pass.
func (x *extraction) fromStrings(i int) {
	for n := len(x.cands); i < n && !x.full(); i++ {
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
			x.cands = append(x.cands, Candidate{Doc: doc, Normalizations: slices.Clip(norms), rank: stringRank(x.cands[i].rank)})
		} else if len(x.failed) < 2*maxCandidates {
			x.failed = append(x.failed, failedBlock{text: content, from: extractedFromString, start: -1,
				prior: x.cands[i].Normalizations, rank: stringRank(x.cands[i].rank)})
		}
	}
}

// repairPass repairs the blocks that did not parse, in order (the whole
// payload first when it starts like a JSON string), then looks into the
// repaired candidates that are JSON strings. It runs once.
func (x *extraction) repairPass() {
	if x.repaired {
		return
	}
	x.repaired = true
	n := len(x.cands)
	if c, _ := utf8.DecodeRune(x.body); quoteKind(c) != 0 || c == '\\' {
		x.repairNow(failedBlock{text: x.body, start: 0})
	}
	k := 0
	for ; k < len(x.failed) && !x.full(); k++ {
		x.repairNow(x.failed[k])
	}
	// Repaired candidates may be strings holding JSON, and string contents
	// that did not parse are repaired too.
	x.fromStrings(n)
	for ; k < len(x.failed) && !x.full(); k++ {
		x.repairNow(x.failed[k])
	}
}

// repairNow repairs one block into a candidate; false when Repair refuses.
// A block is repaired at most once.
func (x *extraction) repairNow(b failedBlock) bool {
	if b.start >= 0 {
		if x.tried[b.start] {
			return false
		}
		if x.tried == nil {
			x.tried = make(map[int]bool)
		}
		x.tried[b.start] = true
	}
	rep, err := RepairText(b.text, x.maxDepth)
	if err != nil {
		var re *RepairError
		if errors.As(err, &re) && strings.Contains(re.Reason, "nests deeper") {
			x.tooDeep = true
		}
		if x.repairErr == nil {
			x.repairErr = err
		}
		return false
	}
	doc, ok := decodeCandidate(rep.JSON)
	if !ok {
		return false
	}
	norms := slices.Clone(b.prior)
	if b.from != "" {
		norms = append(norms, extractNormalization(b.from))
	}
	rank := rankOf(b.from, b.start)
	if b.from == extractedFromString {
		rank = b.rank
	}
	x.cands = append(x.cands, Candidate{Doc: doc, Normalizations: slices.Clip(append(norms, rep.Normalizations...)), Losses: rep.Losses, rank: rank})
	return true
}

// whole takes the payload as the document when it is exactly one JSON value.
func (x *extraction) whole(body []byte) bool {
	switch c := body[0]; {
	case c == '{' || c == '[' || c == '"' || c == '-' || c == 't' || c == 'f' || c == 'n' || (c >= '0' && c <= '9'):
	default:
		return false
	}
	doc, ok := x.tryWhole(body)
	if ok {
		x.add(doc, "", 0)
		x.tried = map[int]bool{0: true} // the repair pass has nothing to add
	}
	return ok
}

// tryWhole is try for the whole payload, the common case of a valid
// output: no json.Valid screen before decoding (the decoder validates as it
// goes), so valid JSON costs one decode and a depth count.
func (x *extraction) tryWhole(b []byte) (any, bool) {
	if (b[0] == '{' || b[0] == '[') && exceedsDepth(b, x.maxDepth) {
		x.tooDeep = true
		return nil, false
	}
	doc, ok := decodeValue(b)
	if !ok && (b[0] == '{' || b[0] == '[') && x.bad == nil {
		x.bad, x.badWhere = b, "output"
	}
	return doc, ok
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

func (x *extraction) add(doc any, from string, start int) {
	c := Candidate{Doc: doc, rank: rankOf(from, start)}
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
		msg := fmt.Sprintf("no valid JSON document found: invalid JSON in the %s: %s", x.badWhere, syntaxError(x.bad))
		if x.repairErr != nil {
			msg += "; " + x.repairErr.Error()
		}
		return extractViolation(msg)
	default:
		return extractViolation("no JSON document found in the output: expected a JSON object or array")
	}
}

func extractViolation(msg string) *contract.Violation {
	return &contract.Violation{Path: "$", Keyword: contract.KeywordJSON, Message: msg}
}

// isJSONOpener reports whether c opens a JSON object or array.
func isJSONOpener(c byte) bool { return c == '{' || c == '[' }

// docLike reports whether b (starting with { or [) is one document, broken
// or cut short: its first bracket closes at its very end, or never, or
// more members follow it up to a closing bracket at the end
// ({"a": 1}, "b": 2}).
func docLike(b []byte) bool {
	spans, unclosed := topLevelSpans(b)
	if len(unclosed) > 0 && unclosed[0] == 0 {
		return true
	}
	if len(spans) == 0 || spans[0][0] != 0 {
		return false
	}
	if spans[0][1] == len(b) {
		return true
	}
	end, ok := continuedAt(b, spans[0][1])
	return ok && end == len(b)
}

// docStart reports whether a bracket at p of seg can start a document: it
// is followed by what JSON has there (a quote, a bracket, a number, or the
// end), and preceded by only spaces on its line, or by a tag's ">" or a
// label's ":".
func docStart(seg []byte, p int) bool {
	if rest := bytes.TrimLeft(seg[p+1:], " \t\r\n"); len(rest) > 0 && !bytes.ContainsAny(rest[:1], "\"'{[]}-0123456789") {
		return false
	}
	for q := p - 1; q >= 0; q-- {
		switch seg[q] {
		case ' ', '\t', '\r':
			continue
		case '\n', ':', '>':
			return true
		default:
			return false
		}
	}
	return true
}

// offsetIn returns where sub (a subslice of b) starts in b.
func offsetIn(b, sub []byte) int {
	if len(sub) == 0 {
		return -1
	}
	return cap(b) - cap(sub)
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
	return decodeValue(b)
}

// decodeValue decodes b with UseNumber when it is exactly one JSON value.
func decodeValue(b []byte) (any, bool) {
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
	// Nesting deeper than max needs more than max brackets; counting them
	// is vectorized and spares the byte loop for most documents.
	if bytes.Count(b, []byte{'{'})+bytes.Count(b, []byte{'['}) <= max {
		return false
	}
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
// them. The brackets left open at the end are returned too, outermost
// first. Time and memory are linear in len(b).
func topLevelSpans(b []byte) (spans [][2]int, unclosed []int) {
	var open []int
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
	return spans, open
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
