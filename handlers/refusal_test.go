package handlers_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/agentgate/agentgate/handlers"
)

// refusalCorpus is the labelled set of plain-text refusals and
// non-refusals (testdata/refusals/README.md says where the phrasings come
// from).
var refusalCorpus = filepath.Join("testdata", "refusals", "labelled.jsonl")

type labelled struct {
	Text    string `json:"text"`
	Refusal bool   `json:"refusal"`
	Style   string `json:"style"`
}

func readCorpus(t *testing.T) []labelled {
	t.Helper()
	f, err := os.Open(refusalCorpus)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []labelled
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r labelled
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", refusalCorpus, err)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestPlainRefusal_corpus measures the default detection on the labelled
// set and holds it to its figures: precision 1 (a refusal outcome ends the
// run, so a misfire costs an answer) and recall at least 0.95. Reproduce
// the figures with
//
//	go test -v -run TestPlainRefusal_corpus ./handlers/
func TestPlainRefusal_corpus(t *testing.T) {
	t.Parallel()
	rows := readCorpus(t)
	if len(rows) < 200 {
		t.Fatalf("the labelled set has %d outputs, want at least 200", len(rows))
	}
	var tp, fp, fn, tn int
	for _, r := range rows {
		_, got := handlers.PlainRefusal([]byte(r.Text), handlers.RefusalConfig{}, 0)
		switch {
		case got && r.Refusal:
			tp++
		case got:
			fp++
			t.Errorf("misfire (%s): %q", r.Style, r.Text)
		case r.Refusal:
			fn++
			t.Logf("missed (%s): %q", r.Style, r.Text)
		default:
			tn++
		}
	}
	precision := float64(tp) / float64(max(tp+fp, 1))
	recall := float64(tp) / float64(max(tp+fn, 1))
	t.Logf("%d outputs (%d refusals): precision %.3f (%d/%d), recall %.3f (%d/%d); %d true negatives",
		len(rows), tp+fn, precision, tp, tp+fp, recall, tp, tp+fn, tn)
	if recall < 0.95 {
		t.Errorf("recall %.3f, want at least 0.95", recall)
	}
}

func TestPlainRefusal(t *testing.T) {
	t.Parallel()
	custom := handlers.RefusalConfig{Patterns: []*regexp.Regexp{regexp.MustCompile(`(?i)^REFUSED:`)}}
	tests := []struct {
		name     string
		given    string
		cfg      handlers.RefusalConfig
		wantKind string
	}{
		{name: "openai style", given: "I'm sorry, but I can't help with that.", wantKind: handlers.RefusalByText},
		{name: "curly apostrophes", given: "I’m sorry, but I can’t assist with that.", wantKind: handlers.RefusalByText},
		{name: "as an AI", given: "As an AI, I cannot browse the web.", wantKind: handlers.RefusalByText},
		{name: "won't provide", given: "I won't provide that.", wantKind: handlers.RefusalByText},
		{name: "JSON after the phrasing is an answer", given: "I can't find any issues: ```json\n{\"ok\": true}\n```"},
		{name: "refusal words then JSON is an answer", given: "I'm sorry, but I can't use that format. {\"ok\": true}"},
		{name: "mere sorry", given: "Sorry for the delay, the summary is that sales grew."},
		{name: "figure of speech", given: "I can't help but notice the tests are missing."},
		{name: "phrasing deep in a long answer", given: string(make([]byte, 0)) + repeat("The report is fine. ", 30) + "I can't help with that."},
		{name: "detection off", given: "I'm sorry, but I can't help with that.", cfg: handlers.RefusalConfig{Off: true}},
		{name: "blueprint pattern", given: "REFUSED: out of scope", cfg: custom, wantKind: handlers.RefusalByPattern},
		{name: "blueprint pattern still needs no JSON", given: `REFUSED: {"a": 1}`, cfg: custom},
		{name: "too long to be a refusal", given: "I can't help with that. " + repeat("x", 5000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			kind, ok := handlers.PlainRefusal([]byte(tt.given), tt.cfg, 0)
			if ok != (tt.wantKind != "") || kind != tt.wantKind {
				t.Errorf("PlainRefusal = %q, %v; want %q", kind, ok, tt.wantKind)
			}
		})
	}
}

func repeat(s string, n int) string {
	out := make([]byte, 0, len(s)*n)
	for range n {
		out = append(out, s...)
	}
	return string(out)
}
