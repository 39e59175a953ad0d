package registry_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/agentgate/agentgate/internal/natstest"
	"github.com/agentgate/agentgate/registry"
	"github.com/agentgate/agentgate/schemas"
)

// liveOn starts a Live on srv's buckets, running until t ends.
func liveOn(t *testing.T, srv *server.Server) *registry.Live {
	t.Helper()
	_, js := natstest.Connect(t, srv)
	st, err := registry.OpenStore(testCtx(t), js)
	if err != nil {
		t.Fatal(err)
	}
	l, err := registry.NewLive(testCtx(t), st, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = l.Run(ctx) }()
	t.Cleanup(func() { cancel(); _ = l.Close(); <-done })
	return l
}

// waitFor polls cond every millisecond until it holds or 10 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestLive_twoReplicasSeeEveryChange(t *testing.T) {
	t.Parallel()
	svc, srv := withService(t)
	ctx := testCtx(t)
	if _, err := svc.Register(ctx, doc("1.0.0", map[string]string{"a": "string"}, "a"), registry.OriginAPI); err != nil {
		t.Fatal(err)
	}
	a, b := liveOn(t, srv), liveOn(t, srv)
	for _, l := range []*registry.Live{a, b} {
		if _, ok := l.Schema(thingName + "/1.0.0"); !ok {
			t.Fatal("a replica started without the registered schema")
		}
	}
	// A new blueprint reaches both.
	ag, err := svc.ApplyAgent(ctx, blueprint("worker", thingName+"/1.0.0"), registry.CreateOnly, registry.OriginAPI)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []*registry.Live{a, b} {
		waitFor(t, "the blueprint on a replica", func() bool {
			_, rev, ok := l.BlueprintRevision("worker")
			return ok && rev == ag.Revision
		})
	}
	// Its update too; the first revision stays available for runs begun
	// under it.
	if _, err := svc.Register(ctx, doc("1.1.0", map[string]string{"a": "string"}, "a"), registry.OriginAPI); err != nil {
		t.Fatal(err)
	}
	ag2, err := svc.ApplyAgent(ctx, blueprint("worker", thingName+"/1.1.0"), registry.UpdateOnly, registry.OriginAPI)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []*registry.Live{a, b} {
		waitFor(t, "the blueprint update on a replica", func() bool {
			bp, rev, ok := l.BlueprintRevision("worker")
			return ok && rev == ag2.Revision && bp.OutputSchema.ID == thingName+"/1.1.0"
		})
		old, ok := l.BlueprintAt("worker", ag.Revision)
		if !ok || old.OutputSchema.ID != thingName+"/1.0.0" {
			t.Fatalf("BlueprintAt(first revision) = %v, %v", old, ok)
		}
	}
	// A new replica started after the update knows the first revision from
	// the bucket's history.
	c := liveOn(t, srv)
	if old, ok := c.BlueprintAt("worker", ag.Revision); !ok || old.OutputSchema.ID != thingName+"/1.0.0" {
		t.Fatalf("late replica: BlueprintAt(first revision) = %v, %v", old, ok)
	}
	// A deletion reaches them as well.
	if err := svc.DeleteAgent(ctx, "worker"); err != nil {
		t.Fatal(err)
	}
	for _, l := range []*registry.Live{a, b, c} {
		waitFor(t, "the deletion on a replica", func() bool { _, ok := l.Blueprint("worker"); return !ok })
	}
}

// A snapshot is never modified: a reader holding one keeps a whole
// registry while a change is swapped in.
func TestLive_snapshotIsImmutable(t *testing.T) {
	t.Parallel()
	svc, srv := withService(t)
	ctx := testCtx(t)
	l := liveOn(t, srv)
	before := l.Current()
	changed := l.Changed()
	if _, err := svc.Register(ctx, doc("1.0.0", map[string]string{"a": "string"}, "a"), registry.OriginAPI); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no swap after a registration")
	}
	if _, ok := before.Registry.Schema(thingName + "/1.0.0"); ok {
		t.Fatal("the old snapshot changed")
	}
	if _, ok := l.Current().Registry.Schema(thingName + "/1.0.0"); !ok {
		t.Fatal("the new snapshot lacks the schema")
	}
}

// An entry that does not compile with the rest (two writers raced past
// each other's checks) is left out; the rest is served.
func TestLive_badEntryLeftOut(t *testing.T) {
	t.Parallel()
	svc, srv := withService(t)
	ctx := testCtx(t)
	if _, err := svc.Register(ctx, doc("1.0.0", map[string]string{"a": "string"}, "a"), registry.OriginAPI); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ApplyAgent(ctx, blueprint("good", thingName+"/1.0.0"), registry.CreateOnly, registry.OriginAPI); err != nil {
		t.Fatal(err)
	}
	// Stored past the service's checks, as a lost race would.
	bad := &registry.Agent{Name: "bad", Blueprint: blueprint("bad", thingName+"/9.0.0"), Origin: registry.OriginAPI}
	if err := svc.Store().PutAgent(ctx, bad); err != nil {
		t.Fatal(err)
	}
	l := liveOn(t, srv)
	snap := l.Current()
	if _, ok := snap.Registry.Blueprint("good"); !ok {
		t.Fatal("the good agent is not served")
	}
	if _, ok := snap.Registry.Blueprint("bad"); ok || len(snap.LeftOut) != 1 || !strings.Contains(snap.LeftOut[0], "agent bad") {
		t.Fatalf("left out: %v", snap.LeftOut)
	}
	// Later changes still go through.
	if _, err := svc.Register(ctx, doc("1.1.0", map[string]string{"a": "string"}, "a"), registry.OriginAPI); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "1.1.0", func() bool { _, ok := l.Schema(thingName + "/1.1.0"); return ok })
}

// The configuration folder's registry, just seeded, is served as is when
// the buckets hold exactly its documents, and not when they differ.
func TestLive_reusesTheSeed(t *testing.T) {
	t.Parallel()
	svc, srv := withService(t)
	ctx := testCtx(t)
	seed, err := schemas.Load("../examples")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Seed(ctx, seed); err != nil {
		t.Fatal(err)
	}
	_, js := natstest.Connect(t, srv)
	st, err := registry.OpenStore(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	l, err := registry.NewLive(ctx, st, nil, seed)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Current().Registry != seed {
		t.Fatal("the seed was compiled again")
	}
	if _, err := svc.Register(ctx, doc("1.0.0", map[string]string{"a": "string"}, "a"), registry.OriginAPI); err != nil {
		t.Fatal(err)
	}
	l2, err := registry.NewLive(ctx, st, nil, seed)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if l2.Current().Registry == seed {
		t.Fatal("the seed was served though the buckets hold more")
	}
	if _, ok := l2.Schema(thingName + "/1.0.0"); !ok {
		t.Fatal("the registered schema is missing")
	}
}
