package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgate/agentgate/executor"
	"github.com/agentgate/agentgate/internal/natstest"
)

// Answers of a model reviewing a pull request for the pr-reviewer agent.
const (
	drifted   = "Sure! Here is my review:\n```json\n{\"summary\": \"Adds a cache.\", \"approval\": \"looks good\", \"comments\": []}\n```"
	corrected = `{"summary": "Adds a cache.", "approval": "approve", "comments": [{"file": "cache.go", "line": "12", "severity": "nitpick", "message": "Name the constant."}]}`
)

// chatServer answers like an OpenAI-compatible chat-completions API, from a
// script, and records the requests it got.
type chatServer struct {
	*httptest.Server
	t       *testing.T
	answers []string
	refusal string

	mu       sync.Mutex
	requests []chatRequest
	auth     []string
}

type chatRequest struct {
	Model    string             `json:"model"`
	Messages []executor.Message `json:"messages"`
}

func startChatServer(t *testing.T, answers ...string) *chatServer {
	t.Helper()
	s := &chatServer{t: t, answers: answers}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *chatServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad JSON","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	n := len(s.requests)
	s.mu.Unlock()

	msg := map[string]any{"role": "assistant", "content": nil}
	switch {
	case s.refusal != "":
		msg["refusal"] = s.refusal
	case n <= len(s.answers):
		msg["content"] = s.answers[n-1]
	default:
		http.Error(w, `{"error":{"message":"script exhausted","type":"server_error"}}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}},
		"usage":   map[string]int{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
	})
}

func (s *chatServer) got() ([]chatRequest, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, s.auth
}

// startAgentgate starts an embedded NATS server and a gateway with the
// bundled examples until the test ends; it returns their URLs.
func startAgentgate(t *testing.T) (natsURL, gatewayURL string) {
	t.Helper()
	srv := natstest.Server(t)
	g, _ := natstest.Gateway(t, srv, "../../examples")
	gatewayURL = "http://" + g.HTTPAddr()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(gatewayURL + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return srv.ClientURL(), gatewayURL
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("gateway not healthy after 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// program runs the executor as a user would, with the environment given.
func program(t *testing.T, env map[string]string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	code = run(ctx, args, func(k string) string { return env[k] }, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// The loop end to end: the model drifts from the schema, the gateway asks
// for a retry, the retry prompt goes back in the same conversation, and the
// corrected answer comes out valid and normalized.
func TestExecutor_retryThenValid(t *testing.T) {
	t.Parallel()
	natsURL, gatewayURL := startAgentgate(t)
	chat := startChatServer(t, drifted, corrected)
	env := map[string]string{
		"OPENAI_BASE_URL": chat.URL + "/v1", "OPENAI_MODEL": "gpt-test", "OPENAI_API_KEY": "sk-test",
		"AGENTGATE_NATS_URL": natsURL, "AGENTGATE_GATEWAY_URL": gatewayURL,
	}
	code, stdout, stderr := program(t, env, "diff --git a/cache.go b/cache.go\n+const ttl = 5\n",
		"-agent", "pr-reviewer", "-run", "run-e2e-1", "-input-file", "-")
	if code != exitValid {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}

	var result struct {
		Approval string `json:"approval"`
		Comments []struct {
			Line int `json:"line"`
		} `json:"comments"`
	}
	if err := json.Unmarshal([]byte(stdout), &result); err != nil {
		t.Fatalf("stdout is not the result JSON: %v\n%s", err, stdout)
	}
	if result.Approval != "approve" || len(result.Comments) != 1 || result.Comments[0].Line != 12 {
		t.Errorf("result = %s, want approve with the line coerced to 12", stdout)
	}
	for _, want := range []string{"attempt 1: retry requested, 1 violation(s), first $.approval", "attempt 2: valid (1 normalization(s))"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}

	reqs, auth := chat.got()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	first, second := reqs[0].Messages, reqs[1].Messages
	if reqs[1].Model != "gpt-test" || auth[0] != "Bearer sk-test" || auth[1] != "Bearer sk-test" {
		t.Errorf("model %q, Authorization %q", reqs[1].Model, auth)
	}
	if len(first) != 2 || first[0].Role != "system" || !strings.Contains(first[0].Content, "## Required Output Format") ||
		first[1].Role != "user" || !strings.HasPrefix(first[1].Content, "diff --git") {
		t.Errorf("first request = %+v, want the enriched system prompt and the diff", first)
	}
	// The second request continues the same conversation: the first two
	// turns, the model's drifted answer, then the gateway's retry prompt.
	if len(second) != 4 || second[0] != first[0] || second[1] != first[1] {
		t.Fatalf("second request does not continue the conversation: %+v", second)
	}
	if second[2] != (executor.Message{Role: "assistant", Content: drifted}) {
		t.Errorf("turn 3 = %+v, want the drifted answer", second[2])
	}
	if second[3].Role != "user" || !strings.HasPrefix(second[3].Content, "<output-validation-error>") ||
		!strings.Contains(second[3].Content, "$.approval") || !strings.Contains(second[3].Content, "## Required Schema") {
		t.Errorf("turn 4 = %+v, want the retry prompt", second[3])
	}
}

func TestExecutor_outcomes(t *testing.T) {
	t.Parallel()
	natsURL, gatewayURL := startAgentgate(t)
	tests := []struct {
		name       string
		answers    []string
		refusal    string
		args       []string
		wantCode   int
		wantStderr string
		wantCalls  int
	}{
		{name: "valid first time", answers: []string{corrected}, wantCode: exitValid, wantStderr: "attempt 1: valid", wantCalls: 1},
		{name: "refused", refusal: "I can't review this.", wantCode: exitRefused, wantStderr: "refused: I can't review this.", wantCalls: 1},
		{name: "still invalid", answers: []string{drifted, drifted}, wantCode: exitDLQ, wantStderr: "still invalid after attempt 2:\n  $.approval", wantCalls: 2},
		{name: "unknown agent", args: []string{"-agent", "nobody"}, wantCode: exitError, wantStderr: "unknown agent", wantCalls: 0},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			chat := startChatServer(t, tt.answers...)
			chat.refusal = tt.refusal
			env := map[string]string{"AGENTGATE_NATS_URL": natsURL, "AGENTGATE_GATEWAY_URL": gatewayURL}
			args := append([]string{"-base-url", chat.URL + "/v1", "-model", "m", "-run", fmt.Sprintf("run-outcome-%d", i), "-input", "diff"}, tt.args...)
			code, _, stderr := program(t, env, "", args...)
			if code != tt.wantCode || !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("exit %d, want %d; stderr:\n%s\nwant it to contain %q", code, tt.wantCode, stderr, tt.wantStderr)
			}
			if strings.Contains(stderr, "executor: executor:") {
				t.Errorf("doubled prefix in stderr:\n%s", stderr)
			}
			if reqs, auth := chat.got(); len(reqs) != tt.wantCalls || (len(auth) > 0 && auth[0] != "") {
				t.Errorf("%d model calls (Authorization %q), want %d without a key", len(reqs), auth, tt.wantCalls)
			}
		})
	}
}

func TestExecutor_usage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no model", nil, "no model name"},
		{"both inputs", []string{"-model", "m", "-input", "x", "-input-file", "f"}, "not both"},
		{"stray argument", []string{"-model", "m", "extra"}, "unexpected arguments"},
		{"bad flag", []string{"-nope"}, "flag provided but not defined"},
		{"missing input file", []string{"-model", "m", "-input-file", "/nonexistent/x.diff"}, "reading the input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := program(t, nil, "", tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tt.want)
			}
			if strings.Contains(stderr, "executor: executor:") {
				t.Errorf("doubled prefix in stderr %q", stderr)
			}
		})
	}
}
