package topology_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/natstest"
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

// Ensure makes every bucket as the contract says: the registry's keep 64
// revisions of each entry and never expire, the run state keeps the last;
// all are replicated like the streams.
func TestEnsure_buckets(t *testing.T) {
	t.Parallel()
	_, js := natstest.Connect(t, natstest.Server(t))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := topology.Ensure(ctx, js, topology.StreamsConfig{MaxAge: time.Hour}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		bucket  string
		history int64
		ttl     time.Duration
	}{
		{topology.RunsBucket, 1, time.Hour},
		{topology.SchemasBucket, topology.RegistryHistory, 0},
		{topology.BlueprintsBucket, topology.RegistryHistory, 0},
	} {
		kv, err := js.KeyValue(ctx, tt.bucket)
		if err != nil {
			t.Fatalf("%s: %v", tt.bucket, err)
		}
		st, err := kv.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.History() != tt.history || st.TTL() != tt.ttl {
			t.Errorf("%s: history %d, TTL %s; want %d, %s", tt.bucket, st.History(), st.TTL(), tt.history, tt.ttl)
		}
	}
	for _, kc := range topology.RegistryBucketConfigs(topology.StreamsConfig{Replicas: 3}) {
		if kc.Replicas != 3 {
			t.Errorf("%s: %d replicas, want the streams' 3", kc.Bucket, kc.Replicas)
		}
	}
}
