package test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/gateway"
)

// dlqPage is the answer of GET /v1/dlq.
type dlqPage struct {
	DeadLetters []struct {
		Seq        uint64               `json:"seq"`
		DeadLetter contract.FailedEvent `json:"dead_letter"`
	} `json:"dead_letters"`
	More bool `json:"more"`
}

func getPage(t *testing.T, base, query, token string) dlqPage {
	t.Helper()
	r := call(t, nil, base, "GET", "/v1/dlq"+query, token, nil)
	if r.status != http.StatusOK {
		t.Fatalf("GET /v1/dlq%s = %d: %s", query, r.status, r.body)
	}
	var p dlqPage
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// The operator's loop over HTTP: list dead letters, page through them,
// replay one after the fix with a write token, and be refused a second
// replay of it.
func TestHTTPAPI_deadLetters(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	tokens := withTokens(t)
	// A limit too low dead-letters every review as payload_too_large.
	g := startGateway(t, b, tokens, func(c *gateway.Config) { c.MaxPayload = 40 })
	for i := range 3 {
		b.publish(raw{agent: "pr-reviewer", run: fmt.Sprintf("dl-%d", i), payload: validReview})
		b.awaitState(fmt.Sprintf("dl-%d", i), contract.RunFailed, 1)
	}
	base := "http://" + g.HTTPAddr()

	all := getPage(t, base, "", readToken)
	if len(all.DeadLetters) != 3 || all.More {
		t.Fatalf("GET /v1/dlq: %+v", all)
	}
	for i, dl := range all.DeadLetters {
		if dl.DeadLetter.RunID != fmt.Sprintf("dl-%d", i) || dl.DeadLetter.Error.Type != contract.ErrPayloadTooLarge || dl.Seq == 0 {
			t.Errorf("dead letter %d = %+v", i, dl)
		}
	}
	first := getPage(t, base, "?limit=2", readToken)
	if len(first.DeadLetters) != 2 || !first.More {
		t.Errorf("limit=2: %d dead letters, more %v", len(first.DeadLetters), first.More)
	}
	rest := getPage(t, base, fmt.Sprintf("?limit=2&after=%d", first.DeadLetters[1].Seq), readToken)
	if len(rest.DeadLetters) != 1 || rest.More || rest.DeadLetters[0].DeadLetter.RunID != "dl-2" {
		t.Errorf("second page: %+v", rest)
	}
	if p := getPage(t, base, "?run=dl-1", readToken); len(p.DeadLetters) != 1 || p.DeadLetters[0].DeadLetter.RunID != "dl-1" {
		t.Errorf("run=dl-1: %+v", p)
	}
	if p := getPage(t, base, "?agent=code-analyzer", readToken); len(p.DeadLetters) != 0 {
		t.Errorf("agent=code-analyzer: %+v", p)
	}
	for _, q := range []string{"?limit=0", "?limit=5000", "?after=x", "?agent=a.b"} {
		if r := call(t, nil, base, "GET", "/v1/dlq"+q, readToken, nil); r.status != 400 {
			t.Errorf("GET /v1/dlq%s = %d, want 400", q, r.status)
		}
	}
	seq := all.DeadLetters[1].Seq
	if r := call(t, nil, base, "GET", fmt.Sprintf("/v1/dlq/%d", seq), readToken, nil); r.status != 200 || !strings.Contains(string(r.body), `"run_id":"dl-1"`) {
		t.Errorf("GET /v1/dlq/%d = %d: %s", seq, r.status, r.body)
	}
	replay := fmt.Sprintf("/v1/dlq/%d/replay", seq)
	if r := call(t, nil, base, "POST", replay, readToken, nil); r.status != http.StatusForbidden {
		t.Errorf("replay with a read token = %d: %s", r.status, r.body)
	}
	if r := call(t, nil, base, "POST", replay, "", nil); r.status != http.StatusUnauthorized {
		t.Errorf("replay without a token = %d: %s", r.status, r.body)
	}

	// The fix: the default limit.
	g.stop()
	g = startGateway(t, b, tokens)
	base = "http://" + g.HTTPAddr()
	r := call(t, nil, base, "POST", replay, writeToken, nil)
	if r.status != http.StatusAccepted || !strings.Contains(string(r.body), `"run_id":"dl-1"`) {
		t.Fatalf("replay = %d: %s", r.status, r.body)
	}
	b.awaitState("dl-1", contract.RunCompleted, 1)
	st := b.runState("dl-1")
	if len(st.Replays) != 1 || st.Replays[0] != seq {
		t.Errorf("replays = %v, want [%d]", st.Replays, seq)
	}
	r = call(t, nil, base, "POST", replay, writeToken, nil)
	if code, msg := r.errorBody(t); r.status != http.StatusConflict || code != "conflict" || !strings.Contains(msg, "completed") {
		t.Errorf("second replay = %d: %s", r.status, r.body)
	}
	for path, want := range map[string]int{"/v1/dlq/99999/replay": 404, "/v1/dlq/abc/replay": 400, "/v1/dlq/0/replay": 400} {
		if r := call(t, nil, base, "POST", path, writeToken, nil); r.status != want {
			t.Errorf("POST %s = %d, want %d: %s", path, r.status, want, r.body)
		}
	}
	if r := call(t, nil, base, "GET", "/v1/dlq/99999", readToken, nil); r.status != 404 {
		t.Errorf("GET /v1/dlq/99999 = %d", r.status)
	}
}
