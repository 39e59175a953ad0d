package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentgate/agentgate/executor"
	"github.com/agentgate/agentgate/executor/openai"
)

var conversation = []executor.Message{
	{Role: executor.RoleSystem, Content: "You review code."},
	{Role: executor.RoleUser, Content: "diff"},
}

func TestModel_Complete(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		apiKey  string
		status  int
		answer  string
		delay   bool // the server never answers
		want    string
		wantErr func(t *testing.T, err error)
	}{
		{
			name: "content", apiKey: "sk-test", status: 200,
			answer: `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"{\"a\":1}"},"finish_reason":"stop"}]}`,
			want:   `{"a":1}`,
		},
		{
			name: "no key, local server", status: 200,
			answer: `{"choices":[{"message":{"role":"assistant","content":"hi"}}]}`,
			want:   "hi",
		},
		{
			name: "refusal", status: 200,
			answer: `{"choices":[{"message":{"role":"assistant","content":null,"refusal":"I can't help with that."}}]}`,
			wantErr: func(t *testing.T, err error) {
				var r *executor.ModelRefusal
				if !errors.As(err, &r) || r.Text != "I can't help with that." {
					t.Errorf("err = %v, want *executor.ModelRefusal", err)
				}
			},
		},
		{
			name: "API error", status: 429,
			answer: `{"error":{"message":"Rate limit reached","type":"rate_limit_error"}}`,
			wantErr: func(t *testing.T, err error) {
				var apiErr *openai.APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.Type != "rate_limit_error" || apiErr.Message != "Rate limit reached" {
					t.Errorf("err = %v, want the API error", err)
				}
			},
		},
		{
			name: "error without a JSON body", status: 502, answer: "bad gateway",
			wantErr: func(t *testing.T, err error) {
				var apiErr *openai.APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != 502 || apiErr.Message != "bad gateway" {
					t.Errorf("err = %v", err)
				}
			},
		},
		{
			name: "no choices", status: 200, answer: `{"choices":[]}`,
			wantErr: func(t *testing.T, err error) {
				if !errors.Is(err, openai.ErrNoAnswer) {
					t.Errorf("err = %v, want ErrNoAnswer", err)
				}
			},
		},
		{
			name: "timeout", delay: true,
			wantErr: func(t *testing.T, err error) {
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("err = %v, want context.DeadlineExceeded", err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
					t.Errorf("%s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
				}
				if got, want := r.Header.Get("Authorization"), bearer(tt.apiKey); got != want {
					t.Errorf("Authorization = %q, want %q", got, want)
				}
				var req struct {
					Model    string             `json:"model"`
					Messages []executor.Message `json:"messages"`
				}
				b, _ := io.ReadAll(r.Body)
				if err := json.Unmarshal(b, &req); err != nil || req.Model != "test-model" || len(req.Messages) != 2 || req.Messages[1] != conversation[1] {
					t.Errorf("request body = %s", b)
				}
				if tt.delay {
					<-r.Context().Done()
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.answer)
			}))
			t.Cleanup(srv.Close)
			m, err := openai.New(openai.Config{
				BaseURL: srv.URL + "/v1/", Model: "test-model", APIKey: tt.apiKey, Timeout: 300 * time.Millisecond,
			})
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.Complete(context.Background(), conversation)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("Complete = %q, want an error", got)
				}
				tt.wantErr(t, err)
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Complete = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestNew_badConfig(t *testing.T) {
	t.Parallel()
	for _, cfg := range []openai.Config{
		{},
		{Model: "m", BaseURL: "localhost:11434/v1"},
		{Model: "m", Timeout: -time.Second},
	} {
		if _, err := openai.New(cfg); !errors.Is(err, openai.ErrBadConfig) {
			t.Errorf("New(%+v) = %v, want ErrBadConfig", cfg, err)
		}
	}
}

func bearer(key string) string {
	if key == "" {
		return ""
	}
	return "Bearer " + key
}
