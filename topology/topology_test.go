package topology_test

import (
	"slices"
	"testing"
	"time"

	"github.com/agentgate/agentgate/topology"
)

func TestStreams_captureEverySubject(t *testing.T) {
	t.Parallel()
	streams := topology.Streams(topology.StreamsConfig{})
	for _, want := range []string{"agent.output.raw", "agent.output.raw.>", "agent.output.partial.>", "agent.output.valid.>",
		"agent.retry.requested.>", "agent.output.refused.>", "agent.output.dlq.>"} {
		n := 0
		for _, s := range streams {
			if slices.Contains(s.Subjects, want) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s is captured by %d streams", want, n)
		}
	}
	if err := (topology.StreamsConfig{Replicas: 7}).Validate(); err == nil {
		t.Error("7 replicas accepted")
	}
}

// A de-duplication window longer than the messages are kept is refused by
// JetStream: it is shortened to MaxAge.
func TestStreams_duplicateWindowWithinMaxAge(t *testing.T) {
	t.Parallel()
	for _, sc := range topology.Streams(topology.StreamsConfig{MaxAge: 30 * time.Second}) {
		if sc.Duplicates != 30*time.Second || sc.MaxAge != 30*time.Second {
			t.Errorf("%s: duplicates %s, max age %s", sc.Name, sc.Duplicates, sc.MaxAge)
		}
	}
	for _, sc := range topology.Streams(topology.StreamsConfig{}) {
		if sc.Duplicates != 2*time.Minute || sc.MaxAge != 0 {
			t.Errorf("%s: default duplicates %s, max age %s", sc.Name, sc.Duplicates, sc.MaxAge)
		}
	}
}
