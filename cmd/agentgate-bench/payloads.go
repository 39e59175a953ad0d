package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

// kind is the shape of one generated raw output.
type kind int

const (
	kindValid   kind = iota // a schema-valid review
	kindDrifted             // valid once normalized: fenced, with the review_comments alias
	kindInvalid             // approval outside its enum: a retry request
	kindRefusal             // {"refusal": "..."}
	kindGarbage             // prose with no JSON in it
	numKinds
)

var kindNames = [numKinds]string{"valid", "drifted", "invalid", "refusal", "garbage"}

func (k kind) String() string { return kindNames[k] }

// payload is one raw output with the run it belongs to.
type payload struct {
	runID string
	kind  kind
	data  []byte
}

// mixStats summarises a payload set for the report.
type mixStats struct {
	Count    map[string]int `json:"count"`
	AvgBytes int            `json:"avg_bytes"`
	MinBytes int            `json:"min_bytes"`
	MaxBytes int            `json:"max_bytes"`
}

// comment and review follow examples/schemas/pr-review.schema.json; the
// member order is the one a model usually writes.
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

// driftedReview is what a model that drifted writes: the comments under an
// alias the schema declares in x-aliases.
type driftedReview struct {
	Summary        string    `json:"summary"`
	Approval       string    `json:"approval"`
	ReviewComments []comment `json:"review_comments"`
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
	refusals = []string{
		"I can't review this pull request because the diff appears to contain credentials and private keys.",
		"I'm sorry, but I can't help with reviewing code intended to bypass license checks.",
		"I cannot complete this review: the diff is empty.",
	}
	prose = []string{
		"Looking at this change as a whole, the intent is clear and the structure follows the rest of the code base.",
		"There are a few places where error handling could be tighter, in particular around the network calls.",
		"I would suggest splitting the migration from the code change so that they can be rolled back separately.",
		"The tests pass locally but the coverage of the new branch is low.",
		"Overall I think this is close to ready, although I have some reservations about the retry loop.",
		"Let me know if you would like me to go through the frontend part in more detail as well.",
	}
)

// generate returns n raw outputs, deterministically for a seed: about 70 %
// valid, 10 % drifted, 10 % invalid, 5 % refusals and 5 % prose, 1 to 4 KB
// each (refusals are shorter). Run ids are bench-000000, bench-000001, ...
func generate(n int, seed uint64) ([]payload, mixStats) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	out := make([]payload, n)
	st := mixStats{Count: map[string]int{}, MinBytes: -1}
	total := 0
	for i := range out {
		var k kind
		switch r := rng.IntN(100); {
		case r < 70:
			k = kindValid
		case r < 80:
			k = kindDrifted
		case r < 90:
			k = kindInvalid
		case r < 95:
			k = kindRefusal
		default:
			k = kindGarbage
		}
		data := render(rng, k)
		out[i] = payload{runID: fmt.Sprintf("bench-%06d", i), kind: k, data: data}
		st.Count[k.String()]++
		total += len(data)
		st.MaxBytes = max(st.MaxBytes, len(data))
		if st.MinBytes < 0 || len(data) < st.MinBytes {
			st.MinBytes = len(data)
		}
	}
	if n > 0 {
		st.AvgBytes = total / n
	}
	return out, st
}

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

// render writes one raw output of kind k.
func render(rng *rand.Rand, k kind) []byte {
	switch k {
	case kindRefusal:
		b, _ := json.Marshal(map[string]string{"refusal": pick(rng, refusals)})
		return b
	case kindGarbage:
		return garbage(rng, 1024+rng.IntN(3072))
	}
	rv := review{
		Summary:  pick(rng, summaries) + " " + pick(rng, verdicts),
		Approval: pick(rng, approvals),
	}
	if k == kindInvalid {
		rv.Approval = pick(rng, badApprovals)
	}
	rv.Comments = comments(rng, rv, 1024+rng.IntN(3072))
	if k != kindDrifted {
		b, _ := json.MarshalIndent(rv, "", "  ")
		return b
	}
	b, _ := json.MarshalIndent(driftedReview{rv.Summary, rv.Approval, rv.Comments}, "", "  ")
	return []byte("Here is my review of the pull request:\n\n```json\n" + string(b) +
		"\n```\n\nLet me know if you want me to look at the tests as well.\n")
}

// comments adds line comments to rv until its indented JSON is about target
// bytes, staying under 4 KB even inside a fence.
func comments(rng *rand.Rand, rv review, target int) []comment {
	rv.Comments = []comment{}
	for {
		c := comment{
			File:     pick(rng, files),
			Line:     1 + rng.IntN(400),
			Severity: pick(rng, severities),
			Message:  pick(rng, sentences),
		}
		if rng.IntN(2) == 0 {
			c.Message += " " + pick(rng, sentences)
		}
		next := append(rv.Comments, c)
		b, _ := json.MarshalIndent(review{rv.Summary, rv.Approval, next}, "", "  ")
		if len(b) > 3900 && len(rv.Comments) > 0 {
			return rv.Comments
		}
		rv.Comments = next
		if len(b) >= target {
			return rv.Comments
		}
	}
}

// garbage is prose about a review with no braces or brackets, so that no
// JSON can be extracted from it.
func garbage(rng *rand.Rand, target int) []byte {
	var sb strings.Builder
	sb.WriteString("Sure! Here are my thoughts on this pull request.\n\n")
	for sb.Len() < target {
		s := pick(rng, prose)
		if sb.Len()+len(s) > 4000 {
			break
		}
		sb.WriteString(s)
		if rng.IntN(4) == 0 {
			sb.WriteString("\n\n")
		} else {
			sb.WriteByte(' ')
		}
	}
	return []byte(sb.String())
}
