package jsontext_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers/jsontext"
	"github.com/agentgate/agentgate/internal/pipelinetest"
)

// jsonrepairCase is one case of the corpus: kind "valid" (must pass
// unchanged), "repair" (must repair to expected) or "error" (must be
// refused).
type jsonrepairCase struct {
	ID       int     `json:"id"`
	Group    string  `json:"group"`
	Test     string  `json:"test"`
	Kind     string  `json:"kind"`
	Input    string  `json:"input"`
	Expected *string `json:"expected"`
}

func loadJSONRepairCases(tb testing.TB) []jsonrepairCase {
	tb.Helper()
	path := pipelinetest.JSONRepairCases(tb)
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		tb.Skipf("jsonrepair corpus not found at %s (it lives in the shared folder beside the repo)", path)
	}
	if err != nil {
		tb.Fatal(err)
	}
	var file struct {
		Cases []jsonrepairCase `json:"cases"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		tb.Fatalf("decoding %s: %v", path, err)
	}
	return file.Cases
}

// TestRepair_jsonrepairCorpus runs the whole jsonrepair corpus and prints
// the pass count per category. Goal: every valid input unchanged, every
// error refused, at least 95 % of the repairs.
func TestRepair_jsonrepairCorpus(t *testing.T) {
	t.Parallel()
	cases := loadJSONRepairCases(t)
	pass, total := map[string]int{}, map[string]int{}
	catPass, catTotal := map[string]int{}, map[string]int{}
	// By root (object/array or scalar) and kind: passes, cases, and the
	// passing repairs that are lossy (a retry by default).
	rootPass, rootTotal, rootLossy := map[string]int{}, map[string]int{}, map[string]int{}
	failedByTest := map[string][]string{}
	for _, c := range cases {
		total[c.Kind]++
		catTotal[c.Test]++
		root := corpusRoot(c) + " " + c.Kind
		rootTotal[root]++
		got, ops, err := jsontext.Repair([]byte(c.Input), 0)
		var problem string
		switch c.Kind {
		case "error":
			if err == nil {
				problem = fmt.Sprintf("repaired to %s, want refused", got)
			}
		case "valid":
			switch {
			case err != nil:
				problem = err.Error()
			case !bytes.Equal(got, []byte(c.Input)) || len(ops) != 0:
				problem = fmt.Sprintf("changed to %s %v", got, ops)
			}
		default:
			switch {
			case err != nil:
				problem = err.Error()
			case !sameJSON(got, []byte(*c.Expected)):
				problem = fmt.Sprintf("got %s, want %s", got, *c.Expected)
			case len(ops) == 0 && !json.Valid([]byte(c.Input)):
				problem = "no repair recorded"
			}
		}
		if problem == "" {
			pass[c.Kind]++
			catPass[c.Test]++
			rootPass[root]++
			if slices.ContainsFunc(ops, func(n contract.Normalization) bool { return n.Op == contract.OpLossy }) {
				rootLossy[root]++
			}
			continue
		}
		failedByTest[c.Test] = append(failedByTest[c.Test], fmt.Sprintf("#%d %q: %s", c.ID, c.Input, problem))
	}
	for _, test := range slices.Sorted(maps.Keys(failedByTest)) {
		for _, f := range failedByTest[test] {
			t.Logf("%s: %s", test, f)
		}
	}
	for _, cat := range slices.Sorted(maps.Keys(catTotal)) {
		t.Logf("jsonrepair category %-50q %3d/%-3d pass", cat, catPass[cat], catTotal[cat])
	}
	for _, kind := range []string{"valid", "repair", "error"} {
		t.Logf("jsonrepair corpus, %-6s: %d/%d pass (%.1f %%)", kind, pass[kind], total[kind], 100*float64(pass[kind])/float64(max(total[kind], 1)))
	}
	for _, root := range []string{"object/array-rooted", "scalar-rooted"} {
		for _, kind := range []string{"valid", "repair", "error"} {
			k := root + " " + kind
			t.Logf("jsonrepair corpus, %-19s %-6s: %3d/%-3d pass, %3d of them lossy", root, kind, rootPass[k], rootTotal[k], rootLossy[k])
		}
	}
	if pass["valid"] != total["valid"] {
		t.Errorf("valid inputs: %d/%d unchanged, want all", pass["valid"], total["valid"])
	}
	if pass["error"] != total["error"] {
		t.Errorf("unrepairable inputs: %d/%d refused, want all", pass["error"], total["error"])
	}
	if 100*pass["repair"] < 95*total["repair"] {
		t.Errorf("repairs: %d/%d, want at least 95 %%", pass["repair"], total["repair"])
	}
}

// corpusRoot classifies a case by the root of its document: the expected
// output where there is one, else the input (first character after
// whitespace, comments and a fence): "object/array-rooted" or
// "scalar-rooted".
func corpusRoot(c jsonrepairCase) string {
	text := c.Input
	if c.Expected != nil {
		text = *c.Expected
	}
	for {
		text = strings.TrimLeft(text, " \t\r\n\u00a0\u200b\ufeff")
		switch {
		case strings.HasPrefix(text, "/*"):
			if i := strings.Index(text, "*/"); i >= 0 {
				text = text[i+2:]
				continue
			}
		case strings.HasPrefix(text, "//"):
			if i := strings.IndexByte(text, '\n'); i >= 0 {
				text = text[i:]
				continue
			}
		case strings.HasPrefix(text, "```"):
			text = strings.TrimLeft(text[3:], "abcdefghijklmnopqrstuvwxyz")
			continue
		}
		break
	}
	if strings.HasPrefix(text, "{") || strings.HasPrefix(text, "[") {
		return "object/array-rooted"
	}
	return "scalar-rooted"
}

// sameJSON reports whether a and b hold the same JSON value (numbers
// compared by value).
func sameJSON(a, b []byte) bool {
	va, okA := decodeLoose(a)
	vb, okB := decodeLoose(b)
	return okA && okB && reflect.DeepEqual(va, vb)
}

func decodeLoose(b []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false
	}
	return numbersToFloat(v), true
}

func numbersToFloat(v any) any {
	switch t := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil {
			return string(t)
		}
		return f
	case []any:
		for i := range t {
			t[i] = numbersToFloat(t[i])
		}
	case map[string]any:
		for k := range t {
			t[k] = numbersToFloat(t[k])
		}
	}
	return v
}

func TestRepair_records(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		given string
		want  string
		ops   []contract.Normalization
	}{
		{name: "valid JSON unchanged", given: ` {"a": [1, 2]} `, want: ` {"a": [1, 2]} `, ops: []contract.Normalization{}},
		{name: "trailing commas counted", given: `{"a": [1, 2,], "b": 3,}`, want: `{"a":[1,2],"b":3}`,
			ops: []contract.Normalization{pipelinetest.Repair("trailing comma removed (2 times)")}},
		{name: "python dict", given: `{'a': True, 'b': None}`, want: `{"a":true,"b":null}`,
			ops: []contract.Normalization{pipelinetest.Repair("single or typographic quotes replaced by double quotes (2 times)"), pipelinetest.Repair("Python constant converted (2 times)")}},
		{name: "truncated document closed", given: `{"summary": "The code is fine", "comments": [{"file": "a.go", "mess`,
			want: `{"summary":"The code is fine","comments":[{"file":"a.go","mess":null}]}`,
			ops:  []contract.Normalization{pipelinetest.Lossy("$.comments[0]", jsontext.RepairTruncated)}},
		{name: "truncated inside a string", given: `{"summary": "The code is`, want: `{"summary":"The code is"}`,
			ops: []contract.Normalization{pipelinetest.Lossy("$.summary", jsontext.RepairTruncated)}},
		{name: "missing bracket mid-document is not truncation", given: `[{"a": 1]`, want: `[{"a":1}]`,
			ops: []contract.Normalization{pipelinetest.Repair("missing closing bracket inserted")}},
		{name: "comments and unquoted keys", given: "{\n  // the verdict\n  approval: \"approve\", /* done */\n}", want: `{"approval":"approve"}`,
			ops: []contract.Normalization{pipelinetest.Repair("comment removed (2 times)"), pipelinetest.Repair("trailing comma removed"), pipelinetest.Repair("unquoted key or string quoted")}},
		{name: "JSONP", given: `callback({"a": 1});`, want: `{"a":1}`,
			ops: []contract.Normalization{pipelinetest.Repair("function call wrapper removed (JSONP, MongoDB)")}},
		{name: "NDJSON", given: "{\"a\": 1}\n{\"a\": 2}\n", want: `[{"a":1},{"a":2}]`,
			ops: []contract.Normalization{pipelinetest.Repair("several values wrapped in an array")}},
		{name: "unescaped quote", given: `{"text": "a 24" screen"}`, want: `{"text":"a 24\" screen"}`,
			ops: []contract.Normalization{pipelinetest.Repair("string escaping repaired")}},
		{name: "raw newline in a string", given: "{\"text\": \"line 1\nline 2\"}", want: `{"text":"line 1\nline 2"}`,
			ops: []contract.Normalization{pipelinetest.Repair("string escaping repaired")}},
		{name: "number with a leading zero kept as text", given: `{"zip": 01234}`, want: `{"zip":"01234"}`,
			ops: []contract.Normalization{pipelinetest.Repair("malformed number repaired")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ops, err := jsontext.Repair([]byte(tt.given), 0)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("Repair() = %s, want %s", got, tt.want)
			}
			if !slices.Equal(ops, tt.ops) {
				t.Errorf("repairs = %v, want %v", ops, tt.ops)
			}
		})
	}
}

func TestRepair_refuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		given    string
		maxDepth int
		want     string
	}{
		{name: "empty", given: "", want: "unexpected end"},
		{name: "prose after the value", given: `{"a": 1} I hope this helps`, want: "after the JSON value"},
		{name: "two documents on one line", given: `{"a":2}{}`, want: "after the JSON value"},
		{name: "colon without key", given: `{:2}`, want: "object key expected"},
		{name: "bad unicode escape", given: `"\uZ000"`, want: "invalid unicode escape"},
		{name: "NUL in a string", given: "\"a\x00\"", want: "invalid character"},
		{name: "invalid UTF-8", given: "{\"a\": \"\xff\"}", want: "invalid UTF-8"},
		{name: "too deep", given: strings.Repeat("[", 20), maxDepth: 10, want: "deeper than 10"},
		{name: "too deep though valid", given: strings.Repeat("[", 20) + strings.Repeat("]", 20), maxDepth: 10, want: "deeper than 10"},
		{name: "too large", given: strings.Repeat(" ", jsontext.MaxRepairBytes+1), want: "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, _, err := jsontext.Repair([]byte(tt.given), tt.maxDepth)
			var re *jsontext.RepairError
			if !errors.As(err, &re) {
				t.Fatalf("Repair() = %s, %v; want a *RepairError", got, err)
			}
			if !strings.Contains(re.Error(), tt.want) {
				t.Errorf("error %q, want it to contain %q", re.Error(), tt.want)
			}
		})
	}
}

// TestRepair_adversarial feeds 1 MiB inputs built to make a repairer
// backtrack (quadratic time) or recurse without bound. Each finishes well
// within a second on this code; a quadratic repairer needs hours.
func TestRepair_adversarial(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	rep := func(s string) []byte { return bytes.Repeat([]byte(s), mib/len(s)) }
	tests := []struct {
		name  string
		given []byte
	}{
		{name: "open brackets", given: rep("[")},
		{name: "open braces", given: rep("{")},
		{name: "nested 10,000 deep", given: append(rep("[")[:10000], rep("]")[:10000]...)},
		{name: "nested 10,000 deep, unclosed", given: rep(`{"a":`)[:50000]},
		{name: "quotes", given: rep(`"`)},
		{name: "single quotes", given: rep(`'`)},
		{name: "unbalanced quotes with text", given: rep(`"a `)},
		{name: "quote comma", given: rep(`",`)},
		{name: "string to the end, many times", given: append([]byte("["), rep(`"a,b"c"d,e"f`)...)},
		{name: "inner quotes before closers", given: append([]byte(`["(`), rep(`x") `)...)},
		{name: "concatenations", given: rep(`"a"+`)},
		{name: "comments", given: rep("/*")},
		{name: "backslashes", given: append([]byte(`"`), rep(`\`)...)},
		{name: "many keys without values", given: append([]byte("{"), rep("a ")...)},
		{name: "function calls", given: rep("f(")},
		{name: "ellipses", given: append([]byte("["), rep("...")...)},
		{name: "closers", given: append([]byte("{}"), rep("}")...)},
		{name: "newline values", given: rep("1\n")},
		{name: "long unterminated string", given: append([]byte(`{"a": "`), rep("x")...)},
		{name: "numbers", given: append([]byte("["), rep("0.")...)},
		// The repairs of issue 11: each lookahead is bounded and consumed.
		{name: "prose values", given: append([]byte(`{"a": x`), rep(", word")...)},
		{name: "prose values, unclosed colons", given: append([]byte(`{"a": x`), rep(", w:")...)},
		{name: "sets", given: append([]byte("{"), rep(`'a', `)...)},
		{name: "nested set openers", given: rep(`{'a', `)},
		{name: "stray words", given: append([]byte("{"), rep(`w "k`)...)},
		{name: "stray words before members", given: append([]byte("{"), rep(`w "k": 1, `)...)},
		{name: "members after closing brackets", given: rep(`{"a": 1}, "b": 2}`)},
		{name: "hash comments", given: append([]byte("{"), rep("# x ")...)},
		{name: "fractions", given: append([]byte("["), rep("1/2,")...)},
		{name: "quotes after parentheses", given: append([]byte(`{"a": "`), rep(`("x`)...)},
		{name: "elisions", given: append([]byte("{"), rep(`"a": ..., `)...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			out, _, err := jsontext.Repair(tt.given, 0)
			if err == nil && !json.Valid(out) {
				t.Fatalf("Repair() returned invalid JSON (%d bytes)", len(out))
			}
			// Linear takes well under a second here; quadratic, hours. The
			// bound leaves room for -race on a loaded 2-core box.
			if d := time.Since(start); d > 60*time.Second {
				t.Errorf("Repair() took %v on %d bytes", d, len(tt.given))
			}
		})
	}
}

func ExampleRepair() {
	out, repairs, err := jsontext.Repair([]byte("{summary: 'LGTM', approval: \"approve\",}"), 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	for _, r := range repairs {
		fmt.Println(r.Detail)
	}
	// Output:
	// {"summary":"LGTM","approval":"approve"}
	// trailing comma removed
	// single or typographic quotes replaced by double quotes
	// unquoted key or string quoted (2 times)
}
