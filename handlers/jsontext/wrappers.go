package jsontext

import "bytes"

// maxWrapperScan bounds how far back wrapperBefore looks for a wrapper, so
// that naming one costs a constant per span.
const maxWrapperScan = 256

// wrapperBefore names what a model put right before the JSON starting at p
// of seg, for the Detail of its extract normalization:
//
//   - an XML-like tag such as <tool_call> or <function_call name="x">:
//     "<tool_call> tag" (closing tags and comments are not wrappers);
//   - a special token such as <|python_tag|> or DeepSeek's <｜tool▁sep｜>:
//     "<|python_tag|> token";
//   - a function name alone on the line before: "function name get_weather".
//
// It returns "" when there is none (the Detail is then "surrounding text").
// Only the last maxWrapperScan bytes before p are read.
func wrapperBefore(seg []byte, p int) string {
	lo := max(0, p-maxWrapperScan)
	win := seg[lo:p]
	end := len(bytes.TrimRight(win, " \t\r\n"))
	if end == 0 {
		return ""
	}
	if win[end-1] == '>' {
		lt := bytes.LastIndexByte(win[:end], '<')
		if lt < 0 {
			return ""
		}
		return tagName(win[lt:end])
	}
	// A function name alone on its line, the JSON on the next.
	if bytes.IndexByte(win[end:], '\n') < 0 {
		return ""
	}
	lineStart := bytes.LastIndexByte(win[:end], '\n') + 1
	if lineStart == 0 && lo > 0 {
		return "" // the line is longer than the window: not a name
	}
	name := bytes.TrimSpace(win[lineStart:end])
	name = bytes.TrimSuffix(bytes.TrimPrefix(name, []byte("functions.")), []byte(":"))
	if !isFunctionName(name) {
		return ""
	}
	return "function name " + string(name)
}

// tagName describes a tag or special token t ("<...>"), or returns "" when
// t is a closing tag, a comment or not a tag.
func tagName(t []byte) string {
	inner := t[1 : len(t)-1]
	if len(inner) == 0 || inner[0] == '/' || inner[0] == '!' || inner[0] == '?' {
		return ""
	}
	// Special tokens: <|name|> and the full-width <｜name｜> of DeepSeek.
	for _, bar := range []string{"|", "｜"} {
		if bytes.HasPrefix(inner, []byte(bar)) && bytes.HasSuffix(inner, []byte(bar)) && len(inner) > 2*len(bar) {
			return string(t) + " token"
		}
	}
	name := inner
	if i := bytes.IndexAny(name, " \t\n=/"); i >= 0 {
		name = name[:i]
	}
	if !isTagName(name) {
		return ""
	}
	return "<" + string(name) + "> tag"
}

func isTagName(b []byte) bool {
	if len(b) == 0 || len(b) > 64 || !isIdentStart(b[0]) || b[0] == '$' {
		return false
	}
	for _, c := range b {
		if !isIdentChar(c) && c != '-' && c != '.' && c != ':' {
			return false
		}
	}
	return true
}

// isFunctionName reports whether b is an identifier, dots allowed
// (get_weather, tools.search).
func isFunctionName(b []byte) bool {
	if len(b) == 0 || len(b) > 128 || !isIdentStart(b[0]) {
		return false
	}
	for _, c := range b {
		if !isIdentChar(c) && c != '.' && c != '-' {
			return false
		}
	}
	return true
}
