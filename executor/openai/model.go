package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agentgate/agentgate/executor"
)

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com/v1"

// maxBody bounds what is read from one answer.
const maxBody = 16 << 20

// Config configures a Model. Only Model is required.
type Config struct {
	// BaseURL is the API's base, up to and without /chat/completions
	// (default DefaultBaseURL; Ollama: http://localhost:11434/v1).
	BaseURL string
	// Model is the model name the server knows (required).
	Model string
	// APIKey, when set, is sent as Authorization: Bearer. Local servers
	// usually need none.
	APIKey string
	// Temperature, when set, is sent as is (default: the server's).
	Temperature *float64
	// MaxTokens, when > 0, bounds the answer's length (max_tokens).
	MaxTokens int
	// HTTPClient makes the requests (default: a client of its own).
	HTTPClient *http.Client
	// Timeout bounds each request (default 5 min: a long answer from a slow
	// local model takes a while).
	Timeout time.Duration
}

func (c *Config) setDefaults() {
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	if c.Timeout == 0 {
		c.Timeout = 5 * time.Minute
	}
}

// Validate reports every problem with the configuration.
func (c Config) Validate() error {
	var errs []error
	if strings.TrimSpace(c.Model) == "" {
		errs = append(errs, fmt.Errorf("%w: no model name", ErrBadConfig))
	}
	if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("%w: base URL %q is not an absolute http(s) URL", ErrBadConfig, c.BaseURL))
	}
	if c.Timeout < 0 || c.MaxTokens < 0 {
		errs = append(errs, fmt.Errorf("%w: negative timeout or max tokens", ErrBadConfig))
	}
	return errors.Join(errs...)
}

// Model calls a chat-completions endpoint. It is safe for concurrent use.
type Model struct {
	cfg Config
}

var _ executor.Model = (*Model)(nil)

// New returns a Model, or ErrBadConfig (joined, one per problem).
func New(cfg Config) (*Model, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Model{cfg: cfg}, nil
}

type request struct {
	Model       string             `json:"model"`
	Messages    []executor.Message `json:"messages"`
	Temperature *float64           `json:"temperature,omitempty"`
	MaxTokens   int                `json:"max_tokens,omitempty"`
}

type response struct {
	Choices []struct {
		Message struct {
			Role    string  `json:"role"`
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

type errorBody struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	} `json:"error"`
}

// Complete sends the conversation (POST {BaseURL}/chat/completions with the
// model and the messages) and returns the first choice's content. A choice
// that carries a refusal instead (OpenAI's message.refusal) is returned as
// an *executor.ModelRefusal, so that the run ends as a refusal rather than a
// retry. It returns an *APIError for a status other than 200, ErrNoAnswer
// for an answer without content, and ctx's error, wrapped, when ctx or
// Config.Timeout ends first. It does not retry: the executor's loop is the
// place to decide that.
func (m *Model) Complete(ctx context.Context, messages []executor.Message) (string, error) {
	body, err := json.Marshal(request{
		Model: m.cfg.Model, Messages: messages, Temperature: m.cfg.Temperature, MaxTokens: m.cfg.MaxTokens,
	})
	if err != nil {
		return "", fmt.Errorf("openai: encoding the request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	endpoint := m.cfg.BaseURL + "/chat/completions"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("openai: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if m.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+m.cfg.APIKey)
	}
	resp, err := m.cfg.HTTPClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("openai: POST %s: %w", endpoint, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return "", fmt.Errorf("openai: reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		apiErr := &APIError{StatusCode: resp.StatusCode}
		var eb errorBody
		if json.Unmarshal(raw, &eb) == nil && eb.Error.Message != "" {
			apiErr.Type, apiErr.Message = eb.Error.Type, eb.Error.Message
		} else {
			apiErr.Message = snippet(raw)
		}
		return "", apiErr
	}
	var r response
	if err := json.Unmarshal(raw, &r); err != nil {
		return "", fmt.Errorf("openai: decoding the answer: %w", err)
	}
	if len(r.Choices) == 0 {
		return "", ErrNoAnswer
	}
	msg := r.Choices[0].Message
	switch {
	case msg.Refusal != nil && *msg.Refusal != "":
		return "", &executor.ModelRefusal{Text: *msg.Refusal}
	case msg.Content == nil:
		return "", fmt.Errorf("%w (finish_reason %q)", ErrNoAnswer, r.Choices[0].FinishReason)
	}
	return *msg.Content, nil
}

func snippet(b []byte) string {
	const max = 300
	s := strings.TrimSpace(string(b))
	if len(s) > max {
		s = s[:max] + "..."
	}
	return s
}
