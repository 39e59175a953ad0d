package test

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/internal/natstest"
	"github.com/agentgate/agentgate/internal/testcert"
)

const (
	readToken  = "read-token-0123456789"
	writeToken = "write-token-0123456789"
)

// tokenFile writes a token file with one read and one write token.
func tokenFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tokens")
	content := "# test tokens\nread " + readToken + "\nwrite " + writeToken + "  # operators\n"
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// withTokens requires the tokens of tokenFile.
func withTokens(t *testing.T) func(*gateway.Config) {
	file := tokenFile(t)
	return func(c *gateway.Config) { c.API.TokenFile = file }
}

// apiResponse is one answer of the HTTP API.
type apiResponse struct {
	status int
	header http.Header
	body   []byte
}

// errorBody decodes the body as the API's JSON error.
func (r apiResponse) errorBody(t *testing.T) (code, message string) {
	t.Helper()
	var e struct{ Error, Message string }
	if err := json.Unmarshal(r.body, &e); err != nil || e.Error == "" || e.Message == "" {
		t.Fatalf("status %d: body is not {error, message}: %s", r.status, r.body)
	}
	return e.Error, e.Message
}

// call makes one request to the gateway's API with a bearer token ("" for
// none) over client (nil for plain HTTP).
func call(t *testing.T, client *http.Client, base, method, path, token string, body io.Reader) apiResponse {
	t.Helper()
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	req, err := http.NewRequest(method, base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return apiResponse{status: resp.StatusCode, header: resp.Header, body: b}
}

func TestHTTPAPI_tokensAndScopes(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	var logs natstest.Buffer
	g := startGateway(t, b, withTokens(t), func(c *gateway.Config) {
		c.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	})
	base := "http://" + g.HTTPAddr()
	tests := []struct {
		method, path, token string
		want                int
		wantCode            string
	}{
		{"GET", "/healthz", "", 200, ""},
		{"GET", "/metrics", "", 401, "unauthorized"},
		{"GET", "/metrics", readToken, 200, ""},
		{"GET", "/v1/agents", "", 401, "unauthorized"},
		{"GET", "/v1/agents", "not-a-token-0123456789", 401, "invalid_token"},
		{"GET", "/v1/agents", readToken, 200, ""},
		{"GET", "/v1/agents", writeToken, 200, ""},
		{"GET", "/v1/agents/nobody", readToken, 404, "not_found"},
		{"GET", "/v1/runs/none", readToken, 404, "not_found"},
		{"GET", "/v1/schemas", "", 401, "unauthorized"},
		{"GET", "/v1/no-such-route", "", 401, "unauthorized"},
		{"GET", "/v1/no-such-route", readToken, 404, "not_found"},
		{"GET", "/v1/runs/" + strings.Repeat("x", 2000), readToken, 404, "not_found"},
	}
	for _, tt := range tests {
		r := call(t, nil, base, tt.method, tt.path, tt.token, nil)
		if r.status != tt.want {
			t.Errorf("%s %s (token %q) = %d, want %d: %s", tt.method, tt.path, tt.token, r.status, tt.want, r.body)
			continue
		}
		if tt.wantCode == "" {
			continue
		}
		if code, msg := r.errorBody(t); code != tt.wantCode || len(msg) > 200 {
			t.Errorf("%s %s: error %q (message of %d bytes), want %q", tt.method, tt.path, code, len(msg), tt.wantCode)
		}
		if ct := r.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s %s: Content-Type %q", tt.method, tt.path, ct)
		}
		if r.status == 401 && !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s %s: 401 without WWW-Authenticate: Bearer", tt.method, tt.path)
		}
	}
	// Refusals are logged for audit, without the token.
	refused := 0
	for _, tt := range tests {
		if tt.want == 401 || tt.want == 403 {
			refused++
		}
	}
	if n := strings.Count(logs.String(), `"msg":"HTTP API request refused"`); n != refused {
		t.Errorf("%d refusals logged, want %d:\n%s", n, refused, logs.String())
	}
	if strings.Contains(logs.String(), "not-a-token-0123456789") {
		t.Error("the log shows a token")
	}
}

func TestHTTPAPI_openRoutes(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	tests := []struct {
		name                 string
		open                 []string
		healthz, metricsCode int
		agents               int // GET /v1/agents without a token
	}{
		{"default: healthz", nil, 200, 401, 401},
		{"healthz and metrics", []string{gateway.OpenHealthz, gateway.OpenMetrics}, 200, 200, 401},
		{"none", []string{}, 401, 401, 401},
		{"the registry's reads", []string{gateway.OpenRegistry}, 401, 401, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tokens := withTokens(t)
			g := startGateway(t, b, tokens, func(c *gateway.Config) { c.API.Open = tt.open })
			base := "http://" + g.HTTPAddr()
			if r := call(t, nil, base, "GET", "/healthz", "", nil); r.status != tt.healthz {
				t.Errorf("/healthz = %d, want %d", r.status, tt.healthz)
			}
			if r := call(t, nil, base, "GET", "/metrics", "", nil); r.status != tt.metricsCode {
				t.Errorf("/metrics = %d, want %d", r.status, tt.metricsCode)
			}
			if r := call(t, nil, base, "GET", "/v1/agents", "", nil); r.status != tt.agents {
				t.Errorf("GET /v1/agents = %d, want %d", r.status, tt.agents)
			}
			// Whatever is open, the registry's writes need a write token
			// and the runs a token.
			if r := call(t, nil, base, "GET", "/v1/runs", "", nil); r.status != 401 {
				t.Errorf("GET /v1/runs = %d, want 401", r.status)
			}
			body := `{"name":"opened","description":"d","system_prompt":"p"}`
			if r := call(t, nil, base, "POST", "/v1/agents", "", strings.NewReader(body)); r.status != 401 {
				t.Errorf("POST /v1/agents without a token = %d, want 401", r.status)
			}
			if r := call(t, nil, base, "POST", "/v1/agents", readToken, strings.NewReader(body)); r.status != 403 {
				t.Errorf("POST /v1/agents with a read token = %d, want 403", r.status)
			}
		})
	}
}

func TestHTTPAPI_limits(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	g := startGateway(t, b, withTokens(t), func(c *gateway.Config) {
		c.API.MaxBody = 1 << 10
		c.API.ReadHeaderTimeout = 300 * time.Millisecond
	})
	base := "http://" + g.HTTPAddr()

	r := call(t, nil, base, "POST", "/v1/dlq/1/replay", writeToken, strings.NewReader(strings.Repeat("x", 4<<10)))
	if code, _ := r.errorBody(t); r.status != http.StatusRequestEntityTooLarge || code != "payload_too_large" {
		t.Errorf("oversized body: %d %s", r.status, r.body)
	}

	// A client that never finishes its headers is cut off.
	conn, err := net.Dial("tcp", g.HTTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, conn); err != nil {
		t.Errorf("the server kept a client without headers for 10s: %v", err)
	}
}

func TestHTTPAPI_TLS(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	certFile, keyFile, pool := testcert.SelfSigned(t)
	g := startGateway(t, b, withTokens(t), func(c *gateway.Config) { c.API.TLSCert, c.API.TLSKey = certFile, keyFile })
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	if r := call(t, client, "https://"+g.HTTPAddr(), "GET", "/v1/agents/pr-reviewer", readToken, nil); r.status != 200 {
		t.Errorf("HTTPS GET = %d: %s", r.status, r.body)
	}
	// Plain HTTP on the same port gets no answer from the API.
	conn, err := net.Dial("tcp", g.HTTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	_, _ = io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	line, _ := bufio.NewReader(conn).ReadString('\n')
	if strings.Contains(line, " 200 ") {
		t.Errorf("plain HTTP answered %q", line)
	}
}

func TestHTTPAPI_badConfiguration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		api  gateway.APIConfig
		addr string
		want string
	}{
		{"every interface without tokens", gateway.APIConfig{}, "0.0.0.0:8080", "needs a token file"},
		{"a host name without tokens", gateway.APIConfig{}, "example.com:8080", "needs a token file"},
		{"unknown open route", gateway.APIConfig{Open: []string{"runs"}}, "127.0.0.1:0", `open route "runs"`},
		{"certificate without key", gateway.APIConfig{TLSCert: "c.pem"}, "127.0.0.1:0", "both a certificate and a key"},
	}
	for _, tt := range tests {
		err := tt.api.Validate(tt.addr)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate = %v, want %q", tt.name, err, tt.want)
		}
	}
	for _, ok := range []struct {
		api  gateway.APIConfig
		addr string
	}{{gateway.APIConfig{}, "127.0.0.1:0"}, {gateway.APIConfig{}, "[::1]:0"}, {gateway.APIConfig{}, "localhost:0"},
		{gateway.APIConfig{NoAuth: true}, "0.0.0.0:0"}, {gateway.APIConfig{TokenFile: "t"}, ":8080"}} {
		if err := ok.api.Validate(ok.addr); err != nil {
			t.Errorf("Validate(%+v, %s) = %v", ok.api, ok.addr, err)
		}
	}

	// A bad token file fails the start, naming the file and line.
	b := startBus(t)
	p := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(p, []byte("admin "+writeToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := gateway.New(t.Context(), gateway.Config{ConfigDir: examplesDir, NATSURL: b.srv.ClientURL(), HTTPAddr: "127.0.0.1:0",
		API: gateway.APIConfig{TokenFile: p}})
	if err == nil || !strings.Contains(err.Error(), p+": apiauth: bad token file: line 1") || strings.Contains(err.Error(), writeToken) {
		t.Errorf("New with a bad token file: %v", err)
	}
}
