package gateway

import (
	"encoding/json"
	"errors"
	"github.com/agentgate/agentgate/contract"
	"net/http"
	"strconv"

	"github.com/agentgate/agentgate/dlq"
)

// Page sizes of GET /v1/dlq.
const (
	defaultDLQLimit = 100
	maxDLQLimit     = 1000
)

// deadLetter is one entry of GET /v1/dlq and the answer of GET
// /v1/dlq/{seq}: the dead letter as published, with its sequence.
type deadLetter struct {
	Seq        uint64          `json:"seq"`
	DeadLetter json.RawMessage `json:"dead_letter"`
}

// dlqPage is the answer of GET /v1/dlq.
type dlqPage struct {
	DeadLetters []deadLetter `json:"dead_letters"`
	// More is true when the page is full and more dead letters follow:
	// ask again with after set to the last seq.
	More bool `json:"more"`
}

// replayed is the answer of POST /v1/dlq/{seq}/replay.
type replayed struct {
	Replayed uint64 `json:"replayed"`
	RunID    string `json:"run_id"`
	Subject  string `json:"subject"`
	// StreamSeq is the replayed output's sequence in the raw stream.
	StreamSeq uint64 `json:"stream_seq"`
}

// dlqList serves GET /v1/dlq?agent=&run=&after=&limit=, oldest first.
func (g *Gateway) dlqList(w http.ResponseWriter, r *http.Request) {
	q := dlq.Query{Agent: r.URL.Query().Get("agent"), Run: r.URL.Query().Get("run"), Limit: defaultDLQLimit}
	if q.Agent != "" && !contract.ValidAgent(q.Agent) {
		writeError(w, http.StatusBadRequest, codeBadRequest, "agent: want a name of [A-Za-z0-9_-]+")
		return
	}
	if v := r.URL.Query().Get("after"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			writeError(w, http.StatusBadRequest, codeBadRequest, "after: want a sequence number")
			return
		}
		q.After = n
	}
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxDLQLimit {
			writeError(w, http.StatusBadRequest, codeBadRequest, "limit: want 1 to "+strconv.Itoa(maxDLQLimit))
			return
		}
		q.Limit = n
	}
	letters, more, err := dlq.List(r.Context(), g.js, q)
	if err != nil {
		g.unavailable(w, "listing dead letters", err)
		return
	}
	page := dlqPage{DeadLetters: []deadLetter{}, More: more}
	for _, l := range letters {
		data, err := g.shown(r, l.Data)
		if err != nil {
			g.redactFailed(w, err)
			return
		}
		page.DeadLetters = append(page.DeadLetters, deadLetter{Seq: l.Seq, DeadLetter: data})
	}
	writeJSON(w, http.StatusOK, page)
}

// dlqGet serves GET /v1/dlq/{seq}.
func (g *Gateway) dlqGet(w http.ResponseWriter, r *http.Request) {
	l, ok := g.letter(w, r)
	if !ok {
		return
	}
	data, err := g.shown(r, l.Data)
	if err != nil {
		g.redactFailed(w, err)
		return
	}
	writeJSON(w, http.StatusOK, deadLetter{Seq: l.Seq, DeadLetter: data})
}

// shown is an outcome message as the caller may see it: masked for read
// tokens.
func (g *Gateway) shown(r *http.Request, data []byte) ([]byte, error) {
	if seesSensitive(r) {
		return data, nil
	}
	return g.redactor.Outcome(data)
}

// dlqReplay serves POST /v1/dlq/{seq}/replay: 202 once the raw output is
// published again (the gateway then processes it like any other), 409 when
// the dead letter cannot go back into its run.
func (g *Gateway) dlqReplay(w http.ResponseWriter, r *http.Request) {
	l, ok := g.letter(w, r)
	if !ok {
		return
	}
	err := dlq.Replayable(r.Context(), g.store, l)
	if errors.Is(err, dlq.ErrNotReplayable) {
		writeError(w, http.StatusConflict, codeConflict, err.Error())
		return
	}
	if err != nil {
		g.unavailable(w, "replaying a dead letter", err)
		return
	}
	ack, err := dlq.Replay(r.Context(), g.js, l)
	if err != nil {
		g.unavailable(w, "replaying a dead letter", err)
		return
	}
	g.cfg.Logger.Info("dead letter replayed", "seq", l.Seq, "run_id", l.Event.RunID, "agent_id", l.Event.AgentID)
	writeJSON(w, http.StatusAccepted, replayed{Replayed: l.Seq, RunID: l.Event.RunID, Subject: l.Event.Raw.Subject, StreamSeq: ack.Sequence})
}

// letter reads the dead letter named by the route's {seq}, answering the
// request itself when it cannot.
func (g *Gateway) letter(w http.ResponseWriter, r *http.Request) (dlq.Letter, bool) {
	seq, err := strconv.ParseUint(r.PathValue("seq"), 10, 64)
	if err != nil || seq == 0 {
		writeError(w, http.StatusBadRequest, codeBadRequest, "seq: want a positive sequence number")
		return dlq.Letter{}, false
	}
	l, err := dlq.Get(r.Context(), g.js, seq)
	switch {
	case errors.Is(err, dlq.ErrNotFound):
		writeError(w, http.StatusNotFound, codeNotFound, "no dead letter "+strconv.FormatUint(seq, 10))
		return dlq.Letter{}, false
	case err != nil:
		g.unavailable(w, "reading a dead letter", err)
		return dlq.Letter{}, false
	}
	return l, true
}

// unavailable answers 503 and logs the cause, which the answer does not
// carry.
func (g *Gateway) unavailable(w http.ResponseWriter, what string, err error) {
	g.cfg.Logger.Warn("HTTP API: "+what, "error", err)
	writeError(w, http.StatusServiceUnavailable, codeUnavailable, what+" failed; see the gateway's log")
}
