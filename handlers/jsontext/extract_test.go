package jsontext_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers/jsontext"
	"github.com/agentgate/agentgate/internal/pipelinetest"
)

// extracted is a candidate as the tests state it: the document as JSON text
// and the Details of its extract normalizations.
type extracted struct {
	doc  string
	from []string
}

func TestExtract_contractOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		given string
		want  []extracted
	}{
		{
			name:  "whole payload object",
			given: `{"a": 1, "b": [true, null, "x"]}`,
			want:  []extracted{{doc: `{"a":1,"b":[true,null,"x"]}`}},
		},
		{
			name:  "whole payload with BOM and whitespace",
			given: "\uFEFF \n {\"a\": 1}\n\n",
			want:  []extracted{{doc: `{"a":1}`}},
		},
		{
			name:  "whole payload scalar keeps number text",
			given: ` 4.50 `,
			want:  []extracted{{doc: `4.50`}},
		},
		{
			name:  "whole payload string holding an object",
			given: `"{\"a\": 1}"`,
			want:  []extracted{{doc: `"{\"a\": 1}"`}, {doc: `{"a":1}`, from: []string{"json string"}}},
		},
		{
			name:  "whole payload string of prose yields only the string",
			given: `"I cannot do that"`,
			want:  []extracted{{doc: `"I cannot do that"`}},
		},
		{
			name:  "json code fence",
			given: "Here you go:\n```json\n{\"a\": 1}\n```\nAnything else?",
			want:  []extracted{{doc: `{"a":1}`, from: []string{"code fence"}}},
		},
		{
			name:  "bare fence, tilde fence, indented fence",
			given: "one\n```\n[1]\n```\ntwo\n~~~ JSON\n[2]\n~~~\n  ```json\n  [3]\n  ```\n",
			want: []extracted{
				{doc: `[1]`, from: []string{"code fence"}},
				{doc: `[2]`, from: []string{"code fence"}},
				{doc: `[3]`, from: []string{"code fence"}},
			},
		},
		{
			name:  "unterminated fence runs to the end",
			given: "```json\n{\"a\": 1}\n",
			want:  []extracted{{doc: `{"a":1}`, from: []string{"code fence"}}},
		},
		{
			name:  "a shorter fence line does not close a longer fence",
			given: "````json\n{\"a\": \"x\"}\n```\n````\n",
			want:  []extracted{{doc: `{"a":"x"}`, from: []string{"surrounding text"}}},
		},
		{
			name:  "fences before prose, each group in order",
			given: "first {\"p\": 1} then\n```json\n{\"f\": 1}\n```\nlast [2]",
			want: []extracted{
				{doc: `{"f":1}`, from: []string{"code fence"}},
				{doc: `{"p":1}`, from: []string{"surrounding text"}},
				{doc: `[2]`, from: []string{"surrounding text"}},
			},
		},
		{
			name:  "unparsable json fence is searched like prose",
			given: "```json\n// the review\n{\"a\": 1}\n```",
			want:  []extracted{{doc: `{"a":1}`, from: []string{"surrounding text"}}},
		},
		{
			name:  "code of another language is not searched",
			given: "```go\nm := map[string]int{}\nx := []int{}\n```\nResult: {\"ok\": true}",
			want:  []extracted{{doc: `{"ok":true}`, from: []string{"surrounding text"}}},
		},
		{
			name:  "parsed fence is not found again as prose",
			given: "```\n{\"a\": 1}\n```\n",
			want:  []extracted{{doc: `{"a":1}`, from: []string{"code fence"}}},
		},
		{
			name:  "braces inside strings do not count",
			given: `Result: {"a": "}{ ] [ \" {", "b": 1} done`,
			want:  []extracted{{doc: `{"a":"}{ ] [ \" {","b":1}`, from: []string{"surrounding text"}}},
		},
		{
			name:  "unclosed bracket in prose before the document",
			given: `Note {unclosed (see [1. Here: {"a": 1}`,
			want:  []extracted{{doc: `{"a":1}`, from: []string{"surrounding text"}}},
		},
		{
			name:  "stray and mismatched closers are ignored",
			given: `oops } ] then {"a": [1, 2]} and [3}]`,
			want: []extracted{
				{doc: `{"a":[1,2]}`, from: []string{"surrounding text"}},
			},
		},
		{
			name:  "trailing data makes it not whole JSON",
			given: `{"a": 1} I hope this helps!`,
			want:  []extracted{{doc: `{"a":1}`, from: []string{"surrounding text"}}},
		},
		{
			name:  "two documents, one per line",
			given: "{\"a\": 1}\n{\"b\": 2}",
			want: []extracted{
				{doc: `{"a":1}`, from: []string{"surrounding text"}},
				{doc: `{"b":2}`, from: []string{"surrounding text"}},
			},
		},
		{
			name:  "prose brackets that are not JSON are skipped",
			given: `The list [a, b] is done; output: {"done": true}`,
			want:  []extracted{{doc: `{"done":true}`, from: []string{"surrounding text"}}},
		},
		{
			name:  "inline triple backticks are not a fence",
			given: "Output: ```{\"a\": 1}```",
			want:  []extracted{{doc: `{"a":1}`, from: []string{"surrounding text"}}},
		},
		{
			name:  "string in a fence holding JSON",
			given: "```json\n\"[1, 2]\"\n```",
			want: []extracted{
				{doc: `"[1, 2]"`, from: []string{"code fence"}},
				{doc: `[1,2]`, from: []string{"code fence", "json string"}},
			},
		},
		{
			name:  "at most 16 candidates",
			given: strings.Repeat("{} ", 40),
			want:  slices.Repeat([]extracted{{doc: `{}`, from: []string{"surrounding text"}}}, 16),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, bad := jsontext.Extract([]byte(tt.given), 0)
			if len(tt.want) == 0 {
				if bad == nil {
					t.Fatalf("Extract() = %d candidates, want a violation", len(got))
				}
				return
			}
			if bad != nil {
				t.Fatalf("Extract() violation %+v, want candidates", *bad)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("Extract() = %d candidates %s, want %d", len(got), describeCandidates(got), len(tt.want))
			}
			for i, c := range got {
				if doc := pipelinetest.CompactJSON(t, c.Doc); doc != tt.want[i].doc {
					t.Errorf("candidate %d doc = %s, want %s", i, doc, tt.want[i].doc)
				}
				if len(c.Normalizations) != len(tt.want[i].from) {
					t.Fatalf("candidate %d normalizations = %+v, want from %q", i, c.Normalizations, tt.want[i].from)
				}
				for j, n := range c.Normalizations {
					want := contract.Normalization{Op: contract.OpExtract, Path: "$", Detail: tt.want[i].from[j]}
					if n != want {
						t.Errorf("candidate %d normalization %d = %+v, want %+v", i, j, n, want)
					}
				}
			}
		})
	}
}

func TestExtract_usesNumbers(t *testing.T) {
	t.Parallel()
	got, bad := jsontext.Extract([]byte(`{"n": 12345678901234567890}`), 0)
	if bad != nil {
		t.Fatal(bad.Message)
	}
	n, ok := got[0].Doc.(map[string]any)["n"].(json.Number)
	if !ok || n.String() != "12345678901234567890" {
		t.Errorf("n = %#v, want json.Number 12345678901234567890", got[0].Doc)
	}
}

func TestExtract_violations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		given    string
		maxDepth int
		want     string // a substring of the message
	}{
		{name: "empty", given: "", want: "empty"},
		{name: "whitespace and BOM only", given: "\uFEFF \n\t", want: "empty"},
		{name: "prose only", given: "I could not find anything to report.", want: "no JSON document found"},
		{name: "unrepairable object", given: `{"summary": "ok", "approval" ]`, want: "after object key (at byte 30); cannot repair JSON: colon expected"},
		{name: "broken fence", given: "```json\n{\"a\": 1,,}\n```", want: "invalid JSON in the code fence"},
		{name: "broken object in prose", given: `Here: {"a" ]} ok`, want: "invalid JSON in the surrounding text"},
		{name: "deeper than the default", given: strings.Repeat("[", 257) + strings.Repeat("]", 257), want: "document nests deeper than 256 levels"},
		{name: "deeper than the given limit", given: `{"a": [[1]]}`, maxDepth: 2, want: "document nests deeper than 2 levels"},
		{name: "deep document in prose", given: "Result: " + strings.Repeat(`{"a":`, 300) + "1" + strings.Repeat("}", 300), want: "deeper than 256"},
		{name: "deep string content", given: `"` + strings.Repeat("[", 300) + `"`, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, bad := jsontext.Extract([]byte(tt.given), tt.maxDepth)
			if tt.want == "" {
				// The string itself is the candidate; its content is too deep to add.
				if bad != nil || len(got) != 1 {
					t.Fatalf("Extract() = %d candidates, %+v; want the string alone", len(got), bad)
				}
				return
			}
			if bad == nil {
				t.Fatalf("Extract() = %s, want a violation", describeCandidates(got))
			}
			if bad.Path != "$" || bad.Keyword != contract.KeywordJSON || !strings.Contains(bad.Message, tt.want) {
				t.Errorf("violation = %+v, want at $, keyword json, message containing %q", *bad, tt.want)
			}
		})
	}
}

func TestExtract_depthLimitIsInclusive(t *testing.T) {
	t.Parallel()
	given := strings.Repeat("[", 256) + strings.Repeat("]", 256)
	if _, bad := jsontext.Extract([]byte(given), 0); bad != nil {
		t.Fatalf("256 levels: %s, want accepted", bad.Message)
	}
}

// TestExtract_adversarial feeds 1 MiB payloads built to make a naive
// scanner rescan (quadratic time) or recurse (stack overflow). Linear code
// finishes each in milliseconds; quadratic code would run for hours and hit
// the test timeout.
func TestExtract_adversarial(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	rep := func(s string) []byte { return bytes.Repeat([]byte(s), mib/len(s)) }
	tests := []struct {
		name  string
		given []byte
		want  string // "" when candidates are expected, else a message substring
	}{
		{name: "open brackets", given: rep("["), want: "deeper than 256"},
		{name: "open braces", given: rep("{"), want: "deeper than 256"},
		{name: "nested 10,000 deep, balanced", given: append(rep("[")[:10000], rep("]")[:10000]...), want: "deeper than 256"},
		{name: "close brackets", given: rep("]"), want: "no JSON document found"},
		{name: "quotes", given: rep(`"`), want: "no JSON document found"},
		{name: "brace quote", given: rep(`{"`), want: "deeper than 256"},
		{name: "unterminated string after a brace", given: append([]byte(`x {"a": "`), rep("{")...), want: "no JSON document found"},
		{name: "backslashes in a string", given: append([]byte(`x {"a": "`), rep(`\`)...), want: "no JSON document found"},
		{name: "fences", given: rep("```\n"), want: "no JSON document found"},
		{name: "json fences with braces, each a truncated document", given: rep("```json\n{\n```\n")},
		{name: "json fences with broken JSON", given: rep("```json\n{:\n```\n"), want: "invalid JSON in the code fence"},
		{name: "truncated document of open brackets in prose", given: append([]byte("Here:\n"), rep("[")...), want: "deeper than 256"},
		{name: "many unrepairable spans", given: append([]byte("Notes: "), rep("{:} ")...), want: "invalid JSON in the surrounding text"},
		{name: "many small non-JSON spans", given: append([]byte("Notes: "), rep("{x} ")...), want: "invalid JSON in the surrounding text"},
		{name: "many small documents", given: rep("{} ")},
		{name: "mismatched pairs", given: rep("{]"), want: "invalid JSON in the output"},
		{name: "alternating openers", given: rep("{["), want: "deeper than 256"},
		{name: "wide flat array", given: append(append([]byte("["), rep("1,")...), '1', ']')},
		{name: "huge string", given: append(append([]byte(`"`), rep("{")...), '"')},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, bad := jsontext.Extract(tt.given, 0)
			switch {
			case tt.want == "" && bad != nil:
				t.Fatalf("violation %q, want candidates", bad.Message)
			case tt.want == "" && len(got) > 16:
				t.Fatalf("%d candidates, want at most 16", len(got))
			case tt.want != "" && bad == nil:
				t.Fatalf("%d candidates, want a violation containing %q", len(got), tt.want)
			case tt.want != "" && !strings.Contains(bad.Message, tt.want):
				t.Fatalf("violation %q, want it to contain %q", bad.Message, tt.want)
			}
		})
	}
}

func ExampleExtract() {
	payload := []byte("Here is the review:\n```json\n{\"summary\": \"LGTM\", \"approval\": \"approve\"}\n```")
	cands, bad := jsontext.Extract(payload, 0)
	if bad != nil {
		fmt.Println(bad.Message)
		return
	}
	doc, _ := json.Marshal(cands[0].Doc)
	fmt.Println(string(doc))
	fmt.Printf("%+v\n", cands[0].Normalizations)
	// Output:
	// {"approval":"approve","summary":"LGTM"}
	// [{Op:extract Path:$ From: To: Detail:code fence}]
}

func describeCandidates(cs []jsontext.Candidate) string {
	var b strings.Builder
	for _, c := range cs {
		doc, _ := json.Marshal(c.Doc)
		fmt.Fprintf(&b, "\n  %s %+v", doc, c.Normalizations)
	}
	return b.String()
}

func TestExtract_truncatedDocumentInProse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		given string
		want  []extracted
	}{
		{
			name:  "cut short after a label: repaired whole, no fragments",
			given: "Result: {\"a\": 1, \"b\": {\"c\": 2}, \"d\": [3",
			want:  []extracted{{doc: `{"a":1,"b":{"c":2},"d":[3]}`, from: []string{"surrounding text", "closed truncated document"}}},
		},
		{
			name:  "cut short on its own line",
			given: "Here is the review.\n\n[{\"file\": \"a.go\"}, {\"file\": \"b",
			want:  []extracted{{doc: `[{"file":"a.go"},{"file":"b"}]`, from: []string{"surrounding text", "closed truncated document"}}},
		},
		{
			name:  "a stray brace after a colon is prose",
			given: `Note: {unclosed (see [1. Here: {"a": 1}`,
			want:  []extracted{{doc: `{"a":1}`, from: []string{"surrounding text"}}},
		},
		{
			name:  "whole payload cut short",
			given: `{"a": {"b": 1}, "c": "tex`,
			want:  []extracted{{doc: `{"a":{"b":1},"c":"tex"}`, from: []string{"closed truncated document"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkExtracted(t, tt.given, tt.want)
		})
	}
}

// checkExtracted extracts given and checks each candidate's document and
// where it came from (its normalizations' and losses' details, in order).
func checkExtracted(t *testing.T, given string, want []extracted) {
	t.Helper()
	got, bad := jsontext.Extract([]byte(given), 0)
	if bad != nil {
		t.Fatal(bad.Message)
	}
	if len(got) != len(want) {
		t.Fatalf("Extract() = %d candidates %s, want %d", len(got), describeCandidates(got), len(want))
	}
	for i, c := range got {
		if doc := pipelinetest.CompactJSON(t, c.Doc); doc != want[i].doc {
			t.Errorf("candidate %d = %s, want %s", i, doc, want[i].doc)
		}
		var from []string
		for _, n := range c.Normalizations {
			from = append(from, n.Detail)
		}
		for _, l := range c.Losses {
			from = append(from, l.Detail)
		}
		if !slices.Equal(from, want[i].from) {
			t.Errorf("candidate %d details %q, want %q", i, from, want[i].from)
		}
	}
}
