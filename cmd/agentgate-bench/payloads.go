package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode/utf8"
)

// kind is the shape of one generated raw output.
type kind int

const (
	kindValid   kind = iota // a schema-valid document
	kindDrifted             // valid once normalized: fenced in prose, with aliases the schema declares
	kindInvalid             // fails the schema after normalization: a retry request
	kindRefusal             // {"refusal": "..."}
	kindGarbage             // not valid UTF-8: an invalid_encoding dead letter
	numKinds
)

var kindNames = [numKinds]string{"valid", "drifted", "invalid", "refusal", "garbage"}

func (k kind) String() string { return kindNames[k] }

// agents are the example blueprints the load is spread over, half each.
var agents = []string{"pr-reviewer", "tripwire-candidates"}

// block is the exact mix of every 40 consecutive outputs, per agent: 70 %
// valid, 10 % drifted, 10 % invalid, 5 % refusals, 5 % garbage.
var perAgentBlock = [numKinds]int{14, 2, 2, 1, 1}

const blockSize = 40 // 2 agents × 20

// poolSize bounds how many distinct payloads are generated; longer runs
// (the soak) cycle through them with fresh run ids.
const poolSize = 20000

// payload is one raw output of an agent.
type payload struct {
	agent string
	kind  kind
	data  []byte
}

// load is the sequence of raw outputs a measurement publishes: output i is
// pool[i % len(pool)] with run id runID(i).
type load struct {
	pool []payload
	n    int
}

func (l *load) at(i int) payload { return l.pool[i%len(l.pool)] }

// runID is output i's Run-Id; runIndex inverts it.
func runID(i int) string { return fmt.Sprintf("bench-%07d", i) }

// mixStats summarises a load for the report.
type mixStats struct {
	Count    map[string]int `json:"count"`
	ByAgent  map[string]int `json:"by_agent"`
	AvgBytes int            `json:"avg_bytes"`
	MinBytes int            `json:"min_bytes"`
	MaxBytes int            `json:"max_bytes"`
}

// generate returns a load of n raw outputs, deterministic for a seed. Each
// block of 40 consecutive outputs holds, for each of the two agents, 14
// valid, 2 drifted, 2 invalid, 1 refusal and 1 garbage output, shuffled; so
// the mix is exact whenever n is a multiple of 40. Sizes are 1 to 4 KB.
func generate(n int, seed uint64) (*load, mixStats) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	pool := make([]payload, min(n, poolSize))
	var block []payload
	for i := range pool {
		if len(block) == 0 {
			for _, a := range agents {
				for k, c := range perAgentBlock {
					for range c {
						block = append(block, payload{agent: a, kind: kind(k)})
					}
				}
			}
			rng.Shuffle(len(block), func(i, j int) { block[i], block[j] = block[j], block[i] })
		}
		p := block[0]
		block = block[1:]
		p.data = render(rng, p.agent, p.kind)
		pool[i] = p
	}
	l := &load{pool: pool, n: n}
	st := mixStats{Count: map[string]int{}, ByAgent: map[string]int{}, MinBytes: -1}
	total := 0
	for i := range n {
		p := l.at(i)
		st.Count[p.kind.String()]++
		st.ByAgent[p.agent]++
		total += len(p.data)
		st.MaxBytes = max(st.MaxBytes, len(p.data))
		if st.MinBytes < 0 || len(p.data) < st.MinBytes {
			st.MinBytes = len(p.data)
		}
	}
	if n > 0 {
		st.AvgBytes = total / n
	}
	return l, st
}

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

// targetSize is the size a document aims at: 1 to 4 KB.
func targetSize(rng *rand.Rand) int { return 1024 + rng.IntN(3072) }

// maxDoc bounds a document so that it stays under 4 KB even in its fence.
const maxDoc = 3900

// render writes one raw output of kind k for agent.
func render(rng *rand.Rand, agent string, k kind) []byte {
	switch k {
	case kindRefusal:
		return refusal(rng, targetSize(rng))
	case kindGarbage:
		// A reply in Latin-1, or cut in the middle of a character: a valid
		// document with a few bytes that are not UTF-8.
		return badEncoding(rng, render(rng, agent, kindValid))
	}
	if agent == "tripwire-candidates" {
		return tripwireDoc(rng, k)
	}
	return reviewDoc(rng, k)
}

// fence wraps a document the way a chatty model does.
func fence(intro, doc, outro string) []byte {
	return []byte(intro + "\n\n```json\n" + doc + "\n```\n\n" + outro + "\n")
}

// fill appends items produced by next until the indented JSON of wrap(items)
// reaches target bytes, staying under maxDoc.
func fill[T any](target int, next func() T, wrap func([]T) any) []T {
	items := []T{}
	for {
		more := append(items, next())
		b, _ := json.MarshalIndent(wrap(more), "", "  ")
		if len(b) > maxDoc && len(items) > 0 {
			return items
		}
		items = more
		if len(b) >= target {
			return items
		}
	}
}

// --- pr-reviewer (examples/schemas/pr-review.schema.json) ---

type comment struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

type review struct {
	Summary  string    `json:"summary"`
	Approval string    `json:"approval"`
	Comments []comment `json:"comments"`
}

// driftedReview puts the comments under an alias the schema declares in
// x-aliases.
type driftedReview struct {
	Summary        string    `json:"summary"`
	Approval       string    `json:"approval"`
	ReviewComments []comment `json:"review_comments"`
}

func reviewDoc(rng *rand.Rand, k kind) []byte {
	rv := review{
		Summary:  pick(rng, summaries) + " " + pick(rng, verdicts),
		Approval: pick(rng, approvals),
	}
	if k == kindInvalid {
		rv.Approval = pick(rng, badApprovals)
	}
	rv.Comments = fill(targetSize(rng), func() comment {
		c := comment{File: pick(rng, files), Line: 1 + rng.IntN(400), Severity: pick(rng, severities), Message: pick(rng, sentences)}
		if rng.IntN(2) == 0 {
			c.Message += " " + pick(rng, sentences)
		}
		return c
	}, func(cs []comment) any { return review{rv.Summary, rv.Approval, cs} })
	if k != kindDrifted {
		b, _ := json.MarshalIndent(rv, "", "  ")
		return b
	}
	b, _ := json.MarshalIndent(driftedReview{rv.Summary, rv.Approval, rv.Comments}, "", "  ")
	return fence("Here is my review of the pull request:", string(b), "Let me know if you want me to look at the tests as well.")
}

// --- tripwire-candidates (examples/schemas/tripwire-candidates.schema.json) ---

type candidate struct {
	Action        string `json:"action"`
	Warning       string `json:"warning,omitempty"` // omitted only in invalid outputs
	TargetDocPath string `json:"target_doc_path,omitempty"`
}

type tripwires struct {
	Candidates []candidate `json:"candidates"`
}

// driftedCandidate and driftedTripwires use aliases the schema declares.
type driftedCandidate struct {
	Title       string `json:"title"`
	Description string `json:"description"`
	DocPath     string `json:"doc_path,omitempty"`
}

type driftedTripwires struct {
	Tripwires []driftedCandidate `json:"tripwires"`
}

func tripwireDoc(rng *rand.Rand, k kind) []byte {
	target := targetSize(rng)
	if k == kindInvalid {
		target += 300 // a warning is dropped below
	}
	cs := fill(target, func() candidate {
		c := candidate{Action: pick(rng, actions), Warning: pick(rng, warnings)}
		if rng.IntN(2) == 0 {
			c.Warning += " " + pick(rng, warnings)
		}
		if rng.IntN(3) > 0 {
			c.TargetDocPath = pick(rng, docPaths)
		}
		return c
	}, func(cs []candidate) any { return tripwires{cs} })
	switch k {
	case kindInvalid:
		// A candidate without its warning: required, so a retry request.
		cs[rng.IntN(len(cs))].Warning = ""
	case kindDrifted:
		d := driftedTripwires{Tripwires: make([]driftedCandidate, len(cs))}
		for i, c := range cs {
			d.Tripwires[i] = driftedCandidate{c.Action, c.Warning, c.TargetDocPath}
		}
		b, _ := json.MarshalIndent(d, "", "  ")
		return fence("Based on the documentation and the incident history, these actions deserve a tripwire:",
			string(b), "Each warning points to the document that explains the risk where there is one.")
	}
	b, _ := json.MarshalIndent(tripwires{cs}, "", "  ")
	return b
}

// --- refusals and garbage ---

// refusal is {"refusal": "..."} with an explanation of about target bytes.
func refusal(rng *rand.Rand, target int) []byte {
	var sb strings.Builder
	sb.WriteString(pick(rng, refusalOpenings))
	for sb.Len() < target {
		s := pick(rng, refusalReasons)
		if sb.Len()+len(s) > maxDoc {
			break
		}
		sb.WriteByte(' ')
		sb.WriteString(s)
	}
	b, _ := json.Marshal(map[string]string{"refusal": sb.String()})
	return b
}

// latin1 are bytes that are never valid UTF-8 on their own: Latin-1 é, ü,
// ö, a lone 0xFF and a lead byte cut from its continuation.
var latin1 = []byte{0xE9, 0xFC, 0xF6, 0xFF, 0xC3}

// badEncoding overwrites a few bytes of doc (ASCII) with bytes that are
// not UTF-8.
func badEncoding(rng *rand.Rand, doc []byte) []byte {
	for range 1 + rng.IntN(3) {
		doc[rng.IntN(len(doc))] = pick(rng, latin1)
	}
	if utf8.Valid(doc) { // cannot happen with ASCII documents; be sure
		doc[len(doc)/2] = 0xFF
	}
	return doc
}

var (
	files = []string{
		"internal/auth/session.go", "internal/auth/session_test.go", "cmd/server/main.go",
		"pkg/cache/lru.go", "pkg/cache/lru_test.go", "api/handlers/users.go",
		"api/handlers/orders.go", "internal/db/migrations/0042_add_index.sql",
		"web/src/components/Checkout.tsx", "internal/queue/worker.go", "Makefile",
		"internal/config/config.go", "deploy/helm/values.yaml", "README.md",
	}
	severities = []string{"nitpick", "suggestion", "concern", "blocker"}
	approvals  = []string{"approve", "request_changes", "comment"}
	// Not case variants of the enum: those the gateway would coerce.
	badApprovals = []string{"lgtm", "needs_work", "approved_with_nits", "maybe", "reject"}
	sentences    = []string{
		"The error returned by `Close` is dropped, so a failed flush goes unnoticed.",
		"This loop holds the mutex while calling out to the network; a slow peer stalls every other request.",
		"Consider using `errors.Is` here instead of comparing the error strings.",
		"The new index is created without CONCURRENTLY, which locks the table for the whole migration.",
		"A nil map is written to when the config file has no \"limits\" section.",
		"The retry has no upper bound and no jitter, so a downstream outage turns into a thundering herd.",
		"Nit: the variable name `tmp2` does not say what it holds.",
		"The test only covers the happy path; add a case for an expired token.",
		"`time.Now()` is called twice, so the two timestamps in the log line can differ.",
		"The goroutine started here is never stopped and leaks on every reload.",
		"Prefer `strings.Builder` over repeated concatenation in this hot path.",
		"User input reaches the SQL string unescaped: use a parameterised query.",
		"This changes the public API of the package; the changelog should mention it.",
		"The context passed in is ignored and `context.Background()` used instead, so cancellation never propagates.",
		"The capacity hint is off by one, so the slice grows once more than it needs to.",
		"Good catch on the race, but the fix should also cover the read in `Snapshot`.",
		"The timeout of 30 s is hard-coded; make it part of the configuration.",
		"The component re-renders on every keystroke because the callback is recreated each time.",
	}
	summaries = []string{
		"Moves session storage from memory to Redis and adds a reconnect loop.",
		"Adds an LRU cache in front of the user lookup and wires it into the handlers.",
		"Introduces a background worker for order emails and a migration for the outbox table.",
		"Refactors configuration loading and adds validation of the limits section.",
		"Rewrites the checkout form state handling and adds two end-to-end tests.",
	}
	verdicts = []string{
		"The happy path works, but error handling on reconnect is missing.",
		"Overall a clean change; a few small points below.",
		"The approach is sound, yet the concurrency issues must be fixed before merging.",
		"Tests are thin for a change of this size.",
	}
	actions = []string{
		"Delete a database migration that has already been applied",
		"Force-push to a release branch",
		"Edit files under gen/ that protoc generates",
		"Bump the Go version in go.mod",
		"Skip a failing test instead of fixing it",
		"Rotate the artifact signing key",
		"Run terraform apply against the production workspace",
		"Change an exported function in pkg/client",
		"Remove a feature flag that is still referenced in deploy/",
		"Rewrite the history of main",
		"Drop a column from the users table",
		"Upgrade a dependency across a major version",
		"Change the retention of the audit log bucket",
		"Disable the rate limiter in the API gateway configuration",
	}
	warnings = []string{
		"Applied migrations are recorded in schema_migrations; deleting one breaks every environment that already ran it.",
		"Release branches are what the deploy pipeline builds from; rewriting them loses the tags of shipped versions.",
		"Generated files are overwritten by `make generate`; change the .proto source instead.",
		"The CI images pin the toolchain; a newer go line fails every build until they are updated.",
		"A skipped test hides the regression it was written for; the incident of March was one such case.",
		"Clients verify signatures against the published key; rotate only with the documented overlap period.",
		"Production state is shared with the billing team; a plan must be reviewed before it is applied.",
		"External services import this package; a breaking change needs a major version and a changelog entry.",
		"Flags removed while still referenced make the service fall back to defaults at the next deploy.",
		"Other clones will diverge and their next push may reintroduce removed secrets.",
		"The analytics export still reads this column every night.",
		"Major upgrades changed defaults in the past; read the upgrade notes and run the integration suite.",
	}
	docPaths = []string{
		"docs/migrations.md", "RELEASING.md", "docs/codegen.md", "docs/toolchain.md",
		"docs/testing.md", "SECURITY.md", "docs/runbooks/terraform.md",
		"docs/adr/0007-api-stability.md", "docs/feature-flags.md", "CONTRIBUTING.md",
	}
	refusalOpenings = []string{
		"I can't review this pull request because the diff appears to contain credentials and private keys.",
		"I'm sorry, but I can't help with reviewing code intended to bypass license checks.",
		"I cannot complete this task: the material I was given is empty or unreadable.",
		"I won't propose actions for this repository, because the request asks me to disable its safety checks.",
	}
	refusalReasons = []string{
		"Sharing or analysing secrets in this way could expose them further, and they should be rotated first.",
		"If this was not intended, please remove the sensitive files from the change and send it again.",
		"I am happy to help once the request is limited to the parts that do not raise this concern.",
		"My guidelines do not allow me to assist with circumventing licensing or access controls.",
		"Without the actual content I would have to invent findings, which would be misleading.",
		"Please check that the input was attached correctly; an empty diff usually means the base branch is wrong.",
		"You may want to ask a maintainer of the project to confirm that the request is authorised.",
		"Reviewing this would not be responsible without more context about how the code will be used.",
	}
)
