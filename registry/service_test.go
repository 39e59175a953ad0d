package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/agentgate/agentgate/internal/natstest"
	"github.com/agentgate/agentgate/registry"
	"github.com/agentgate/agentgate/schemas"
	"github.com/agentgate/agentgate/topology"
)

// withService starts a NATS server for t, creates the buckets and returns
// a Service on them.
func withService(t *testing.T) (*registry.Service, *server.Server) {
	t.Helper()
	srv := natstest.Server(t)
	return serviceOn(t, srv), srv
}

func serviceOn(t *testing.T, srv *server.Server) *registry.Service {
	t.Helper()
	_, js := natstest.Connect(t, srv)
	ctx := testCtx(t)
	if _, err := topology.Ensure(ctx, js, topology.StreamsConfig{}); err != nil {
		t.Fatal(err)
	}
	st, err := registry.OpenStore(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	return registry.NewService(st, nil)
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func blueprint(name, schemaID string) []byte {
	return fmt.Appendf(nil, `{"name":%q,"description":"test","output_schema":%q,"system_prompt":"Answer."}`, name, schemaID)
}

const thingName = "https://example.com/schemas/thing"

func TestService_registerVersions(t *testing.T) {
	t.Parallel()
	svc, _ := withService(t)
	ctx := testCtx(t)
	v1 := doc("1.0.0", map[string]string{"a": "string"}, "a")
	reg, err := svc.Register(ctx, v1, registry.OriginAPI)
	if err != nil || !reg.Created || reg.Version.Version != "1.0.0" {
		t.Fatalf("Register 1.0.0 = %+v, %v", reg, err)
	}
	// The same document again is a no-op.
	if reg, err := svc.Register(ctx, v1, registry.OriginAPI); err != nil || reg.Created {
		t.Fatalf("Register 1.0.0 again = %+v, %v", reg, err)
	}
	// Immutability: 1.0.0 with another document.
	other := doc("1.0.0", map[string]string{"a": "string", "z": "number"}, "a")
	if _, err := svc.Register(ctx, other, registry.OriginAPI); !errors.Is(err, registry.ErrImmutable) {
		t.Fatalf("re-registering 1.0.0 differently: %v, want ErrImmutable", err)
	}
	// Breaking without a major bump: refused with the changes.
	breaking := doc("1.1.0", map[string]string{"a": "integer"}, "a")
	var ie *registry.IncompatibleError
	if _, err := svc.Register(ctx, breaking, registry.OriginAPI); !errors.As(err, &ie) || ie.Changes[0].Path != "$.a" {
		t.Fatalf("breaking 1.1.0: %v, want an IncompatibleError at $.a", err)
	}
	if err := svc.CheckCompatibility(ctx, breaking); !errors.Is(err, registry.ErrIncompatible) {
		t.Fatalf("dry run of breaking 1.1.0: %v", err)
	}
	// With a major bump it is accepted.
	if _, err := svc.Register(ctx, doc("2.0.0", map[string]string{"a": "integer"}, "a"), registry.OriginAPI); err != nil {
		t.Fatalf("2.0.0: %v", err)
	}
	// Under NONE the breaking minor goes in.
	if err := svc.SetLevel(ctx, thingName, registry.None); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Register(ctx, breaking, registry.OriginAPI); err != nil {
		t.Fatalf("breaking 1.1.0 under NONE: %v", err)
	}
	sub, err := svc.Store().Subject(ctx, thingName)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range sub.Live() {
		got = append(got, v.Version)
	}
	if strings.Join(got, ",") != "1.0.0,1.1.0,2.0.0" || sub.Level() != registry.None {
		t.Fatalf("stored versions %v level %s", got, sub.Level())
	}
}

func TestService_malformedStoresNothing(t *testing.T) {
	t.Parallel()
	svc, _ := withService(t)
	ctx := testCtx(t)
	tests := []struct {
		name string
		doc  string
	}{
		{"not JSON", `{"$id": `},
		{"no $id", `{"type":"object"}`},
		{"no version", `{"$id":"https://example.com/schemas/thing","type":"object"}`},
		{"meta-schema", `{"$id":"https://example.com/schemas/thing/1.0.0","type":"strnig"}`},
		{"unresolved ref", `{"$id":"https://example.com/schemas/thing/1.0.0","$ref":"https://elsewhere.example/x"}`},
	}
	for _, tt := range tests {
		_, err := svc.Register(ctx, []byte(tt.doc), registry.OriginAPI)
		var inv *registry.InvalidError
		if !errors.As(err, &inv) || len(inv.Problems) == 0 {
			t.Errorf("%s: %v, want an InvalidError", tt.name, err)
		}
	}
	_, err := svc.ApplyAgent(ctx, []byte(`{"name":"a","output_schema":"https://example.com/schemas/none/1.0.0","system_prompt":"x"}`), registry.CreateOrUpdate, registry.OriginAPI)
	if !errors.Is(err, registry.ErrInvalid) || !strings.Contains(err.Error(), "unknown schema") {
		t.Errorf("blueprint with an unknown schema: %v", err)
	}
	_, err = svc.ApplyAgent(ctx, []byte(`{"name":"a","sytem_prompt":"x"}`), registry.CreateOrUpdate, registry.OriginAPI)
	if !errors.Is(err, registry.ErrInvalid) || !strings.Contains(err.Error(), "sytem_prompt") {
		t.Errorf("blueprint with a misspelt field: %v", err)
	}
	subs, err := svc.Store().Subjects(ctx)
	if err != nil || len(subs) != 0 {
		t.Fatalf("stored %d schema names (%v), want none", len(subs), err)
	}
	agents, err := svc.Store().Agents(ctx)
	if err != nil || len(agents) != 0 {
		t.Fatalf("stored %d agents (%v), want none", len(agents), err)
	}
}

func TestService_deleteInUseRefused(t *testing.T) {
	t.Parallel()
	svc, _ := withService(t)
	ctx := testCtx(t)
	if _, err := svc.Register(ctx, doc("1.0.0", map[string]string{"a": "string"}, "a"), registry.OriginAPI); err != nil {
		t.Fatal(err)
	}
	a, err := svc.ApplyAgent(ctx, blueprint("worker", thingName+"/1.0.0"), registry.CreateOnly, registry.OriginAPI)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ApplyAgent(ctx, blueprint("worker", thingName+"/1.0.0"), registry.CreateOnly, registry.OriginAPI); !errors.Is(err, registry.ErrExists) {
		t.Fatalf("creating worker twice: %v", err)
	}
	var inUse *registry.InUseError
	if err := svc.DeleteVersion(ctx, thingName, "1.0.0"); !errors.As(err, &inUse) || !strings.Contains(inUse.Users[0], "worker") {
		t.Fatalf("deleting a version in use: %v", err)
	}
	if err := svc.DeleteAgent(ctx, "worker"); err != nil {
		t.Fatal(err)
	}
	if err := svc.DeleteVersion(ctx, thingName, "1.0.0"); err != nil {
		t.Fatalf("deleting an unused version: %v", err)
	}
	// Soft: kept, marked deleted, never reused.
	sub, err := svc.Store().Subject(ctx, thingName)
	if err != nil || len(sub.Versions) != 1 || !sub.Versions[0].Deleted {
		t.Fatalf("after delete: %+v, %v", sub, err)
	}
	if _, err := svc.Register(ctx, doc("1.0.0", map[string]string{"a": "string"}, "a"), registry.OriginAPI); !errors.Is(err, registry.ErrImmutable) {
		t.Fatalf("re-registering a deleted version: %v", err)
	}
	// The blueprint's history keeps the deleted agent.
	old, err := svc.Store().AgentAt(ctx, "worker", a.Revision)
	if err != nil || old.Name != "worker" {
		t.Fatalf("AgentAt after delete: %+v, %v", old, err)
	}
}

// Two registrations of the same name at once: one wins, the other gets
// ErrConflict and nothing of it is stored.
func TestService_concurrentRegistrations(t *testing.T) {
	t.Parallel()
	srv := natstest.Server(t)
	svcA, svcB := serviceOn(t, srv), serviceOn(t, srv)
	ctx := testCtx(t)
	if _, err := svcA.Register(ctx, doc("1.0.0", map[string]string{"a": "string"}, "a"), registry.OriginAPI); err != nil {
		t.Fatal(err)
	}
	for round := range 5 {
		// Two different compatible versions, so that neither is a no-op.
		va := doc(fmt.Sprintf("1.%d.0", 2*round+1), map[string]string{"a": "string"}, "a")
		vb := doc(fmt.Sprintf("1.%d.0", 2*round+2), map[string]string{"a": "string"}, "a")
		var wg sync.WaitGroup
		errs := make([]error, 2)
		start := make(chan struct{})
		for i, p := range []struct {
			svc *registry.Service
			doc []byte
		}{{svcA, va}, {svcB, vb}} {
			wg.Go(func() {
				<-start
				_, errs[i] = p.svc.Register(ctx, p.doc, registry.OriginAPI)
			})
		}
		close(start)
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, registry.ErrConflict), errors.Is(err, registry.ErrVersionOrder):
				// The loser: its read was stale (conflict) or the winner's
				// higher version was already there.
			default:
				t.Fatalf("round %d: unexpected error %v", round, err)
			}
		}
		if ok == 0 {
			t.Fatalf("round %d: both registrations failed: %v", round, errs)
		}
	}
	// Every stored version was checked against the one before it: the
	// stored list is what the winners registered, nothing else.
	sub, err := svcA.Store().Subject(ctx, thingName)
	if err != nil {
		t.Fatal(err)
	}
	if len(sub.Versions) < 6 {
		t.Fatalf("%d versions stored, want at least 6 (1.0.0 and a winner per round)", len(sub.Versions))
	}
}

// A strictly simultaneous pair on one name: exactly one wins.
func TestService_concurrentSameVersion(t *testing.T) {
	t.Parallel()
	srv := natstest.Server(t)
	svcA, svcB := serviceOn(t, srv), serviceOn(t, srv)
	ctx := testCtx(t)
	a := doc("1.0.0", map[string]string{"a": "string"}, "a")
	b := doc("1.0.0", map[string]string{"b": "string"}, "b")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Go(func() { _, errs[0] = svcA.Register(ctx, a, registry.OriginAPI) })
	wg.Go(func() { _, errs[1] = svcB.Register(ctx, b, registry.OriginAPI) })
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("errors %v: want exactly one winner", errs)
	}
	for _, err := range errs {
		if err != nil && !errors.Is(err, registry.ErrConflict) && !errors.Is(err, registry.ErrImmutable) {
			t.Fatalf("loser got %v, want ErrConflict or ErrImmutable", err)
		}
	}
}

func TestService_seed(t *testing.T) {
	t.Parallel()
	svc, _ := withService(t)
	ctx := testCtx(t)
	reg, err := schemas.Load("../examples")
	if err != nil {
		t.Fatal(err)
	}
	files := 0 // the registry's schema files; inline schemas are the blueprints'
	for _, s := range reg.Schemas() {
		if !strings.HasPrefix(s.ID, schemas.InlinePrefix) {
			files++
		}
	}
	rep, err := svc.Seed(ctx, reg)
	if err != nil || len(rep.Added) != len(reg.Blueprints())+files {
		t.Fatalf("first seed: %+v, %v", rep, err)
	}
	// Seeding again changes nothing.
	if rep, err := svc.Seed(ctx, reg); err != nil || len(rep.Added)+len(rep.Replaced)+len(rep.Kept) != 0 {
		t.Fatalf("second seed: %+v, %v", rep, err)
	}
	// An agent changed through the API is never overridden by the folder.
	bp, _ := reg.Blueprint("pr-reviewer")
	changed := strings.Replace(string(mustJSON(t, bp)), `"max_retries":1`, `"max_retries":3`, 1)
	if _, err := svc.ApplyAgent(ctx, []byte(changed), registry.UpdateOnly, registry.OriginAPI); err != nil {
		t.Fatal(err)
	}
	rep, err = svc.Seed(ctx, reg)
	if err != nil || len(rep.Kept) != 1 || rep.Kept[0] != "agent pr-reviewer" {
		t.Fatalf("seed over an API change: %+v, %v", rep, err)
	}
	a, err := svc.Store().Agent(ctx, "pr-reviewer")
	if err != nil || !strings.Contains(string(a.Blueprint), `"max_retries":3`) {
		t.Fatalf("the API's blueprint was overridden: %s, %v", a.Blueprint, err)
	}
	// Nor does the folder bring back what the API deleted.
	if err := svc.DeleteAgent(ctx, "code-analyzer"); err != nil {
		t.Fatal(err)
	}
	if err := svc.DeleteVersion(ctx, "https://agentgate.dev/schemas/code-analysis", "1.0.0"); err != nil {
		t.Fatal(err)
	}
	rep, err = svc.Seed(ctx, reg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Added)+len(rep.Replaced) != 0 || !slices.Contains(rep.Kept, "agent code-analyzer") ||
		!slices.Contains(rep.Kept, "schema https://agentgate.dev/schemas/code-analysis/1.0.0") {
		t.Fatalf("seed after API deletions: %+v", rep)
	}
	if _, err := svc.Store().Agent(ctx, "code-analyzer"); !errors.Is(err, registry.ErrNotFound) {
		t.Fatalf("code-analyzer came back: %v", err)
	}
}

func mustJSON(t *testing.T, v interface{ MarshalJSON() ([]byte, error) }) []byte {
	t.Helper()
	b, err := v.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Each level on real JetStream: a breaking change is refused, a compatible
// one stored.
func TestService_levels(t *testing.T) {
	t.Parallel()
	svc, _ := withService(t)
	ctx := testCtx(t)
	schema := func(name, v string, required ...string) []byte {
		req, _ := json.Marshal(append([]string{}, required...))
		return fmt.Appendf(nil, `{"$id":"https://example.com/levels/%s/%s","type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":%s}`, name, v, req)
	}
	tests := []struct {
		level              registry.Level
		breaking, accepted []string // required members of 1.1.0 (1.0.0 requires a)
	}{
		{registry.Backward, []string{"a", "b"}, []string{}},
		{registry.BackwardTransitive, []string{"a", "b"}, []string{}},
		{registry.Forward, []string{}, []string{"a", "b"}},
		{registry.ForwardTransitive, []string{}, []string{"a", "b"}},
		{registry.Full, []string{"a", "b"}, []string{"a"}},
		{registry.FullTransitive, []string{}, []string{"a"}},
		{registry.None, nil, []string{"b"}},
	}
	for _, tt := range tests {
		name := strings.ToLower(string(tt.level))
		if err := svc.SetLevel(ctx, "https://example.com/levels/"+name, tt.level); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Register(ctx, schema(name, "1.0.0", "a"), registry.OriginAPI); err != nil {
			t.Fatalf("%s: 1.0.0: %v", tt.level, err)
		}
		if tt.breaking != nil {
			if _, err := svc.Register(ctx, schema(name, "1.1.0", tt.breaking...), registry.OriginAPI); !errors.Is(err, registry.ErrIncompatible) {
				t.Errorf("%s: breaking 1.1.0 (required %v): %v, want ErrIncompatible", tt.level, tt.breaking, err)
			}
		}
		if _, err := svc.Register(ctx, schema(name, "1.1.0", tt.accepted...), registry.OriginAPI); err != nil {
			t.Errorf("%s: compatible 1.1.0 (required %v): %v", tt.level, tt.accepted, err)
		}
	}
}

// The transitive levels compare a new version with every earlier one of
// its line, the others with the latest only: 1.1.0 was registered under
// NONE, breaking with 1.0.0, and 1.2.0 repeats it.
func TestService_transitiveLevels(t *testing.T) {
	t.Parallel()
	svc, _ := withService(t)
	ctx := testCtx(t)
	schema := func(name, v string, required ...string) []byte {
		req, _ := json.Marshal(append([]string{}, required...))
		return fmt.Appendf(nil, `{"$id":"https://example.com/trans/%s/%s","type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":%s}`, name, v, req)
	}
	for _, tt := range []struct {
		plain, transitive registry.Level
		first, later      []string // required members of 1.0.0, and of 1.1.0 and 1.2.0
	}{
		{registry.Backward, registry.BackwardTransitive, []string{}, []string{"b"}},
		{registry.Forward, registry.ForwardTransitive, []string{"a", "b"}, []string{}},
		{registry.Full, registry.FullTransitive, []string{"a"}, []string{"b"}},
	} {
		for _, level := range []registry.Level{tt.plain, tt.transitive} {
			name := strings.ToLower(string(level))
			id := "https://example.com/trans/" + name
			if err := svc.SetLevel(ctx, id, registry.None); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Register(ctx, schema(name, "1.0.0", tt.first...), registry.OriginAPI); err != nil {
				t.Fatalf("%s 1.0.0: %v", level, err)
			}
			if _, err := svc.Register(ctx, schema(name, "1.1.0", tt.later...), registry.OriginAPI); err != nil {
				t.Fatalf("%s 1.1.0 under NONE: %v", level, err)
			}
			if err := svc.SetLevel(ctx, id, level); err != nil {
				t.Fatal(err)
			}
			_, err := svc.Register(ctx, schema(name, "1.2.0", tt.later...), registry.OriginAPI)
			switch {
			case level == tt.plain && err != nil:
				t.Errorf("%s: 1.2.0, as 1.1.0: %v, want accepted (1.1.0 alone is compared)", level, err)
			case level == tt.transitive && !errors.Is(err, registry.ErrIncompatible):
				t.Errorf("%s: 1.2.0, breaking with 1.0.0: %v, want ErrIncompatible", level, err)
			}
		}
	}
}

// A name whose versions outgrow one NATS message is refused clearly.
func TestStore_tooLarge(t *testing.T) {
	t.Parallel()
	svc, _ := withService(t)
	// The embedded server takes 8 MiB messages.
	big := fmt.Appendf(nil, `{"description":%q}`, strings.Repeat("x", 9<<20))
	sub := &registry.Subject{Name: "https://example.com/schemas/big", Versions: []registry.Version{{Version: "1.0.0", Schema: big}}}
	if err := svc.Store().PutSubject(testCtx(t), sub); !errors.Is(err, registry.ErrTooLarge) {
		t.Fatalf("a 9 MiB entry: %v, want ErrTooLarge", err)
	}
}

// A document within the load limits on its own is refused when a $ref
// chain through the documents already registered goes over them: the
// limits span documents here as at start-up.
func TestService_limitsSpanDocuments(t *testing.T) {
	t.Parallel()
	svc, _ := withService(t)
	ctx := testCtx(t)
	chainDoc := func(id string, n int, last string) []byte {
		var defs []string
		for i := range n {
			defs = append(defs, fmt.Sprintf(`"c%d": {"$ref": "#/$defs/c%d"}`, i, i+1))
		}
		defs = append(defs, fmt.Sprintf(`"c%d": %s`, n, last))
		return fmt.Appendf(nil, `{"$id": %q, "$ref": "#/$defs/c0", "$defs": {%s}}`, id, strings.Join(defs, ", "))
	}
	const b = "https://example.com/schemas/b/1.0.0"
	if _, err := svc.Register(ctx, chainDoc(b, 20, `{"type": "string"}`), registry.OriginAPI); err != nil {
		t.Fatalf("Register b: %v", err)
	}
	_, err := svc.Register(ctx, chainDoc("https://example.com/schemas/a/1.0.0", 20, `{"$ref": "`+b+`"}`), registry.OriginAPI)
	var inv *registry.InvalidError
	if !errors.As(err, &inv) || !strings.Contains(err.Error(), "a chain of 43 $refs") {
		t.Fatalf("Register a: %v, want an InvalidError naming the chain of 43 $refs", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "(schema "+b+")") || strings.Contains(msg, ".schema.json") {
		t.Errorf("Register a: %v, want the documents named by their $id, not by the compiler's file names", err)
	}
	if _, err := svc.Store().Subject(ctx, "https://example.com/schemas/a"); err == nil {
		t.Error("a was stored")
	}
}
