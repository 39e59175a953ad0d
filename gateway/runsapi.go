package gateway

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/internal/streamread"
	"github.com/agentgate/agentgate/runstate"
	"github.com/agentgate/agentgate/subjects"
	"github.com/agentgate/agentgate/topology"
)

// Bounds of GET /v1/runs and GET /v1/runs/{run_id}/attempts.
const (
	defaultRunsLimit = 50
	maxRunsLimit     = 500
	// maxRunsScanned bounds the entries of the run-state bucket one list
	// reads; past it the answer says "truncated".
	maxRunsScanned = 100_000
	// maxAttemptsShown bounds the outcomes one run's attempts list holds.
	maxAttemptsShown = 100
)

// runsPage is the answer of GET /v1/runs.
type runsPage struct {
	Runs []runstate.Summary `json:"runs"`
	// Next is the cursor of the next page; absent on the last.
	Next string `json:"next,omitempty"`
	// Truncated is true when the bucket held more runs than one list reads.
	Truncated bool `json:"truncated,omitempty"`
}

// runsList serves GET /v1/runs?agent=&status=&cursor=&limit=: runs newest
// first (by updated_at, then run_id).
func (g *Gateway) runsList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	agent, status := q.Get("agent"), contract.RunStatus(q.Get("status"))
	if agent != "" && !contract.ValidAgent(agent) {
		writeError(w, http.StatusBadRequest, codeBadRequest, "agent: want a name of [A-Za-z0-9_-]+")
		return
	}
	switch status {
	case "", contract.RunPending, contract.RunRetryRequested, contract.RunCompleted, contract.RunRefused, contract.RunFailed:
	default:
		writeError(w, http.StatusBadRequest, codeBadRequest, "status: want pending, retry_requested, completed, refused or failed")
		return
	}
	limit := defaultRunsLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxRunsLimit {
			writeError(w, http.StatusBadRequest, codeBadRequest, "limit: want 1 to "+strconv.Itoa(maxRunsLimit))
			return
		}
		limit = n
	}
	var after *runstate.Summary
	if v := q.Get("cursor"); v != "" {
		c, ok := decodeCursor(v)
		if !ok {
			writeError(w, http.StatusBadRequest, codeBadRequest, "cursor: not one this API gave")
			return
		}
		after = &c
	}
	var runs []runstate.Summary
	truncated, err := g.store.List(r.Context(), maxRunsScanned, func(s runstate.Summary) {
		if (agent == "" || s.AgentID == agent) && (status == "" || s.Status == status) &&
			(after == nil || newestFirst(*after, s) < 0) {
			runs = append(runs, s)
		}
	})
	if err != nil {
		g.unavailable(w, "listing runs", err)
		return
	}
	slices.SortFunc(runs, newestFirst)
	page := runsPage{Runs: []runstate.Summary{}, Truncated: truncated}
	if len(runs) > limit {
		runs = runs[:limit]
		page.Next = encodeCursor(runs[limit-1])
	}
	page.Runs = append(page.Runs, runs...)
	writeJSON(w, http.StatusOK, page)
}

// newestFirst orders runs by updated_at descending, then run_id.
func newestFirst(a, b runstate.Summary) int {
	if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
		return c
	}
	return cmp.Compare(a.RunID, b.RunID)
}

// A cursor is the last run of a page: its update time and id, opaque to
// clients.
func encodeCursor(s runstate.Summary) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(s.UpdatedAt.UnixNano(), 10) + " " + s.RunID))
}

func decodeCursor(v string) (runstate.Summary, bool) {
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return runstate.Summary{}, false
	}
	ns, id, ok := strings.Cut(string(b), " ")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || id == "" {
		return runstate.Summary{}, false
	}
	return runstate.Summary{RunID: id, UpdatedAt: time.Unix(0, n).UTC()}, true
}

// attempt is one outcome of GET /v1/runs/{run_id}/attempts.
type attempt struct {
	Stream  string          `json:"stream"`
	Seq     uint64          `json:"seq"`
	Outcome json.RawMessage `json:"outcome"`
}

// runAttempts serves GET /v1/runs/{run_id}/attempts: every outcome
// published for the run, from the outcome streams, oldest first.
func (g *Gateway) runAttempts(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("run_id")
	st, _, err := g.store.Get(r.Context(), id)
	switch {
	case err != nil:
		g.unavailable(w, "reading the run state", err)
		return
	case st == nil:
		writeError(w, http.StatusNotFound, codeNotFound, "unknown run "+quote(id))
		return
	}
	filters := map[string]string{
		topology.StreamValid: subjects.Valid(st.AgentID), topology.StreamRetry: subjects.Retry(st.AgentID),
		topology.StreamRefused: subjects.Refused(st.AgentID), topology.StreamDLQ: subjects.DLQ(st.AgentID),
	}
	var (
		mu    sync.Mutex
		found []attempt
		wg    sync.WaitGroup
		errs  = make(chan error, len(filters))
	)
	for stream, filter := range filters {
		wg.Go(func() {
			if err := g.readRun(r.Context(), stream, filter, id, func(a attempt) {
				mu.Lock()
				defer mu.Unlock()
				found = append(found, a)
			}); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		g.unavailable(w, "reading the run's outcomes", err)
		return
	}
	slices.SortFunc(found, func(a, b attempt) int { return cmp.Compare(attemptOf(a), attemptOf(b)) })
	if len(found) > maxAttemptsShown {
		found = found[len(found)-maxAttemptsShown:]
	}
	out := []attempt{}
	for _, a := range found {
		data, err := g.shown(r, a.Outcome)
		if err != nil {
			g.redactFailed(w, err)
			return
		}
		a.Outcome = data
		out = append(out, a)
	}
	writeJSON(w, http.StatusOK, map[string]any{"run_id": id, "attempts": out})
}

// readRun reads the outcomes of run id on filter in stream, skipping the
// stream when it holds none for the agent (a filtered read of nothing
// would wait for its fetch to time out).
func (g *Gateway) readRun(ctx context.Context, stream, filter, id string, fn func(attempt)) error {
	s, err := g.js.Stream(ctx, stream)
	if err != nil {
		return err
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(filter))
	if err != nil {
		return err
	}
	if info.State.Subjects[filter] == 0 {
		return nil
	}
	return streamread.Read(ctx, g.js, stream, filter, 0, func(m jetstream.Msg) (bool, error) {
		if m.Headers().Get(contract.HeaderRunID) != id {
			return true, nil
		}
		meta, err := m.Metadata()
		if err != nil {
			return false, err
		}
		fn(attempt{Stream: stream, Seq: meta.Sequence.Stream, Outcome: append(json.RawMessage(nil), m.Data()...)})
		return true, nil
	})
}

// attemptOf is an outcome's attempt number, then its order of publication.
func attemptOf(a attempt) int {
	var o struct {
		Attempt int `json:"attempt"`
	}
	_ = json.Unmarshal(a.Outcome, &o)
	return o.Attempt
}
