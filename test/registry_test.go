package test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/embedded"
	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/internal/natstest"
	"github.com/agentgate/agentgate/schemas"
)

const thingName = "https://example.com/schemas/thing"

// thing is version v of a schema of objects with string members a, b, c
// and note, of which the given ones are required.
func thing(v string, required ...string) string {
	props := `"note":{"type":"string"},"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"}`
	if required == nil {
		required = []string{}
	}
	req, _ := json.Marshal(required)
	return fmt.Sprintf(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"%s/%s","title":"Thing","description":"A thing.","type":"object","properties":{%s},"required":%s}`,
		thingName, v, props, req)
}

func worker(schemaVersion string, maxRetries int) string {
	return fmt.Sprintf(`{"name":"worker","description":"test","output_schema":"%s/%s","max_retries":%d,"system_prompt":"Answer."}`,
		thingName, schemaVersion, maxRetries)
}

// callRegistry sends a request to g's API and returns the status and the decoded
// JSON answer.
func callRegistry(t *testing.T, g *runningGateway, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+g.HTTPAddr()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: answer is not a JSON object: %s", method, path, raw)
	}
	return resp.StatusCode, out
}

func versionsPath(name string) string { return "/v1/schemas/" + url.PathEscape(name) + "/versions" }

func TestRegistryAPI_schemas(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	g := startGateway(t, b)
	vp := versionsPath(thingName)

	if st, out := callRegistry(t, g, "POST", vp, thing("1.0.0", "a")); st != http.StatusCreated || out["version"] != "1.0.0" {
		t.Fatalf("register 1.0.0: %d %v", st, out)
	}
	// The same again: a no-op, 200.
	if st, _ := callRegistry(t, g, "POST", vp, thing("1.0.0", "a")); st != http.StatusOK {
		t.Fatalf("register 1.0.0 again: %d", st)
	}
	// Immutable.
	if st, out := callRegistry(t, g, "POST", vp, thing("1.0.0", "b")); st != http.StatusConflict || out["error"] != "immutable" {
		t.Fatalf("register 1.0.0 differently: %d %v", st, out)
	}
	// A breaking change without a major bump: 409 with the changes.
	st, out := callRegistry(t, g, "POST", vp, thing("1.1.0", "a", "b"))
	if st != http.StatusConflict || out["error"] != "incompatible" {
		t.Fatalf("register breaking 1.1.0: %d %v", st, out)
	}
	d0 := out["details"].([]any)[0].(map[string]any)
	if d0["against"] != "1.0.0" || d0["keyword"] != "required" || d0["direction"] != "backward" {
		t.Fatalf("breaking change details: %v", out["details"])
	}
	// The dry run says the same, with 200.
	if st, out := callRegistry(t, g, "POST", "/v1/schemas/"+url.PathEscape(thingName)+"/compatibility", thing("1.1.0", "a", "b")); st != http.StatusOK || out["compatible"] != false {
		t.Fatalf("dry run: %d %v", st, out)
	}
	if st, out := callRegistry(t, g, "POST", "/v1/schemas/"+url.PathEscape(thingName)+"/compatibility", thing("2.0.0", "a", "b")); st != http.StatusOK || out["compatible"] != true {
		t.Fatalf("dry run of a major bump: %d %v", st, out)
	}
	// A compatible minor and a major bump go in.
	if st, out := callRegistry(t, g, "POST", vp, thing("1.1.0")); st != http.StatusCreated {
		t.Fatalf("register compatible 1.1.0: %d %v", st, out)
	}
	if st, out := callRegistry(t, g, "POST", vp, thing("2.0.0", "a", "b")); st != http.StatusCreated {
		t.Fatalf("register 2.0.0: %d %v", st, out)
	}
	// Malformed: 400 or 422 with the reason, nothing stored.
	for _, bad := range []struct {
		body   string
		status int
	}{
		{`{"$id": `, http.StatusBadRequest},
		{strings.Replace(thing("3.0.0"), `"type":"object"`, `"type":"objet"`, 1), http.StatusUnprocessableEntity},
		{strings.Replace(thing("3.0.0"), `/3.0.0"`, `/three"`, 1), http.StatusUnprocessableEntity},
		{thing("3.0.0"), http.StatusBadRequest}, // posted under another name
	} {
		path := vp
		if bad.status == http.StatusBadRequest && strings.HasPrefix(bad.body, "{\"$schema") {
			path = versionsPath("https://example.com/schemas/other")
		}
		st, out := callRegistry(t, g, "POST", path, bad.body)
		if st != bad.status || out["error"] == "" || out["message"] == "" || out["details"] == nil {
			t.Errorf("POST %.60s: %d %v, want %d with error, message and details", bad.body, st, out, bad.status)
		}
	}
	// Reads: versions, one version, latest, by full $id, the level.
	var vs struct {
		Compatibility string
		Versions      []struct{ Version string }
	}
	getJSON(t, g, vp, http.StatusOK, &vs)
	if vs.Compatibility != "BACKWARD" || len(vs.Versions) != 3 || vs.Versions[2].Version != "2.0.0" {
		t.Fatalf("versions: %+v", vs)
	}
	var latest struct {
		Version string
		Schema  map[string]any
	}
	getJSON(t, g, vp+"/latest", http.StatusOK, &latest)
	if latest.Version != "2.0.0" || latest.Schema["$id"] != thingName+"/2.0.0" {
		t.Fatalf("latest: %+v", latest)
	}
	getJSON(t, g, vp+"/9.9.9", http.StatusNotFound, nil)
	waitFor(t, 10*time.Second, "the live registry to serve 2.0.0", func() bool {
		_, ok := g.Registry().Schema(thingName + "/2.0.0")
		return ok
	})
	getJSON(t, g, "/v1/schemas/"+url.PathEscape(thingName+"/2.0.0"), http.StatusOK, nil)
	// The level.
	if st, out := callRegistry(t, g, "PUT", "/v1/schemas/"+url.PathEscape(thingName)+"/config", `{"compatibility":"sideways"}`); st != http.StatusBadRequest || out["error"] != "bad_level" {
		t.Fatalf("bad level: %d %v", st, out)
	}
	if st, out := callRegistry(t, g, "PUT", "/v1/schemas/"+url.PathEscape(thingName)+"/config", `{"compatibility":"NONE"}`); st != http.StatusOK {
		t.Fatalf("set NONE: %d %v", st, out)
	}
	if st, out := callRegistry(t, g, "POST", vp, thing("2.1.0", "a", "b", "c")); st != http.StatusCreated {
		t.Fatalf("breaking 2.1.0 under NONE: %d %v", st, out)
	}
	// Delete while a blueprint names it: refused; then allowed.
	if st, out := callRegistry(t, g, "POST", "/v1/agents", worker("2.1.0", 1)); st != http.StatusCreated {
		t.Fatalf("create worker: %d %v", st, out)
	}
	if st, out := callRegistry(t, g, "DELETE", vp+"/2.1.0", ""); st != http.StatusConflict || out["error"] != "in_use" ||
		!strings.Contains(fmt.Sprint(out["details"]), "agent worker") {
		t.Fatalf("delete in use: %d %v", st, out)
	}
	if st, out := callRegistry(t, g, "PUT", "/v1/agents/worker", worker("2.0.0", 1)); st != http.StatusOK {
		t.Fatalf("update worker: %d %v", st, out)
	}
	if st, out := callRegistry(t, g, "DELETE", vp+"/2.1.0", ""); st != http.StatusOK {
		t.Fatalf("delete unused: %d %v", st, out)
	}
	getJSON(t, g, vp+"/2.1.0", http.StatusNotFound, nil)
}

func TestRegistryAPI_agents(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	g := startGateway(t, b)
	if st, _ := callRegistry(t, g, "POST", versionsPath(thingName), thing("1.0.0", "a")); st != http.StatusCreated {
		t.Fatal(st)
	}
	for _, bad := range []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"POST", "/v1/agents", `{"name":"worker","output_schema":"` + thingName + `/9.0.0","system_prompt":"x"}`, 422, "invalid"},
		{"POST", "/v1/agents", `{"name":"worker","max_retries":-1,"system_prompt":"x"}`, 422, "invalid"},
		{"POST", "/v1/agents", `{"name":"worker","sytem_prompt":"x"}`, 422, "invalid"},
		{"POST", "/v1/agents", `not json`, 400, "invalid_json"},
		{"PUT", "/v1/agents/other", worker("1.0.0", 1), 400, "name_mismatch"},
		{"DELETE", "/v1/agents/nobody", "", 404, "not_found"},
	} {
		st, out := callRegistry(t, g, bad.method, bad.path, bad.body)
		if st != bad.status || out["error"] != bad.code || out["message"] == "" {
			t.Errorf("%s %s %.40s: %d %v, want %d %s", bad.method, bad.path, bad.body, st, out, bad.status, bad.code)
		}
	}
	var agents []map[string]any
	getJSON(t, g, "/v1/agents", http.StatusOK, &agents)
	for _, a := range agents {
		if a["name"] == "worker" {
			t.Fatal("a refused blueprint was stored")
		}
	}
	if st, out := callRegistry(t, g, "POST", "/v1/agents", worker("1.0.0", 1)); st != http.StatusCreated || out["revision"] == nil {
		t.Fatalf("create: %d %v", st, out)
	}
	if st, out := callRegistry(t, g, "POST", "/v1/agents", worker("1.0.0", 2)); st != http.StatusConflict || out["error"] != "exists" {
		t.Fatalf("create twice: %d %v", st, out)
	}
	waitFor(t, 10*time.Second, "the agent to be served", func() bool { _, ok := g.Registry().Blueprint("worker"); return ok })
	getJSON(t, g, "/v1/agents/worker", http.StatusOK, nil)
	if st, out := callRegistry(t, g, "DELETE", "/v1/agents/worker", ""); st != http.StatusOK {
		t.Fatalf("delete: %d %v", st, out)
	}
	waitFor(t, 10*time.Second, "the agent to go", func() bool { _, ok := g.Registry().Blueprint("worker"); return !ok })
	getJSON(t, g, "/v1/agents/worker", http.StatusNotFound, nil)
}

// Two gateways on one NATS: a change made through one reaches both; the
// test reports how long it took.
func TestRegistry_twoGatewaysInStep(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	g1, g2 := startGateway(t, b), startGateway(t, b)
	var worst time.Duration
	for i := range 5 {
		v := fmt.Sprintf("1.%d.0", i)
		start := time.Now()
		if st, out := callRegistry(t, g1, "POST", versionsPath(thingName), thing(v, "a")); st != http.StatusCreated {
			t.Fatalf("register %s: %d %v", v, st, out)
		}
		acked := time.Since(start)
		var took [2]time.Duration
		for j, g := range []*runningGateway{g1, g2} {
			waitFor(t, 10*time.Second, "the version on gateway "+fmt.Sprint(j+1), func() bool {
				_, ok := g.Registry().Schema(thingName + "/" + v)
				return ok
			})
			took[j] = time.Since(start)
		}
		worst = max(worst, took[0], took[1])
		t.Logf("register %s: API answered in %v; served by gateway 1 after %v, gateway 2 after %v", v, acked, took[0], took[1])
	}
	t.Logf("slowest change to reach both gateways (from the request): %v", worst)
}

// Two registrations of the same version at once, one through each of two
// gateways: one wins (201), the other gets 409, and both gateways serve
// the winner.
func TestRegistry_concurrentRegistrationsOverHTTP(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	g1, g2 := startGateway(t, b), startGateway(t, b)
	for round := range 3 {
		v := fmt.Sprintf("%d.0.0", round+1)
		var (
			wg     sync.WaitGroup
			status [2]int
			body   [2]map[string]any
		)
		for i, g := range []*runningGateway{g1, g2} {
			wg.Go(func() {
				status[i], body[i] = callRegistry(t, g, "POST", versionsPath(thingName), thing(v, []string{"a", "b"}[i]))
			})
		}
		wg.Wait()
		won := slices.Index(status[:], http.StatusCreated)
		if won < 0 || status[1-won] != http.StatusConflict {
			t.Fatalf("%s: statuses %v (%v), want one 201 and one 409", v, status, body)
		}
		want := []string{"a", "b"}[won]
		for j, g := range []*runningGateway{g1, g2} {
			waitFor(t, 10*time.Second, "the winner on gateway "+fmt.Sprint(j+1), func() bool {
				sch, ok := g.Registry().Schema(thingName + "/" + v)
				if !ok {
					return false
				}
				req, _ := sch.Doc["required"].([]any)
				return len(req) == 1 && req[0] == want
			})
		}
	}
}

// A retry is judged by the blueprint revision its run started with, even
// after the blueprint changed; a run that starts after the change gets the
// new one.
func TestRegistry_retryJudgedByItsRunsBlueprint(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	g := startGateway(t, b)
	for _, doc := range []string{thing("1.0.0", "a"), thing("2.0.0", "b")} {
		if st, out := callRegistry(t, g, "POST", versionsPath(thingName), doc); st != http.StatusCreated {
			t.Fatalf("register: %d %v", st, out)
		}
	}
	st, out := callRegistry(t, g, "POST", "/v1/agents", worker("1.0.0", 2))
	if st != http.StatusCreated {
		t.Fatalf("create worker: %d %v", st, out)
	}
	rev1 := out["revision"].(float64)
	waitFor(t, 10*time.Second, "worker", func() bool { _, ok := g.Registry().Blueprint("worker"); return ok })

	// Attempt 1 of run-old misses "a": a retry, under revision 1.
	b.publish(raw{agent: "worker", run: "run-old", payload: `{"note":"n"}`})
	b.awaitState("run-old", contract.RunRetryRequested, 1)
	if got := b.runState("run-old").BlueprintRevision; float64(got) != rev1 {
		t.Fatalf("run-old recorded blueprint revision %d, want %v", got, rev1)
	}

	// The blueprint moves to 2.0.0 (requires "b", not "a").
	st, out = callRegistry(t, g, "PUT", "/v1/agents/worker", worker("2.0.0", 2))
	if st != http.StatusOK {
		t.Fatalf("update worker: %d %v", st, out)
	}
	rev2 := uint64(out["revision"].(float64))
	waitFor(t, 10*time.Second, "the new blueprint", func() bool {
		bp, ok := g.Registry().Blueprint("worker")
		return ok && bp.OutputSchema.ID == thingName+"/2.0.0"
	})

	// Attempt 2 of run-old is judged by 1.0.0: {"a"} is valid.
	b.publish(raw{agent: "worker", run: "run-old", payload: `{"a":"x"}`})
	b.awaitState("run-old", contract.RunCompleted, 2)
	last := b.awaitOutcomes("run-old", 2)
	var valid outcome
	for _, o := range last {
		if o.Headers.Get(contract.HeaderOutcome) == "valid" {
			valid = o
		}
	}
	if valid.Body["schema_id"] != thingName+"/1.0.0" {
		t.Fatalf("run-old's retry was judged by %v, want 1.0.0: %s", valid.Body["schema_id"], valid.Data)
	}
	// A new run is judged by 2.0.0: {"a"} misses "b".
	b.publish(raw{agent: "worker", run: "run-new", payload: `{"a":"x"}`})
	b.awaitState("run-new", contract.RunRetryRequested, 1)
	if got := b.runState("run-new").BlueprintRevision; got != rev2 {
		t.Fatalf("run-new recorded blueprint revision %d, want %d", got, rev2)
	}
	retry := b.awaitOutcomes("run-new", 1)[0]
	if field(retry.Body, "error", "schema_id") != thingName+"/2.0.0" {
		t.Fatalf("run-new was judged by %v: %s", field(retry.Body, "error", "schema_id"), retry.Data)
	}
}

// A streamed retry's prefix is judged by the blueprint its run started
// with, as the attempt will be decided: a member the new schema rejects
// does not stop an attempt the old one allows.
func TestRegistry_streamedRetryJudgedByItsRunsBlueprint(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	g := startGateway(t, b)
	const name = "https://agentgate.dev/schemas/streamed"
	open := `{"$id":"` + name + `/1.0.0","type":"object","properties":{"a":{"type":"string"},"note":{"type":"string"}},"required":["a"]}`
	narrowed := `{"$id":"` + name + `/2.0.0","type":"object","properties":{"a":{"enum":["y"]},"note":{"type":"string"}},"required":["a"]}`
	if st, out := callRegistry(t, g, "POST", versionsPath(name), open); st != http.StatusCreated {
		t.Fatalf("register 1.0.0: %d %v", st, out)
	}
	if st, out := callRegistry(t, g, "PUT", "/v1/schemas/"+url.PathEscape(name)+"/config", `{"compatibility":"NONE"}`); st != http.StatusOK {
		t.Fatalf("compatibility NONE: %d %v", st, out)
	}
	if st, out := callRegistry(t, g, "POST", versionsPath(name), narrowed); st != http.StatusCreated {
		t.Fatalf("register 2.0.0: %d %v", st, out)
	}
	agent := func(v string) string {
		return `{"name":"streamer","description":"test","output_schema":"` + name + `/` + v + `","max_retries":2,"system_prompt":"Answer."}`
	}
	if st, out := callRegistry(t, g, "POST", "/v1/agents", agent("1.0.0")); st != http.StatusCreated {
		t.Fatalf("create streamer: %d %v", st, out)
	}
	waitFor(t, 10*time.Second, "streamer", func() bool { _, ok := g.Registry().Blueprint("streamer"); return ok })

	// Attempt 1 misses "a": a retry under 1.0.0.
	b.publish(raw{agent: "streamer", run: "st-old", payload: `{"note":"n"}`})
	b.awaitState("st-old", contract.RunRetryRequested, 1)

	if st, out := callRegistry(t, g, "PUT", "/v1/agents/streamer", agent("2.0.0")); st != http.StatusOK {
		t.Fatalf("update streamer: %d %v", st, out)
	}
	waitFor(t, 10*time.Second, "the new blueprint", func() bool {
		bp, ok := g.Registry().Blueprint("streamer")
		return ok && bp.OutputSchema.ID == name+"/2.0.0"
	})

	// Attempt 2 streams a prefix that 2.0.0 rejects (a finished "a"
	// outside its enum) and 1.0.0 allows: it is not stopped early.
	chunk := func(seq int, final bool, text string) {
		h := nats.Header{"Chunk-Seq": {strconv.Itoa(seq)}}
		if final {
			h.Set("Chunk-Final", "true")
		}
		b.publish(raw{subject: "agent.output.partial.streamer", run: "st-old", payload: text, headers: h})
	}
	chunk(0, false, `{"a": "x", `)
	b.awaitIdle()
	if got := b.outcomesOf("st-old"); len(got) != 1 {
		t.Fatalf("the prefix ended the attempt: %d outcomes, last %s", len(got), got[len(got)-1].Data)
	}
	chunk(1, true, `"note": "n"}`)
	b.awaitState("st-old", contract.RunCompleted, 2)
	for _, o := range b.awaitOutcomes("st-old", 2) {
		if o.Headers.Get(contract.HeaderOutcome) == "valid" && o.Body["schema_id"] != name+"/1.0.0" {
			t.Fatalf("the streamed retry was judged by %v, want 1.0.0: %s", o.Body["schema_id"], o.Data)
		}
	}
}

// Everything registered survives a restart of NATS and the gateway; the
// configuration folder does not override what the API registered, and a
// folder file edited between starts still applies (the --config flow).
func TestRegistry_restartKeepsEverything(t *testing.T) {
	t.Parallel()
	store := t.TempDir()
	cfgDir := t.TempDir()
	copyExamples(t, cfgDir)
	start := func() (*runningGateway, func()) {
		srv, err := embedded.Start(embedded.Config{Listen: "127.0.0.1:0", StoreDir: store})
		if err != nil {
			t.Fatal(err)
		}
		g, stop := natstest.Gateway(t, srv, cfgDir)
		return &runningGateway{Gateway: g, stop: stop}, func() { stop(); srv.Shutdown(); srv.WaitForShutdown() }
	}
	g, stop := start()
	if st, out := callRegistry(t, g, "POST", versionsPath(thingName), thing("1.0.0", "a")); st != http.StatusCreated {
		t.Fatalf("register: %d %v", st, out)
	}
	if st, out := callRegistry(t, g, "PUT", "/v1/schemas/"+url.PathEscape(thingName)+"/config", `{"compatibility":"FULL"}`); st != http.StatusOK {
		t.Fatalf("level: %d %v", st, out)
	}
	if st, out := callRegistry(t, g, "POST", "/v1/agents", worker("1.0.0", 3)); st != http.StatusCreated {
		t.Fatalf("agent: %d %v", st, out)
	}
	// pr-reviewer changed through the API: max_retries 4.
	bp := readFile(t, filepath.Join(cfgDir, "agents", "pr-reviewer.json"))
	apiBP := strings.Replace(bp, `"max_retries": 1`, `"max_retries": 4`, 1)
	if st, out := callRegistry(t, g, "PUT", "/v1/agents/pr-reviewer", apiBP); st != http.StatusOK {
		t.Fatalf("update pr-reviewer: %d %v", st, out)
	}
	stop()

	// Between the starts, the folder's code-analyzer changes (the old
	// flow), and so does its pr-reviewer (which the API owns now).
	ca := filepath.Join(cfgDir, "agents", "code-analyzer.json")
	writeFile(t, ca, strings.Replace(readFile(t, ca), `"max_retries": 1`, `"max_retries": 2`, 1))
	writeFile(t, filepath.Join(cfgDir, "agents", "pr-reviewer.json"), strings.Replace(bp, `"max_retries": 1`, `"max_retries": 0`, 1))

	g, _ = start()
	var vs struct {
		Compatibility string
		Versions      []struct{ Version string }
	}
	getJSON(t, g, versionsPath(thingName), http.StatusOK, &vs)
	if vs.Compatibility != "FULL" || len(vs.Versions) != 1 {
		t.Fatalf("after restart: %+v", vs)
	}
	reg := g.Registry()
	if w, ok := reg.Blueprint("worker"); !ok || w.MaxRetries != 3 {
		t.Fatalf("worker after restart: %+v", w)
	}
	if pr, _ := reg.Blueprint("pr-reviewer"); pr.MaxRetries != 4 {
		t.Fatalf("pr-reviewer has max_retries %d, want the API's 4", pr.MaxRetries)
	}
	if c, _ := reg.Blueprint("code-analyzer"); c.MaxRetries != 2 {
		t.Fatalf("code-analyzer has max_retries %d, want the edited file's 2", c.MaxRetries)
	}
}

func copyExamples(t *testing.T, dst string) {
	t.Helper()
	for _, sub := range []string{"schemas", "agents"} {
		entries, err := os.ReadDir(filepath.Join(examplesDir, sub))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dst, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			writeFile(t, filepath.Join(dst, sub, e.Name()), readFile(t, filepath.Join(examplesDir, sub, e.Name())))
		}
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A gateway given a fixed registry (embedded use) keeps it: the write
// routes answer 503 and nothing is seeded.
func TestRegistryAPI_staticRegistry(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	reg, err := schemas.Load(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	g := startGateway(t, b, func(c *gateway.Config) { c.Registry = reg })
	if st, out := callRegistry(t, g, "POST", "/v1/agents", worker("1.0.0", 1)); st != http.StatusServiceUnavailable || out["error"] != "static_registry" {
		t.Fatalf("write on a static registry: %d %v", st, out)
	}
	if g.Registry() != reg {
		t.Fatal("the gateway does not serve the registry it was given")
	}
	getJSON(t, g, "/v1/agents/pr-reviewer", http.StatusOK, nil)
}
