package jsontext_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers/jsontext"
)

// Fuzz targets of the repairs of issue 11: one per new repair, each
// building inputs of that repair's shape from the fuzzer's bytes (mapped
// onto an alphabet where the reading is certain) and checking, beyond the
// general invariants of FuzzRepair, that the repaired document holds
// exactly what was written and records no loss. FuzzCheck_truncation fuzzes
// the lossy rule itself.

// within maps b onto alphabet, at most max bytes.
func within(b []byte, alphabet string, max int) string {
	var s strings.Builder
	for i, c := range b {
		if i == max {
			break
		}
		s.WriteByte(alphabet[int(c)%len(alphabet)])
	}
	return s.String()
}

// repairExactly repairs in and returns the decoded document, failing the
// test on an error, a loss, invalid or non-idempotent output, or slowness.
func repairExactly(t *testing.T, in string) any {
	t.Helper()
	start := time.Now()
	rep, err := jsontext.RepairText([]byte(in), 0)
	if d := time.Since(start); d > fuzzSlow {
		t.Fatalf("RepairText took %v on %d bytes", d, len(in))
	}
	if err != nil {
		t.Fatalf("RepairText(%q): %v", in, err)
	}
	if len(rep.Losses) != 0 {
		t.Fatalf("RepairText(%q) recorded losses %+v", in, rep.Losses)
	}
	if again, _, err := jsontext.Repair(rep.JSON, 0); err != nil || !bytes.Equal(again, rep.JSON) {
		t.Fatalf("repair of its own output %q = %q, %v", rep.JSON, again, err)
	}
	var doc any
	if err := json.Unmarshal(rep.JSON, &doc); err != nil {
		t.Fatalf("RepairText(%q) = %q: %v", in, rep.JSON, err)
	}
	return doc
}

func member(t *testing.T, doc any, key string) any {
	t.Helper()
	obj, ok := doc.(map[string]any)
	if !ok {
		t.Fatalf("document %v is not an object", doc)
	}
	return obj[key]
}

func FuzzRepair_innerQuote(f *testing.F) {
	f.Add([]byte("[LINK]"), []byte("example.com"), []byte(" done"), true)
	f.Add([]byte("see "), []byte("x"), []byte(""), false)
	f.Fuzz(func(t *testing.T, before, quoted, after []byte, url bool) {
		const text = "abcXYZ019 .-"
		q := within(quoted, "abcxyz019.-", 40)
		if url {
			q = "https://" + q
		}
		want := within(before, text, 40) + `("` + q + `")` + within(after, text, 40)
		doc := repairExactly(t, `{"content": "`+want+`"}`)
		if got := member(t, doc, "content"); got != want {
			t.Fatalf("content %q, want %q", got, want)
		}
	})
}

func FuzzRepair_proseValue(f *testing.F) {
	f.Add([]byte("ipsum"), []byte("sic"), []byte("datum."))
	f.Fuzz(func(t *testing.T, a, b, c []byte) {
		const letters = "abcdefghijklmnopqrstuvwxyzABC.019 "
		var words []string
		for _, w := range [][]byte{a, b, c} {
			words = append(words, "w"+strings.TrimRight(within(w, letters, 20), " "))
		}
		want := strings.Join(words, ", ")
		doc := repairExactly(t, `{"note": `+want+`}`)
		if got := member(t, doc, "note"); got != want {
			t.Fatalf("note %q, want %q", got, want)
		}
	})
}

func FuzzRepair_fraction(f *testing.F) {
	f.Add(uint32(1), uint32(3), false)
	f.Add(uint32(6), uint32(3), true)
	f.Fuzz(func(t *testing.T, a, b uint32, neg bool) {
		if b == 0 {
			return
		}
		num := strconv.FormatUint(uint64(a), 10)
		if neg {
			num = "-" + num
		}
		in := fmt.Sprintf(`{"ratio": %s/%d}`, num, b)
		if got := member(t, repairExactly(t, in), "ratio"); got != num+"/"+strconv.FormatUint(uint64(b), 10) {
			t.Fatalf("repair kept %v, want the fraction's text", got)
		}
	})
}

func FuzzRepair_strayWord(f *testing.F) {
	f.Add([]byte("stray"), []byte("label"))
	f.Fuzz(func(t *testing.T, word, key []byte) {
		w := "w" + within(word, "abcdefghijklmnopqrstuvwxyz_019", 20)
		k := "k" + within(key, "abcdefghij _-", 20)
		doc := repairExactly(t, `{"a": 1, `+w+` "`+k+`": 2}`)
		if got := member(t, doc, k); got != 2.0 || member(t, doc, "a") != 1.0 || len(doc.(map[string]any)) != 2 {
			t.Fatalf("document %v, want a and %q", doc, k)
		}
	})
}

func FuzzRepair_pythonSet(f *testing.F) {
	f.Add([]byte("pricing"), []byte("refund"), []byte(""))
	f.Fuzz(func(t *testing.T, a, b, c []byte) {
		var elems, quoted []string
		for _, e := range [][]byte{a, b, c} {
			s := within(e, "abcdefghij 019-.:,{}[]", 20)
			elems = append(elems, s)
			quoted = append(quoted, "'"+s+"'")
		}
		doc := repairExactly(t, `{"tags": {`+strings.Join(quoted, ", ")+`}}`)
		got, _ := member(t, doc, "tags").([]any)
		if len(got) != len(elems) {
			t.Fatalf("tags %v, want %q", got, elems)
		}
		for i := range elems {
			if got[i] != elems[i] {
				t.Fatalf("tags %v, want %q", got, elems)
			}
		}
	})
}

func FuzzRepair_literalCase(f *testing.F) {
	f.Add(uint8(0), true)
	literals := []struct {
		text string
		want any
	}{{"TRUE", true}, {"True", true}, {"FALSE", false}, {"False", false}, {"NULL", nil}, {"Null", nil}, {"None", nil}, {"NONE", nil}}
	f.Fuzz(func(t *testing.T, i uint8, inArray bool) {
		l := literals[int(i)%len(literals)]
		if inArray {
			doc := repairExactly(t, `[1, `+l.text+`]`)
			if got := doc.([]any); len(got) != 2 || got[1] != l.want {
				t.Fatalf("%s in an array: %v", l.text, got)
			}
			return
		}
		if got := member(t, repairExactly(t, `{"v": `+l.text+`}`), "v"); got != l.want {
			t.Fatalf("%s: %v", l.text, got)
		}
	})
}

func FuzzRepair_hashComment(f *testing.F) {
	f.Add([]byte("comment"))
	f.Fuzz(func(t *testing.T, comment []byte) {
		c := within(comment, "abc XYZ019.,:'\"#/*", 40)
		doc := repairExactly(t, `{"key": {"key2": "value2" # `+c+` }, "key3": "value3"}`)
		if member(t, doc, "key3") != "value3" || member(t, member(t, doc, "key"), "key2") != "value2" {
			t.Fatalf("document %v", doc)
		}
	})
}

func FuzzRepair_closingFence(f *testing.F) {
	f.Add([]byte("value, value2"), false)
	f.Add([]byte("done"), true)
	f.Fuzz(func(t *testing.T, text []byte, closed bool) {
		v := within(text, "abc XYZ019.,:-", 40)
		in := `{"key": "` + v + `"`
		if closed {
			in += "}"
		}
		rep, err := jsontext.RepairText([]byte(in+"```"), 0)
		if err != nil {
			t.Fatalf("RepairText(%q): %v", in, err)
		}
		var doc map[string]any
		if err := json.Unmarshal(rep.JSON, &doc); err != nil || len(doc) != 1 || doc["key"] != v {
			t.Fatalf("RepairText(%q) = %s, want only the key", in, rep.JSON)
		}
		if wantLoss := !closed; (len(rep.Losses) == 1 && rep.Losses[0].Keyword == contract.KeywordTruncated) != wantLoss || (!wantLoss && len(rep.Losses) != 0) {
			t.Fatalf("RepairText(%q) losses %+v, want truncated: %v", in, rep.Losses, wantLoss)
		}
	})
}

func FuzzRepair_membersAfterBracket(f *testing.F) {
	f.Add([]byte("value1"), []byte("value2"), uint8(2))
	f.Fuzz(func(t *testing.T, a, b []byte, n uint8) {
		after := 1 + int(n)%4
		var s strings.Builder
		fmt.Fprintf(&s, `{"k0": "%s"}`, within(a, "abc 019.-", 20))
		for i := 1; i <= after; i++ {
			fmt.Fprintf(&s, `, "k%d": "%s"`, i, within(b, "abc 019.-", 20))
		}
		s.WriteString("}")
		rep, err := jsontext.RepairText([]byte(s.String()), 0)
		if err != nil {
			t.Fatalf("RepairText(%q): %v", s.String(), err)
		}
		var doc map[string]any
		if err := json.Unmarshal(rep.JSON, &doc); err != nil || len(doc) != after+1 {
			t.Fatalf("RepairText(%q) = %s: members lost", s.String(), rep.JSON)
		}
		if len(rep.Losses) != 1 || rep.Losses[0].Path != "$.k1" || rep.Losses[0].Keyword != contract.KeywordRepair {
			t.Fatalf("RepairText(%q) losses %+v, want one repair at $.k1", s.String(), rep.Losses)
		}
	})
}
