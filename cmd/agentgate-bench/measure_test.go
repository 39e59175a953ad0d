package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSlug(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"relay + run state @ 2900/s":  "relay-run-state-2900-s",
		"agentgate half @ 2922/s":     "agentgate-half-2922-s",
		"agentgate":                   "agentgate",
		"  JetStream  publish  ":      "jetstream-publish",
		"relay+run state (reference)": "relay-run-state-reference",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// The CSV has a header and one line per sample, in load order.
func TestWriteSamples(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "lat.csv")
	err := writeSamples(path, []sample{
		{index: 2, sent: 2 * time.Millisecond, latency: 1500 * time.Microsecond, outcome: "retry"},
		{index: 0, sent: 0, latency: 800 * time.Microsecond, outcome: "valid"},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "index,sent_ms,latency_ms,outcome\n0,0.000,0.800,valid\n2,2.000,1.500,retry\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
