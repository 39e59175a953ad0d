package test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/internal/natstest"
	"github.com/agentgate/agentgate/runstate"
	"github.com/agentgate/agentgate/topology"
)

// BenchmarkHTTPAPI_runsList measures GET /v1/runs?limit=50 over a bucket of
// 2,000 runs: each request reads every entry of the bucket (the dashboard's
// Runs page asks every 2 s).
func BenchmarkHTTPAPI_runsList(b *testing.B) {
	srv := natstest.Server(b)
	_, js := natstest.Connect(b, srv)
	g, _ := natstest.Gateway(b, srv, dashboardConfig(b))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kv, err := js.KeyValue(ctx, topology.RunsBucket)
	if err != nil {
		b.Fatal(err)
	}
	store := runstate.New(kv)
	const runs = 2000
	outcome := []byte(`{"event_type":"result","attempt":1,"result_data":{"summary":"` + fmt.Sprintf("%0500d", 0) + `"}}`)
	for i := range runs {
		st := &contract.RunState{RunID: fmt.Sprintf("bench-%05d", i), AgentID: "pr-reviewer", Status: contract.RunCompleted,
			Attempts: 1, Outcome: outcome, UpdatedAt: time.Now()}
		if _, err := store.Put(ctx, st, 0); err != nil {
			b.Fatal(err)
		}
	}
	base := "http://" + g.HTTPAddr()
	b.ResetTimer()
	for b.Loop() {
		resp, err := http.Get(base + "/v1/runs?limit=50")
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("GET /v1/runs = %d", resp.StatusCode)
		}
	}
}
