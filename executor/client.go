package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/topology"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// DefaultGatewayURL is the address `agentgate serve` serves HTTP on by
// default.
const DefaultGatewayURL = "http://127.0.0.1:8080"

// maxRunIDLen is the gateway's bound on Run-Id: a longer one is an
// invalid_envelope dead letter, so Submit refuses it up front.
const maxRunIDLen = 256

// maxHTTPBody bounds what is read from one HTTP answer of the gateway.
const maxHTTPBody = 8 << 20

// Config configures a Client. Only Conn is required.
type Config struct {
	// Conn is the NATS connection raw outputs are published and outcomes
	// read on. The Client does not own it: closing it is the caller's job.
	Conn *nats.Conn
	// GatewayURL is the base URL of the gateway's HTTP API (default
	// DefaultGatewayURL). Run reads the agent's blueprint and prompt there.
	GatewayURL string
	// APIToken is sent as "Authorization: Bearer <APIToken>" on every
	// request to the HTTP API; a read token is enough. Empty: none (for a
	// gateway without --api-token-file).
	APIToken string
	// HTTPClient makes the HTTP requests (default: a client of its own;
	// each request is bounded by RequestTimeout either way).
	HTTPClient *http.Client
	// RequestTimeout bounds each publish and each HTTP request (default
	// 10 s).
	RequestTimeout time.Duration
	// AwaitTimeout bounds each wait for an outcome (default 2 min).
	AwaitTimeout time.Duration
	// ModelTimeout bounds each model call made by Run (default 5 min).
	ModelTimeout time.Duration
	// PublishRetries is how many more times Submit publishes an output
	// whose publish got no acknowledgement (default 3; the Nats-Msg-Id keeps
	// JetStream from storing it twice). Negative: none.
	PublishRetries int
}

func (c *Config) setDefaults() {
	if c.GatewayURL == "" {
		c.GatewayURL = DefaultGatewayURL
	}
	c.GatewayURL = strings.TrimRight(c.GatewayURL, "/")
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = 10 * time.Second
	}
	if c.AwaitTimeout == 0 {
		c.AwaitTimeout = 2 * time.Minute
	}
	if c.ModelTimeout == 0 {
		c.ModelTimeout = 5 * time.Minute
	}
	if c.PublishRetries == 0 {
		c.PublishRetries = 3
	}
	if c.PublishRetries < 0 {
		c.PublishRetries = 0
	}
}

// Validate reports every problem with the configuration.
func (c Config) Validate() error {
	var errs []error
	if c.Conn == nil {
		errs = append(errs, fmt.Errorf("%w: no NATS connection", ErrBadConfig))
	}
	if u, err := url.Parse(c.GatewayURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("%w: gateway URL %q is not an absolute http(s) URL", ErrBadConfig, c.GatewayURL))
	}
	if c.RequestTimeout < 0 || c.AwaitTimeout < 0 || c.ModelTimeout < 0 {
		errs = append(errs, fmt.Errorf("%w: negative timeout", ErrBadConfig))
	}
	return errors.Join(errs...)
}

// Client publishes raw outputs and reads their outcomes. It is safe for
// concurrent use; one Client serves any number of runs.
type Client struct {
	cfg    Config
	logger *slog.Logger
	js     jetstream.JetStream

	mu   sync.Mutex
	runs jetstream.KeyValue // the run-state bucket, once found
}

// New returns a Client on cfg.Conn. A nil logger discards. It returns
// ErrBadConfig (joined, one per problem) for a configuration that cannot
// work; it does no I/O, so the gateway need not be up yet.
func New(cfg Config, logger *slog.Logger) (*Client, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	js, err := jetstream.New(cfg.Conn)
	if err != nil {
		return nil, fmt.Errorf("executor: %w", err)
	}
	return &Client{cfg: cfg, logger: logger, js: js}, nil
}

// SystemPrompt returns the agent's enriched system prompt (GET
// /v1/agents/{name}/prompt): the blueprint's prompt with the output schema
// appended. It returns ErrUnknownAgent when the gateway has no such agent.
func (c *Client) SystemPrompt(ctx context.Context, agent string) (string, error) {
	if err := checkAgent(agent); err != nil {
		return "", err
	}
	b, err := c.get(ctx, "/v1/agents/"+url.PathEscape(agent)+"/prompt", agent)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// blueprint is the part of GET /v1/agents/{name} the loop needs.
type blueprint struct {
	Name       string `json:"name"`
	MaxRetries *int   `json:"max_retries"`
}

// maxAttempts is how many attempts a run of the agent gets.
func (c *Client) maxAttempts(ctx context.Context, agent string) (int, error) {
	b, err := c.get(ctx, "/v1/agents/"+url.PathEscape(agent), agent)
	if err != nil {
		return 0, err
	}
	var bp blueprint
	if err := json.Unmarshal(b, &bp); err != nil {
		return 0, fmt.Errorf("%w: blueprint of %q: %w", ErrGateway, agent, err)
	}
	retries := 1 // the contract's default
	if bp.MaxRetries != nil {
		retries = *bp.MaxRetries
	}
	if retries < 0 {
		return 0, fmt.Errorf("%w: blueprint of %q has max_retries %d", ErrGateway, agent, retries)
	}
	return retries + 1, nil
}

// get reads one resource of the HTTP API, bounded by RequestTimeout.
func (c *Client) get(ctx context.Context, path, agent string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.cfg.GatewayURL+path, nil)
	if err != nil {
		return nil, fmt.Errorf("executor: GET %s: %w", path, err)
	}
	if c.cfg.APIToken != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIToken)
	}
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("executor: GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxHTTPBody))
	if err != nil {
		return nil, fmt.Errorf("executor: GET %s: reading the answer: %w", path, err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, fmt.Errorf("%w: %q (GET %s: 404)", ErrUnknownAgent, agent, path)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%w: GET %s: %s: %s", ErrGateway, path, resp.Status, snippet(body))
	}
	return body, nil
}

// runsBucket returns the run-state bucket, looked up once.
func (c *Client) runsBucket(ctx context.Context) (jetstream.KeyValue, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.runs != nil {
		return c.runs, nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	kv, err := c.js.KeyValue(ctx, topology.RunsBucket)
	if err != nil {
		return nil, fmt.Errorf("executor: run-state bucket %s (is the gateway running?): %w", topology.RunsBucket, err)
	}
	c.runs = kv
	return kv, nil
}

// checkAgent refuses an agent name that cannot be a subject token.
func checkAgent(agent string) error {
	if !contract.ValidAgent(agent) {
		return fmt.Errorf("%w: agent %q is not a subject token ([A-Za-z0-9_-]+)", ErrInvalidArgument, agent)
	}
	return nil
}

// checkRun refuses a run id the gateway would dead-letter as an invalid
// envelope, or that cannot travel in a header.
func checkRun(runID string) error {
	switch {
	case strings.TrimSpace(runID) == "":
		return fmt.Errorf("%w: empty run id", ErrInvalidArgument)
	case len(runID) > maxRunIDLen:
		return fmt.Errorf("%w: run id is %d bytes, over the gateway's limit of %d", ErrInvalidArgument, len(runID), maxRunIDLen)
	}
	return checkHeader("run id", runID)
}

func checkHeader(name, value string) error {
	if strings.ContainsAny(value, "\r\n\x00") {
		return fmt.Errorf("%w: %s %q has a line break or NUL", ErrInvalidArgument, name, value)
	}
	return nil
}

func snippet(b []byte) string {
	const max = 200
	s := strings.TrimSpace(string(b))
	if len(s) > max {
		s = s[:max] + "..."
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }
