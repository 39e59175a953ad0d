package jsontext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/agentgate/agentgate/contract"
)

// MaxRepairBytes is the largest text Repair accepts (the default payload
// limit of contract section 3.4); a larger one is refused, not repaired.
const MaxRepairBytes = 1 << 20

// repairBudgetFactor bounds the bytes Repair may scan, as a multiple of the
// text's length: a broken string can be scanned twice (once assuming its end
// quote is missing, once stopping at the first delimiter), and the lookahead
// after a candidate end quote rescans a little. Past the budget Repair gives
// up rather than go quadratic on a hostile input.
const repairBudgetFactor = 8

// Repair details: what each kind of repair is recorded as (the Detail of a
// contract.OpRepair normalization).
const (
	RepairTruncated      = "closed truncated document"
	repairFence          = "Markdown code fence removed"
	repairComment        = "comment removed"
	repairWhitespace     = "special whitespace replaced"
	repairLeadingComma   = "leading comma removed"
	repairTrailingComma  = "trailing comma removed"
	repairMissingComma   = "missing comma inserted"
	repairMissingColon   = "missing colon inserted"
	repairMissingValue   = "missing value replaced by null"
	repairMissingClose   = "missing closing bracket inserted"
	repairRedundantClose = "redundant closing bracket removed"
	repairQuotes         = "single or typographic quotes replaced by double quotes"
	repairMissingQuote   = "missing quote inserted"
	repairUnquoted       = "unquoted key or string quoted"
	repairEscaping       = "string escaping repaired"
	repairEscapedDoc     = "escaped JSON unescaped"
	repairPython         = "Python constant converted"
	repairUndefined      = "undefined replaced by null"
	repairNumber         = "malformed number repaired"
	repairRegex          = "regular expression quoted"
	repairEllipsis       = "ellipsis removed"
	repairCall           = "function call wrapper removed (JSONP, MongoDB)"
	repairConcat         = "concatenated strings joined"
	repairSeveral        = "several values wrapped in an array"
	repairLiteral        = "literal in the wrong case converted"
	repairFraction       = "fraction quoted as text"
	repairStrayWord      = "stray word between members removed"
	repairSet            = "set of strings converted to an array"
	repairProseValue     = "unquoted text with commas quoted as one string"
)

// Lossy repairs: what each loss is recorded as (the Detail of a
// contract.OpLossy normalization, or the message of the violation it
// becomes). RepairTruncated is one of them.
const (
	lossPlaceholder  = "missing value replaced by a placeholder"
	lossEllipsis     = "ellipsis removed: content the model left out"
	lossMoved        = "member written after its object's closing bracket moved into it"
	lossGuessedClose = "missing closing bracket guessed before more content"
	lossNumber       = "incomplete number completed with 0"
	lossEmptyCall    = "empty function call replaced by null"
)

// maxLosses bounds the losses Repair records one by one; the last one
// counts the rest.
const maxLosses = 16

// repairKinds lists the lossless repair details in the order Repair
// reports them.
var repairKinds = []string{
	repairFence, repairComment, repairWhitespace, repairLeadingComma,
	repairTrailingComma, repairMissingComma, repairMissingColon, repairMissingValue,
	repairMissingClose, repairRedundantClose, repairQuotes, repairMissingQuote,
	repairUnquoted, repairEscaping, repairEscapedDoc, repairPython, repairUndefined,
	repairNumber, repairRegex, repairCall, repairConcat, repairSeveral,
	repairLiteral, repairFraction, repairStrayWord, repairSet, repairProseValue,
}

// RepairError says why a text could not be repaired into JSON.
type RepairError struct {
	// Offset is the byte of the text where repair gave up.
	Offset int
	// Reason says what was wrong there.
	Reason string
}

// Error implements error.
func (e *RepairError) Error() string {
	return fmt.Sprintf("cannot repair JSON: %s (at byte %d)", e.Reason, e.Offset)
}

// Loss is one lossy repair: a place where the repaired document does not
// hold what the model wrote, or meant to write (contract section 3.1): a
// document closed where its text was cut off, a placeholder for a missing
// value, content the model elided, a member moved across a bracket, a
// closing bracket guessed before more content.
type Loss struct {
	// Keyword is contract.KeywordTruncated when the text was cut off, else
	// contract.KeywordRepair.
	Keyword string
	// Path is where content was lost, in the repaired document.
	Path string
	// Detail says what was done (RepairTruncated, ...).
	Detail string
	// Offset is the byte of the repaired text where it happened, and Text
	// the text around it.
	Offset int
	Text   string
}

// Normalization is the loss as an op contract.OpLossy normalization.
func (l Loss) Normalization() contract.Normalization {
	return contract.Normalization{Op: contract.OpLossy, Path: l.Path, Detail: l.Detail}
}

// Repaired is what repair made of a text.
type Repaired struct {
	// JSON is the repaired document.
	JSON []byte
	// Normalizations holds one contract.OpRepair normalization at "$" per
	// kind of lossless repair made.
	Normalizations []contract.Normalization
	// Losses lists the lossy repairs, in the order of the text (at most
	// 16; the last one then says how many more there were).
	Losses []Loss
}

// Repair turns text into one strict JSON value when it is JSON with the
// syntax defects models and hand-written JSON have: Markdown fences (a
// closing one glued to the document too), //, /* */ and # comments, single
// or typographic quotes, Python's None/True/False and Python sets of
// strings, TRUE/Null and the like, undefined, unquoted keys and strings
// (prose with commas included), stray words between members, trailing and
// leading commas, missing commas, colons, quotes and brackets, unescaped
// quotes and control characters in strings, fractions (kept as text),
// JSONP and MongoDB call wrappers, concatenated strings, newline-delimited
// values (wrapped in an array); and, as lossy repairs (see Loss), ellipses,
// missing values, members written after their object's closing bracket,
// guessed brackets and documents cut short (closed, recorded as
// RepairTruncated).
//
// Text that is already one JSON value is returned as it is, with no repairs.
// Otherwise the result is compact JSON (string contents are kept as
// written) and repairs holds one contract.OpRepair normalization at "$" per
// kind of lossless repair made, its Detail saying what was repaired and how
// often, then one contract.OpLossy normalization per lossy repair, at the
// path where content was lost (see Loss and RepairText).
//
// Repair refuses (a *RepairError) what it cannot repair without guessing:
// an empty text, a missing object key or colon before a non-value, trailing
// text after the value, an invalid \u escape, a raw control character
// other than tab, newline, carriage return, backspace or form feed in a
// string, invalid UTF-8, nesting deeper than maxDepth (DefaultMaxDepth when
// <= 0), text longer than MaxRepairBytes, and input so irregular that the
// scan budget (linear in the text's length) runs out. Recursion is bounded
// by maxDepth and time and memory are linear in len(text).
func Repair(text []byte, maxDepth int) ([]byte, []contract.Normalization, error) {
	rep, err := RepairText(text, maxDepth)
	if err != nil {
		return nil, nil, err
	}
	ops := rep.Normalizations
	for _, l := range rep.Losses {
		ops = append(ops, l.Normalization())
	}
	return rep.JSON, ops, nil
}

// RepairText is Repair with the losses apart: the pipeline turns each into
// a violation, or into an op lossy normalization where the blueprint
// accepts lossy repairs.
func RepairText(text []byte, maxDepth int) (Repaired, error) {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	switch {
	case len(text) > MaxRepairBytes:
		return Repaired{}, &RepairError{Offset: MaxRepairBytes, Reason: fmt.Sprintf("text longer than %d bytes", MaxRepairBytes)}
	case !utf8.Valid(text):
		return Repaired{}, &RepairError{Offset: invalidUTF8At(text), Reason: "invalid UTF-8"}
	case json.Valid(text):
		if exceedsDepth(text, maxDepth) {
			return Repaired{}, &RepairError{Offset: 0, Reason: fmt.Sprintf("document nests deeper than %d levels", maxDepth)}
		}
		return Repaired{JSON: text, Normalizations: []contract.Normalization{}}, nil
	}
	r := &repairer{in: text, maxDepth: maxDepth, budget: repairBudgetFactor*len(text) + 4096, lastNL: -1}
	r.stripClosingFence()
	r.out = make([]byte, 0, len(text)+16)
	r.root()
	if r.err != nil {
		return Repaired{}, r.err
	}
	if !json.Valid(r.out) {
		// A defect of this repairer, never of the input: refuse rather than
		// hand on something that is not JSON.
		return Repaired{}, &RepairError{Offset: len(text), Reason: "repair did not produce valid JSON"}
	}
	if r.moreLosses > 0 {
		last := &r.losses[len(r.losses)-1]
		last.Detail += fmt.Sprintf(" (and %d more lossy repairs)", r.moreLosses)
	}
	return Repaired{JSON: r.out, Normalizations: r.normalizations(), Losses: r.losses}, nil
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		c, size := utf8.DecodeRune(b[i:])
		if c == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// repairer is the state of one Repair call: a recursive descent over in
// that writes compact JSON to out. Errors are sticky: the first one is kept
// in err and every loop stops on it.
type repairer struct {
	in       []byte
	i        int
	out      []byte
	depth    int
	maxDepth int
	budget   int
	// lastNL is the offset of the last newline skipped as whitespace.
	lastNL int
	counts map[string]int
	err    *RepairError
	// inConcat is set while concat parses the next string, so that a chain
	// "a" + "b" + ... is joined by concat's loop, not by recursion.
	inConcat bool
	// stack holds the containers being written, for the paths of losses.
	stack []frame
	// losses are the lossy repairs so far; truncated is set once the
	// truncation is among them, and moved while the first member moved
	// into a reopened object is awaited.
	losses     []Loss
	moreLosses int
	truncated  bool
	moved      int
}

// frame is one container being written: an object, whose current key is
// out[keyStart:keyEnd] (keyStart < 0 between members), or an array, whose
// current element is index (while inElem).
type frame struct {
	object           bool
	keyStart, keyEnd int
	index            int
	inElem           bool
}

// push opens a frame for a container.
func (r *repairer) push(object bool) {
	r.stack = append(r.stack, frame{object: object, keyStart: -1})
}

func (r *repairer) pop() { r.stack = r.stack[:len(r.stack)-1] }

func (r *repairer) top() *frame { return &r.stack[len(r.stack)-1] }

// path is the JSONPath of the value being written (of the innermost
// container, between its members).
func (r *repairer) path() string {
	p := "$"
	for _, f := range r.stack {
		switch {
		case f.object && f.keyStart >= 0:
			var key string
			if json.Unmarshal(r.out[f.keyStart:f.keyEnd], &key) != nil {
				key = string(r.out[f.keyStart:f.keyEnd])
			}
			p = contract.Member(p, key)
		case !f.object && f.inElem:
			p = contract.Index(p, f.index)
		default:
			return p
		}
	}
	return p
}

// lose records a lossy repair at the current path (the truncation once).
func (r *repairer) lose(keyword, detail string) {
	if r.admit(keyword) {
		r.loseAt(keyword, detail, r.path(), r.i)
	}
}

// admit reports whether a loss of keyword is to be recorded one by one:
// the truncation only once, and beyond maxLosses only counted (without
// building its path).
func (r *repairer) admit(keyword string) bool {
	if keyword == contract.KeywordTruncated {
		if r.truncated {
			return false
		}
		r.truncated = true
	}
	if len(r.losses) >= maxLosses {
		r.moreLosses++
		return false
	}
	return true
}

// loseAt records a loss admitted at path and offset.
func (r *repairer) loseAt(keyword, detail, path string, offset int) {
	r.losses = append(r.losses, Loss{Keyword: keyword, Path: path, Detail: detail, Offset: offset, Text: textAround(r.in, offset)})
}

// textAround is the text of in around offset: up to 48 bytes before it and
// 24 after, on rune boundaries, with surrounding space trimmed.
func textAround(in []byte, offset int) string {
	from, to := max(offset-48, 0), min(offset+24, len(in))
	for from > 0 && !utf8.RuneStart(in[from]) {
		from--
	}
	for to < len(in) && !utf8.RuneStart(in[to]) {
		to++
	}
	return string(bytes.TrimSpace(in[from:to]))
}

// stripClosingFence ends the text before a closing Markdown fence glued to
// it ({"a": 1```): the fence is not part of the document.
func (r *repairer) stripClosingFence() {
	t := bytes.TrimRight(r.in, " \t\r\n")
	if !bytes.HasSuffix(t, []byte("```")) || bytes.HasPrefix(bytes.TrimLeft(t, " \t\r\n"), []byte("```")) {
		return
	}
	t = bytes.TrimRight(t, "`")
	if len(t) == 0 {
		return
	}
	r.in = t
	r.note(repairFence)
}

func (r *repairer) fail(reason string) {
	if r.err == nil {
		r.err = &RepairError{Offset: r.i, Reason: reason}
	}
}

func (r *repairer) note(kind string) {
	if r.counts == nil {
		r.counts = make(map[string]int)
	}
	r.counts[kind]++
}

// noteMissing records kind, or the truncation when the text ended there.
func (r *repairer) noteMissing(kind string) {
	if r.eof() {
		r.lose(contract.KeywordTruncated, RepairTruncated)
		return
	}
	r.note(kind)
}

// loseMissing records a lossy repair, or the truncation when the text ended
// there.
func (r *repairer) loseMissing(detail string) {
	if r.eof() {
		r.lose(contract.KeywordTruncated, RepairTruncated)
		return
	}
	r.lose(contract.KeywordRepair, detail)
}

func (r *repairer) normalizations() []contract.Normalization {
	ops := []contract.Normalization{}
	for _, kind := range repairKinds {
		n := r.counts[kind]
		if n == 0 {
			continue
		}
		detail := kind
		if n > 1 {
			detail = fmt.Sprintf("%s (%d times)", kind, n)
		}
		ops = append(ops, contract.Normalization{Op: contract.OpRepair, Path: "$", Detail: detail})
	}
	return ops
}

func (r *repairer) eof() bool { return r.i >= len(r.in) }

// at returns the byte at i, or 0 past the end.
func (r *repairer) at(i int) byte {
	if i < 0 || i >= len(r.in) {
		return 0
	}
	return r.in[i]
}

// runeAt decodes the rune at i (0, 0 past the end).
func (r *repairer) runeAt(i int) (rune, int) {
	if i >= len(r.in) {
		return 0, 0
	}
	if c := r.in[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRune(r.in[i:])
}

// spend takes n from the scan budget and fails once it is spent.
func (r *repairer) spend(n int) bool {
	r.budget -= n
	if r.budget < 0 {
		r.fail("input too irregular to repair within the scan budget")
		return false
	}
	return true
}

// root parses the one top-level value, then what may follow it.
func (r *repairer) root() {
	r.skipWS()
	r.skipFence(true)
	if !r.value() {
		if r.err == nil {
			if r.eof() {
				r.fail("unexpected end of input: expected a JSON value")
			} else {
				r.fail(fmt.Sprintf("unexpected character %q", r.runeString(r.i)))
			}
		}
		return
	}
	end := r.i
	r.skipWS()
	r.skipFence(false)
	for r.err == nil && r.reopen(end) {
		end = r.i
		r.skipWS()
	}
	comma := r.at(r.i) == ','
	if comma {
		r.i++
		r.skipWS()
	}
	newline := r.lastNL >= end && r.lastNL < r.i
	if !r.eof() && startsValue(r.peekRune()) && (comma || newline) {
		r.several()
	} else if comma {
		r.note(repairTrailingComma)
	}
	for r.err == nil && (r.at(r.i) == '}' || r.at(r.i) == ']') {
		r.i++
		r.note(repairRedundantClose)
		r.skipWS()
	}
	if r.err == nil && !r.eof() {
		r.fail(fmt.Sprintf("unexpected character %q after the JSON value", r.runeString(r.i)))
	}
}

// reopen continues the root object when members follow its closing
// bracket ({"a": 1}, "b": 2}): they are moved into it, a lossy repair
// recorded at the first of them. end is where the root value ended.
func (r *repairer) reopen(end int) bool {
	n := len(r.out)
	if n == 0 || r.out[0] != '{' || r.out[n-1] != '}' || r.at(r.i) != ',' {
		return false
	}
	j := r.peekSpaceNL(r.i + 1)
	if !r.memberAt(j) {
		return false
	}
	r.i = j
	r.out = append(r.out[:n-1], ',')
	r.moved = end // the bracket the member was moved across ends before end
	if !r.enter() {
		return false
	}
	defer func() { r.depth-- }()
	r.push(true)
	defer r.pop()
	return r.members()
}

// quotedEnd scans the string that the quote at j (" or ') opens and that
// must close on its line: the index after its closing quote and true, or
// where the scan stopped and false.
func (r *repairer) quotedEnd(j int) (int, bool) {
	q := r.in[j]
	j++
	for j < len(r.in) && r.in[j] != q && r.in[j] != '\n' {
		if r.in[j] == '\\' {
			j++
		}
		j++
	}
	if j >= len(r.in) || r.in[j] != q {
		return j, false
	}
	return j + 1, true
}

// memberAt reports whether a member starts at j: a quoted or unquoted key
// on one line, then a colon.
func (r *repairer) memberAt(j int) bool {
	from := j
	defer func() { r.budget -= j - from }()
	switch q := r.at(j); {
	case q == '"' || q == '\'':
		var closed bool
		if j, closed = r.quotedEnd(j); !closed {
			return false
		}
	case isIdentStart(q):
		for j < len(r.in) && isIdentChar(r.in[j]) {
			j++
		}
	default:
		return false
	}
	j = r.peekSpace(j)
	return r.at(j) == ':'
}

// peekSpaceNL is peekSpace that also skips newlines.
func (r *repairer) peekSpaceNL(j int) int {
	for {
		j = r.peekSpace(j)
		if r.at(j) != '\n' {
			return j
		}
		j++
	}
}

// several wraps newline- or comma-separated values in an array; the first
// value is already in out.
func (r *repairer) several() {
	r.note(repairSeveral)
	r.out = append(r.out, 0)
	copy(r.out[1:], r.out)
	r.out[0] = '['
	for r.err == nil && !r.eof() {
		if !startsValue(r.peekRune()) {
			break
		}
		r.out = append(r.out, ',')
		if !r.value() {
			r.out = r.out[:len(r.out)-1]
			break
		}
		r.skipWS()
		if r.at(r.i) == ',' {
			r.i++
			r.skipWS()
		}
	}
	r.out = append(r.out, ']')
}

// peekRune returns the rune at i (0 at the end).
func (r *repairer) peekRune() rune {
	c, _ := r.runeAt(r.i)
	return c
}

func (r *repairer) runeString(i int) string {
	c, _ := r.runeAt(i)
	return string(c)
}

// skipFence skips a Markdown fence (and, opening, its info string).
func (r *repairer) skipFence(opening bool) {
	var marks []string
	if opening {
		marks = []string{"```", "[```", "{```"}
	} else {
		marks = []string{"```]", "```}", "```"}
	}
	for _, m := range marks {
		if bytes.HasPrefix(r.in[r.i:], []byte(m)) {
			r.i += len(m)
			r.note(repairFence)
			if opening {
				for !r.eof() && isIdentChar(r.in[r.i]) {
					r.i++
				}
			}
			r.skipWS()
			return
		}
	}
}

// skipWS skips whitespace (special whitespace is a repair) and comments.
func (r *repairer) skipWS() {
	for !r.eof() {
		c := r.in[r.i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			r.i++
		case c == '\n':
			r.lastNL = r.i
			r.i++
		case c == '/' && r.at(r.i+1) == '*':
			r.note(repairComment)
			end := bytes.Index(r.in[r.i+2:], []byte("*/"))
			if end < 0 {
				r.i = len(r.in)
			} else {
				r.i += 2 + end + 2
			}
		case r.hashComment(r.i):
			r.note(repairComment)
			r.i = r.hashCommentEnd(r.i)
		case c == '/' && r.at(r.i+1) == '/':
			r.note(repairComment)
			end := bytes.IndexByte(r.in[r.i:], '\n')
			if end < 0 {
				r.i = len(r.in)
			} else {
				r.i += end
			}
		case c >= utf8.RuneSelf:
			ch, size := r.runeAt(r.i)
			if !isSpecialSpace(ch) {
				return
			}
			r.note(repairWhitespace)
			r.i += size
		default:
			return
		}
	}
}

// hashComment reports whether a Python or YAML comment starts at j: a #
// then a space or another #, inside a document (#fff is a value).
func (r *repairer) hashComment(j int) bool {
	if r.at(j) != '#' || len(r.stack) == 0 {
		return false
	}
	c := r.at(j + 1)
	return c == ' ' || c == '\t' || c == '#'
}

// hashCommentEnd returns the end of the # comment at j: the end of its
// line, or the closing bracket of the innermost container on it
// ({"a": 1 # the count }), whichever comes first.
func (r *repairer) hashCommentEnd(j int) int {
	closer := byte(']')
	if r.top().object {
		closer = '}'
	}
	for j < len(r.in) && r.in[j] != '\n' && r.in[j] != closer {
		j++
	}
	return j
}

// skipEllipsis skips "..." and a comma after it: content the model left
// out, a lossy repair.
func (r *repairer) skipEllipsis() {
	r.skipWS()
	if bytes.HasPrefix(r.in[r.i:], []byte("...")) {
		r.lose(contract.KeywordRepair, lossEllipsis)
		r.i += 3
		r.skipWS()
		if r.at(r.i) == ',' {
			r.i++
			r.skipWS()
		}
	}
}

// value parses one value at i (whitespace before it skipped, none after).
func (r *repairer) value() bool {
	r.skipWS()
	if r.err != nil || r.eof() {
		return false
	}
	switch c := r.in[r.i]; {
	case c == '{':
		return r.object()
	case c == '[':
		return r.array()
	}
	return r.str(false, -1) || r.number() || r.keyword() || r.unquoted(false) || r.regex()
}

func (r *repairer) enter() bool {
	r.depth++
	if r.depth > r.maxDepth {
		r.fail(fmt.Sprintf("document nests deeper than %d levels", r.maxDepth))
		return false
	}
	return true
}

func (r *repairer) stripComma() bool {
	if n := len(r.out); n > 0 && r.out[n-1] == ',' {
		r.out = r.out[:n-1]
		return true
	}
	return false
}

// object parses an object, or a Python set of strings ({'a', 'b'}) as an
// array.
func (r *repairer) object() bool {
	if !r.enter() {
		return false
	}
	defer func() { r.depth-- }()
	r.i++
	if r.setAhead() {
		r.note(repairSet)
		r.out = append(r.out, '[')
		r.push(false)
		defer r.pop()
		return r.elements('}')
	}
	r.out = append(r.out, '{')
	r.push(true)
	defer r.pop()
	r.skipEllipsis()
	if r.at(r.i) == ',' {
		r.i++
		r.note(repairLeadingComma)
	}
	return r.members()
}

// members parses an object's members and its closing bracket; its frame is
// on the stack and its opening bracket written.
func (r *repairer) members() bool {
	f := len(r.stack) - 1
	for r.err == nil {
		r.stack[f].keyStart = -1
		r.skipEllipsis()
		if r.eof() {
			if r.stripComma() {
				r.lose(contract.KeywordTruncated, RepairTruncated)
			}
			break
		}
		if r.at(r.i) == '}' {
			if r.stripComma() {
				r.note(repairTrailingComma)
			}
			break
		}
		if k, ok := r.strayWords(); ok {
			r.i = k
			r.note(repairStrayWord)
		}
		keyStart := len(r.out)
		if !r.str(false, -1) && !r.unquoted(true) {
			if r.err != nil {
				return false
			}
			switch r.at(r.i) {
			case '{', '[', ']':
				if r.stripComma() {
					r.note(repairTrailingComma)
				}
			default:
				r.fail("object key expected")
				return false
			}
			break
		}
		r.stack[f].keyStart, r.stack[f].keyEnd = keyStart, len(r.out)
		if r.moved > 0 && r.admit(contract.KeywordRepair) {
			r.loseAt(contract.KeywordRepair, lossMoved, r.path(), r.moved-1)
		}
		r.moved = 0
		r.skipWS()
		colon := r.at(r.i) == ':'
		if colon {
			r.i++
			r.out = append(r.out, ':')
		} else if r.eof() || startsValue(r.peekRune()) {
			r.out = append(r.out, ':')
			r.noteMissing(repairMissingColon)
		} else {
			r.fail("colon expected")
			return false
		}
		if !r.value() {
			if r.err != nil {
				return false
			}
			if !colon && !r.eof() {
				r.fail("colon expected")
				return false
			}
			r.out = append(r.out, "null"...)
			r.loseMissing(lossPlaceholder)
		}
		r.skipWS()
		switch c, _ := r.runeAt(r.i); {
		case c == ',':
			r.i++
			r.out = append(r.out, ',')
			continue
		case c == '}' || r.eof():
		case c == '{':
			// {"i":1{"i":2}: the object ended without its brace, or the
			// next object belongs in it: a guess.
			r.stack[f].keyStart = -1
			r.out = append(r.out, '}')
			r.note(repairMissingClose)
			r.lose(contract.KeywordRepair, lossGuessedClose)
			return true
		case startsValue(c):
			r.out = append(r.out, ',')
			r.note(repairMissingComma)
			continue
		}
		break
	}
	if r.err != nil {
		return false
	}
	r.out = append(r.out, '}')
	if r.at(r.i) == '}' {
		r.i++
	} else {
		r.closeMissing()
	}
	return true
}

// closeMissing records a closing bracket inserted at i: the truncation at
// the end of the text; elsewhere a repair, and a lossy one unless the
// bracket found closes the enclosing container with nothing after it in
// that container (else where the missing bracket belongs is a guess:
// members may have moved across it).
func (r *repairer) closeMissing() {
	f := r.top()
	f.keyStart, f.inElem = -1, false
	if r.eof() {
		r.lose(contract.KeywordTruncated, RepairTruncated)
		return
	}
	r.note(repairMissingClose)
	// Certain only where the bracket found closes the enclosing container
	// ([{"a": 1]) and that container ends there.
	c, closes := r.at(r.i), false
	if n := len(r.stack); n >= 2 {
		closes = (c == '}' && r.stack[n-2].object) || (c == ']' && !r.stack[n-2].object)
	} else {
		closes = c == '}' || c == ']'
	}
	if j := r.peekSpaceNL(r.i + 1); !closes || r.at(j) == ',' || r.at(j) == ':' {
		r.lose(contract.KeywordRepair, lossGuessedClose)
	}
}

func (r *repairer) array() bool {
	if !r.enter() {
		return false
	}
	defer func() { r.depth-- }()
	r.out = append(r.out, '[')
	r.i++
	r.push(false)
	defer r.pop()
	r.skipEllipsis()
	if r.at(r.i) == ',' {
		r.i++
		r.note(repairLeadingComma)
	}
	return r.elements(']')
}

// elements parses an array's elements up to closer, and writes its closing
// bracket; its frame is on the stack and its opening bracket written.
func (r *repairer) elements(closer byte) bool {
	f := len(r.stack) - 1
	for r.err == nil {
		r.stack[f].inElem = false
		r.skipEllipsis()
		if r.eof() {
			if r.stripComma() {
				r.lose(contract.KeywordTruncated, RepairTruncated)
			}
			break
		}
		if r.at(r.i) == closer {
			if r.stripComma() {
				r.note(repairTrailingComma)
			}
			break
		}
		r.stack[f].inElem = true
		if !r.value() {
			if r.err != nil {
				return false
			}
			r.stack[f].inElem = false
			if r.stripComma() {
				r.note(repairTrailingComma)
			}
			break
		}
		r.skipWS()
		switch c, _ := r.runeAt(r.i); {
		case c == ',':
			r.i++
			r.out = append(r.out, ',')
			r.stack[f].index++
			continue
		case c == rune(closer) || r.eof():
		case startsValue(c):
			r.out = append(r.out, ',')
			r.note(repairMissingComma)
			r.stack[f].index++
			continue
		}
		break
	}
	if r.err != nil {
		return false
	}
	r.out = append(r.out, ']')
	if r.at(r.i) == closer {
		r.i++
	} else {
		r.closeMissing()
	}
	return true
}

// setAhead reports whether a Python set of strings starts at i (just
// after its opening brace): two or more quoted strings, separated by
// commas, then the closing brace, and no colon. Each byte is looked at by
// one setAhead at most: it never crosses a bracket.
func (r *repairer) setAhead() bool {
	j, n := r.i, 0
	defer func() { r.budget -= j - r.i }()
	for {
		j = r.peekSpaceNL(j)
		if n >= 2 && r.at(j) == '}' {
			return true
		}
		if q := r.at(j); q != '"' && q != '\'' {
			return false
		}
		var closed bool
		if j, closed = r.quotedEnd(j); !closed {
			return false
		}
		n++
		j = r.peekSpaceNL(j)
		switch r.at(j) {
		case ',':
			j++
		case '}':
			return n >= 2
		default:
			return false
		}
	}
}

// strayWords reports whether words that are neither key nor value stand
// before a member ({"a": 1, note "b": 2}): unquoted words, spaces, then a
// quoted key and a colon. It returns where the key starts.
func (r *repairer) strayWords() (int, bool) {
	j := r.i
	if !isIdentStart(r.at(j)) {
		return 0, false
	}
	for {
		w := j
		for j < len(r.in) && isIdentChar(r.in[j]) {
			j++
		}
		if j == w {
			return 0, false
		}
		k := j
		for k < len(r.in) && (r.in[k] == ' ' || r.in[k] == '\t') {
			k++
		}
		if k == j {
			return 0, false
		}
		j = k
		if q := r.at(j); q == '"' || q == '\'' {
			if !r.spend(j-r.i) || !r.memberAt(j) {
				return 0, false
			}
			return j, true
		}
	}
}

// quoteKind classifies a quote character: 1 for ", 2 for ', 3 for the
// other single-quote-likes (‘ ’ ` ´), 4 for “ ”; 0 for anything else.
func quoteKind(c rune) int {
	switch c {
	case '"':
		return 1
	case '\'':
		return 2
	case '\u2018', '\u2019', '`', '\u00b4':
		return 3
	case '\u201c', '\u201d':
		return 4
	}
	return 0
}

// ends reports whether c closes a string opened with a quote of kind k.
func ends(k int, c rune) bool {
	switch k {
	case 1:
		return c == '"'
	case 2:
		return c == '\''
	case 3:
		return c == '\'' || quoteKind(c) == 3
	default:
		return c == '"' || quoteKind(c) == 4
	}
}

// str parses a string. A string whose end quote turns out to be missing (no
// delimiter after it, or the text ends) is parsed again from its start,
// ending at the first delimiter (stopAtDelimiter) or at the comma found
// before the misplaced quote (stopAt).
func (r *repairer) str(stopAtDelimiter bool, stopAt int) bool {
	start := r.i
	escapedDoc := r.at(r.i) == '\\'
	if escapedDoc {
		r.i++
	}
	q, qsize := r.runeAt(r.i)
	kind := quoteKind(q)
	if kind == 0 {
		r.i = start
		return false
	}
	if kind != 1 {
		r.note(repairQuotes)
	}
	if escapedDoc {
		r.note(repairEscapedDoc)
	}
	oBefore := len(r.out)
	r.out = append(r.out, '"')
	r.i += qsize
	// Brackets opened inside the string and not yet closed: a quote
	// followed by the matching closer is taken as part of the string.
	var open [3]int
	// Only a first pass goes back to the start; a second one never does.
	retry := !stopAtDelimiter && stopAt < 0
	for r.err == nil {
		if !r.spend(1) {
			return false
		}
		if r.eof() {
			prev := r.prevNonSpace(r.i - 1)
			if retry && prev > start && isDelimiter(r.in[prev]) && r.in[prev] != '/' {
				r.i, r.out = start, r.out[:oBefore]
				return r.str(true, -1)
			}
			r.closeString(RepairTruncated)
			return true
		}
		if stopAt >= 0 && r.i == stopAt {
			r.closeString(repairMissingQuote)
			return true
		}
		c, size := r.runeAt(r.i)
		switch {
		case ends(kind, c):
			iQuote, oQuote := r.i, len(r.out)
			r.i += size
			j := r.peekSpace(r.i)
			if !r.spend(j - r.i) {
				return false
			}
			// ("...") after an opening parenthesis in the string opens a
			// quotation inside it, whatever follows.
			inner := !stopAtDelimiter && open[0] > 0 && r.at(iQuote-1) == '(' && j < len(r.in) && !isStructural(r.in[j])
			if !inner && (stopAtDelimiter || r.endQuote(j, open)) {
				r.out = append(r.out, '"')
				if !r.inConcat {
					r.concat()
				}
				return true
			}
			if prev := r.prevNonSpace(iQuote - 1); retry && prev > start {
				if r.in[prev] == ',' {
					r.i, r.out = start, r.out[:oBefore]
					return r.str(false, prev)
				}
				// ("https://x.org") after an opening parenthesis is a
				// quotation inside the string, not its end.
				if isDelimiter(r.in[prev]) && r.in[prev] != '(' {
					r.i, r.out = start, r.out[:oBefore]
					return r.str(true, -1)
				}
			}
			// A quote inside the string: escape it and go on.
			r.out = append(r.out[:oQuote], '\\', '"')
			r.i = iQuote + size
			r.note(repairEscaping)
		case stopAtDelimiter && isUnquotedDelimiter(c):
			if r.at(r.i-1) == ':' && urlStart(r.in[start+qsize:min(r.i+2, len(r.in))]) {
				for !r.eof() && isURLChar(r.in[r.i]) {
					r.out = append(r.out, r.in[r.i])
					r.i++
				}
			}
			r.closeString(repairMissingQuote)
			if !r.inConcat {
				r.concat()
			}
			return true
		case c == '\\':
			if !r.escape() {
				return false
			}
		default:
			if c < utf8.RuneSelf {
				bracketCount(&open, byte(c))
			}
			r.char(c, size)
		}
		if escapedDoc && r.at(r.i) == '\\' {
			r.i++
		}
	}
	return false
}

// endQuote reports whether a candidate end quote followed (after spaces)
// by the byte at j really ends the string: the text ends there, or a
// delimiter, a quote or a digit follows, except where the quote is doubled
// before the end ("72"") or followed by the closer of a bracket opened in the
// string ("(72") tall") with more string text after it.
func (r *repairer) endQuote(j int, open [3]int) bool {
	if j >= len(r.in) {
		return true
	}
	c, _ := r.runeAt(j)
	if c == '"' && j == r.i {
		k := r.peekSpace(j + 1)
		if k >= len(r.in) || isStructural(r.in[k]) {
			return false
		}
	}
	if b := bracketIndex(r.in[j]); b >= 0 && r.in[j] != "([{"[b] && open[b] > 0 {
		k := r.peekSpace(j + 1)
		if k < len(r.in) && !isStructural(r.in[k]) && r.in[k] != ';' {
			return false
		}
	}
	return isDelimiter(r.in[j]) || quoteKind(c) != 0 || isDigit(r.in[j])
}

// isStructural reports whether c continues JSON structure after a value.
func isStructural(c byte) bool {
	return c == ',' || c == ']' || c == '}' || c == ':'
}

// bracketIndex is 0, 1, 2 for ( ), [ ], { } and -1 for anything else.
func bracketIndex(c byte) int {
	switch c {
	case '(', ')':
		return 0
	case '[', ']':
		return 1
	case '{', '}':
		return 2
	}
	return -1
}

func bracketCount(open *[3]int, c byte) {
	b := bracketIndex(c)
	switch {
	case b < 0:
	case c == "([{"[b]:
		open[b]++
	case open[b] > 0:
		open[b]--
	}
}

// closeString ends the string being written: spaces before the missing
// end quote stay outside it.
func (r *repairer) closeString(kind string) {
	n := len(r.out)
	for n > 0 && r.out[n-1] == ' ' {
		n--
	}
	r.out = append(r.out[:n], '"')
	r.noteMissing(kind)
}

// escape handles a backslash in a string.
func (r *repairer) escape() bool {
	if r.i+1 >= len(r.in) {
		r.i++ // a lone backslash at the very end
		return true
	}
	switch e := r.in[r.i+1]; e {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		r.out = append(r.out, r.in[r.i:r.i+2]...)
		r.i += 2
	case 'u':
		n := 0
		for n < 4 && isHex(r.at(r.i+2+n)) {
			n++
		}
		switch {
		case n == 4:
			r.out = append(r.out, r.in[r.i:r.i+6]...)
			r.i += 6
		case r.i+2+n >= len(r.in):
			r.i = len(r.in) // cut short at the end: drop it
		default:
			r.fail(fmt.Sprintf("invalid unicode escape %q", r.in[r.i:min(r.i+6, len(r.in))]))
			return false
		}
	default:
		// Not a JSON escape: keep the character, drop the backslash.
		r.i++
		c, size := r.runeAt(r.i)
		r.note(repairEscaping)
		if c == '"' {
			r.out = append(r.out, '\\', '"')
			r.i += size
			return true
		}
		r.char(c, size)
	}
	return true
}

// char writes one string character, escaping what JSON requires.
func (r *repairer) char(c rune, size int) {
	switch {
	case c == '"':
		r.out = append(r.out, '\\', '"')
		r.note(repairEscaping)
	case c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
		r.out = append(r.out, '\\', "nrtbf"[indexByte("\n\r\t\b\f", byte(c))])
		r.note(repairEscaping)
	case c < 0x20:
		r.fail(fmt.Sprintf("invalid character %q in a string", c))
		return
	default:
		r.out = append(r.out, r.in[r.i:r.i+size]...)
	}
	r.i += size
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// concat joins "a" + "b" into "ab"; the first string is in out.
func (r *repairer) concat() {
	// Look before skipping, so that comments are recorded once.
	if r.at(r.peekSpaceNL(r.i)) != '+' {
		return
	}
	r.skipWS()
	for r.err == nil && r.at(r.i) == '+' {
		r.i++
		r.skipWS()
		r.note(repairConcat)
		r.out = r.out[:len(r.out)-1] // the first string's end quote
		start := len(r.out)
		r.inConcat = true
		ok := r.str(false, -1)
		r.inConcat = false
		if ok {
			r.out = append(r.out[:start], r.out[start+1:]...) // the second's start quote
		} else {
			r.out = append(r.out, '"')
		}
		if r.at(r.peekSpaceNL(r.i)) == '+' {
			r.skipWS()
		}
	}
}

// peekSpace returns the offset of the first byte at or after j that is not
// a space, tab, carriage return or comment (newlines stop it).
func (r *repairer) peekSpace(j int) int {
	from := j
	defer func() { r.budget -= j - from }()
	for j < len(r.in) {
		switch c := r.in[j]; {
		case c == ' ' || c == '\t' || c == '\r':
			j++
		case c == '/' && j+1 < len(r.in) && r.in[j+1] == '*':
			end := bytes.Index(r.in[j+2:], []byte("*/"))
			if end < 0 {
				return len(r.in)
			}
			j += 2 + end + 2
		case c == '/' && j+1 < len(r.in) && r.in[j+1] == '/':
			end := bytes.IndexByte(r.in[j:], '\n')
			if end < 0 {
				return len(r.in)
			}
			j += end
		case r.hashComment(j):
			j = r.hashCommentEnd(j)
		default:
			return j
		}
	}
	return j
}

// prevNonSpace returns the offset of the last byte at or before j that is
// not whitespace (-1 when none).
func (r *repairer) prevNonSpace(j int) int {
	for j >= 0 && isSpace(r.in[j]) {
		j--
		r.budget--
	}
	return j
}

// number parses a number, repairing ".5", "2.", "2e", "-" and quoting one
// with leading zeros ("0789" stays "0789", as a string). What is not a
// number after all is left for unquoted.
func (r *repairer) number() bool {
	start := r.i
	j := r.i
	if r.at(j) == '-' {
		j++
	}
	intStart := j
	for isDigit(r.at(j)) {
		j++
	}
	intDigits := j - intStart
	frac := false
	if r.at(j) == '.' {
		j++
		frac = true
		if !isDigit(r.at(j)) && !r.endOfNumber(j) {
			return false
		}
		for isDigit(r.at(j)) {
			j++
		}
	}
	if intDigits == 0 && !frac && !(j > start && r.endOfNumber(j)) {
		return false // "e5", "-e5", a word
	}
	if end, ok := r.fraction(intStart, j); ok {
		// 1/3: kept as the text "1/3", which coercion turns into a number
		// where the schema wants one (and no other reading is possible).
		r.out = appendJSONString(r.out, r.in[start:end])
		r.i = end
		r.note(repairFraction)
		return true
	}
	if c := r.at(j); (c == 'e' || c == 'E') && (intDigits > 0 || frac) {
		j++
		if r.at(j) == '+' || r.at(j) == '-' {
			j++
		}
		if !isDigit(r.at(j)) && !r.endOfNumber(j) {
			return false
		}
		for isDigit(r.at(j)) {
			j++
		}
	}
	if !r.endOfNumber(j) {
		return false
	}
	tok := r.in[start:j]
	r.i = j
	if intDigits > 1 && r.in[intStart] == '0' {
		r.note(repairNumber)
		r.out = strconv.AppendQuote(r.out, string(tok))
		return true
	}
	if bytes.Equal(tok, []byte("-")) {
		r.out = append(r.out, "-0"...)
		r.loseMissing(lossNumber)
		return true
	}
	if intDigits == 0 {
		r.out = append(r.out, tok[:intStart-start]...)
		r.out = append(r.out, '0')
		tok = tok[intStart-start:]
		r.note(repairNumber)
	}
	r.out = append(r.out, tok...)
	switch tok[len(tok)-1] {
	case '.':
		r.out = append(r.out, '0')
		r.noteMissing(repairNumber)
	case 'e', 'E', '+', '-':
		// The exponent's digits are missing: 0 stands in for them.
		r.out = append(r.out, '0')
		r.loseMissing(lossNumber)
	}
	return true
}

// fraction reports whether a fraction a/b (a, b unsigned decimals, b not
// zero, no other slash after it) starts with the numerator
// r.in[intStart:j], and returns its end.
func (r *repairer) fraction(intStart, j int) (int, bool) {
	if r.at(j) != '/' || j == intStart || !isDigit(r.at(j+1)) {
		return 0, false
	}
	k, nonZero := j+1, false
	for isDigit(r.at(k)) || (r.at(k) == '.' && isDigit(r.at(k+1))) {
		nonZero = nonZero || (r.at(k) >= '1' && r.at(k) <= '9')
		k++
	}
	if !nonZero || !r.endOfNumber(k) || r.at(k) == '/' {
		return 0, false
	}
	return k, true
}

func (r *repairer) endOfNumber(j int) bool {
	return j >= len(r.in) || isDelimiter(r.in[j]) || isSpace(r.in[j])
}

// keyword parses true, false, null and Python's True, False, None when no
// identifier character follows.
func (r *repairer) keyword() bool {
	for _, kw := range [...]struct{ name, value string }{
		{"true", "true"}, {"false", "false"}, {"null", "null"},
		{"True", "true"}, {"False", "false"}, {"None", "null"},
		{"TRUE", "true"}, {"FALSE", "false"}, {"NULL", "null"}, {"Null", "null"}, {"NONE", "null"},
	} {
		end := r.i + len(kw.name)
		if bytes.HasPrefix(r.in[r.i:], []byte(kw.name)) && (end >= len(r.in) || !isIdentChar(r.in[end])) {
			r.out = append(r.out, kw.value...)
			r.i = end
			switch kw.name {
			case kw.value:
			case "True", "False", "None":
				r.note(repairPython)
			default:
				r.note(repairLiteral)
			}
			return true
		}
	}
	return false
}

// unquoted parses a function call wrapper (callback({...}), NumberLong(2))
// or an unquoted symbol, quoting it ("undefined" becomes null). As a key it
// also stops at a colon.
func (r *repairer) unquoted(key bool) bool {
	start := r.i
	if isIdentStart(r.at(r.i)) {
		j := r.i
		for j < len(r.in) && isIdentChar(r.in[j]) {
			j++
		}
		k := j
		for k < len(r.in) && isSpace(r.in[k]) {
			k++
		}
		if r.at(k) == '(' && !key {
			if !r.enter() {
				return false
			}
			r.i = k + 1
			r.note(repairCall)
			r.skipWS()
			if r.at(r.i) == ')' || (!r.value() && r.err == nil) {
				r.out = append(r.out, "null"...)
				r.loseMissing(lossEmptyCall)
			}
			r.depth--
			if r.err != nil {
				return false
			}
			r.skipWS()
			if r.at(r.i) == ')' {
				r.i++
				if r.at(r.i) == ';' {
					r.i++
				}
			}
			return true
		}
	}
	j := r.i
	prose := false
	for j < len(r.in) {
		c, size := r.runeAt(j)
		if c == ',' && !key && r.inMemberValue() && isLetter(r.in[start]) {
			// {"note": ipsum, sic, datum.}: text after the comma that is
			// no member (no colon follows it) continues the value.
			if next, ok := r.proseContinues(j + 1); ok {
				j, prose = next, true
				continue
			}
		}
		if isUnquotedDelimiter(c) || quoteKind(c) != 0 || (key && c == ':') {
			break
		}
		j += size
	}
	if j > start && r.at(j) == '/' && r.at(j-1) == ':' && urlStart(r.in[start:min(j+2, len(r.in))]) {
		for j < len(r.in) && isURLChar(r.in[j]) {
			j++
		}
	}
	end := j
	for end > start && isSpace(r.in[end-1]) {
		end--
	}
	if end == start {
		return false
	}
	sym := r.in[start:end]
	r.i = end
	if string(sym) == "undefined" {
		r.out = append(r.out, "null"...)
		r.note(repairUndefined)
	} else {
		r.out = appendJSONString(r.out, sym)
		if prose {
			r.note(repairProseValue)
		} else {
			r.note(repairUnquoted)
		}
	}
	if r.at(r.i) == '"' {
		r.i++ // the end quote of a string that lacked its start quote
	}
	return true
}

// inMemberValue reports whether the value being parsed is an object
// member's own value (not inside an array in it).
func (r *repairer) inMemberValue() bool {
	return len(r.stack) > 0 && r.top().object && r.top().keyStart >= 0
}

// proseContinues reports whether the text from j, up to the next comma or
// the object's closing bracket, is plain words that cannot be a member (no
// colon, quote or bracket in it): then it is more of an unquoted value
// written with commas. It returns where that text ends.
func (r *repairer) proseContinues(j int) (int, bool) {
	from := j
	defer func() { r.budget -= j - from }()
	for j < len(r.in) && (r.in[j] == ' ' || r.in[j] == '\t') {
		j++
	}
	if j >= len(r.in) || !isLetter(r.in[j]) {
		return 0, false
	}
	for j < len(r.in) {
		switch c := r.in[j]; c {
		case ',', '}':
			return j, true
		case ':', '"', '\'', '`', '[', ']', '{', '/', '\n', '+', '(':
			return 0, false
		}
		j++
	}
	return 0, false
}

func isLetter(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= utf8.RuneSelf
}

// regex quotes a JavaScript regular expression literal /.../.
func (r *repairer) regex() bool {
	if r.at(r.i) != '/' {
		return false
	}
	start := r.i
	r.i++
	for !r.eof() && (r.in[r.i] != '/' || r.in[r.i-1] == '\\') {
		r.i++
	}
	if !r.eof() {
		r.i++
	}
	r.out = appendJSONString(r.out, r.in[start:r.i])
	r.note(repairRegex)
	return true
}

// appendJSONString appends s (valid UTF-8) as a JSON string.
func appendJSONString(out, s []byte) []byte {
	out = append(out, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c < 0x20:
			out = append(out, `\u00`...)
			out = append(out, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xF])
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isIdentStart(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$'
}

func isIdentChar(c byte) bool { return isIdentStart(c) || isDigit(c) }

// isDelimiter reports the characters that end a value.
func isDelimiter(c byte) bool {
	switch c {
	case ',', ':', '[', ']', '/', '{', '}', '(', ')', '\n', '+':
		return true
	}
	return false
}

// isUnquotedDelimiter reports the characters that end an unquoted symbol.
func isUnquotedDelimiter(c rune) bool {
	switch c {
	case ',', '[', ']', '/', '{', '}', '\n', '+':
		return true
	}
	return false
}

// startsValue reports whether c can start a value (a quote, a bracket, a
// word character or a minus).
func startsValue(c rune) bool {
	return quoteKind(c) != 0 || c == '[' || c == '{' || c == '-' || c == '_' ||
		(c < utf8.RuneSelf && isIdentChar(byte(c)) && c != '$')
}

func isSpecialSpace(c rune) bool {
	switch {
	case c == '\u00a0', c >= '\u2000' && c <= '\u200b', c == '\u202f', c == '\u205f',
		c == '\u3000', c == '\u180e', c == '\ufeff':
		return true
	}
	return false
}

// urlStart reports whether b begins with a URL scheme and "://".
func urlStart(b []byte) bool {
	for _, s := range []string{"http://", "https://", "ftp://", "mailto://", "file://", "data://", "irc://"} {
		if bytes.Equal(b, []byte(s)) {
			return true
		}
	}
	return false
}

// isURLChar reports the characters of a URL, less the JSON delimiters
// [ ] and ,.
func isURLChar(c byte) bool {
	if isIdentChar(c) {
		return true
	}
	switch c {
	case '-', '.', '_', '~', ':', '/', '?', '#', '@', '!', '$', '&', '\'', '(', ')', '*', '+', ';', '=':
		return true
	}
	return false
}
