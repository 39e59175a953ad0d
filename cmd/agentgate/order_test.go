package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestOrderOutcomes(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	o := func(run string, attempt int, ts time.Time, outcome string, seq uint64) storedOutcome {
		s := storedOutcome{outcome: outcome, seq: seq}
		s.ev.RunID, s.ev.Attempt, s.ev.Timestamp = run, attempt, ts
		return s
	}
	tests := []struct {
		name  string
		given []storedOutcome
		want  string
	}{
		{"one run, streams read dlq first",
			[]storedOutcome{o("r", 2, at(5), "dlq", 1), o("r", 1, at(1), "retry", 1)},
			"r#1retry r#2dlq"},
		{"same timestamp: attempt first",
			[]storedOutcome{o("r", 2, at(0), "valid", 9), o("r", 1, at(0), "retry", 3)},
			"r#1retry r#2valid"},
		{"a second gateway's clock behind: attempt still first",
			[]storedOutcome{o("r", 1, at(10), "retry", 1), o("r", 2, at(3), "valid", 1)},
			"r#1retry r#2valid"},
		{"runs interleaved in time",
			[]storedOutcome{o("b", 2, at(4), "valid", 2), o("a", 2, at(3), "dlq", 1), o("a", 1, at(1), "retry", 1), o("b", 1, at(2), "retry", 2)},
			"a#1retry b#1retry a#2dlq b#2valid"},
		{"same stream, same time: sequence",
			[]storedOutcome{o("x", 1, at(0), "valid", 8), o("y", 1, at(0), "valid", 7)},
			"y#1valid x#1valid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orderOutcomes(tt.given)
			var got []string
			for _, s := range tt.given {
				got = append(got, fmt.Sprintf("%s#%d%s", s.ev.RunID, s.ev.Attempt, s.outcome))
			}
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("order = %s, want %s", g, tt.want)
			}
		})
	}
}
