package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// defaultAPI is where agentgate serve's HTTP API listens by default.
const defaultAPI = "http://127.0.0.1:8080"

// Exit statuses of the commands that talk to the registry API.
const (
	exitRefused     = 1 // the registry refused or did not find it
	exitUsage       = 2 // bad arguments or an unreadable file
	exitUnreachable = 3 // the gateway could not be reached or failed
)

// addAPIFlags adds the flags of the commands that call the HTTP API.
func addAPIFlags(cmd *cobra.Command) {
	cmd.Flags().String("api", defaultAPI, "base URL of a gateway's HTTP API")
	cmd.Flags().String("api-token", "", "bearer token for the API (a write token for changes; env AGENTGATE_API_TOKEN)")
	cmd.Flags().Bool("json", false, "print the API's JSON answer")
}

// apiClient calls a gateway's HTTP API.
type apiClient struct {
	base  string
	token string
	http  *http.Client
}

func newAPIClient(cmd *cobra.Command) *apiClient {
	base, _ := cmd.Flags().GetString("api")
	token, _ := cmd.Flags().GetString("api-token")
	return &apiClient{base: strings.TrimSuffix(base, "/"), token: token, http: &http.Client{Timeout: 30 * time.Second}}
}

// apiError is an error answer of the API (contract section 12).
type apiError struct {
	Status  int               `json:"-"`
	Code    string            `json:"error"`
	Message string            `json:"message"`
	Details []json.RawMessage `json:"details"`
}

func (e *apiError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (HTTP %d", e.Message, e.Status)
	if e.Code != "" {
		b.WriteString(", " + e.Code)
	}
	b.WriteString(")")
	for _, d := range e.Details {
		b.WriteString("\n  - " + detailLine(d))
	}
	return b.String()
}

// detailLine renders one entry of details: a string as is, a breaking
// change as "path keyword: message (direction against version)".
func detailLine(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var c struct {
		Path, Keyword, Message, Direction, Against string
	}
	if json.Unmarshal(raw, &c) == nil && c.Message != "" {
		return fmt.Sprintf("%s %s: %s (%s, against %s)", c.Path, c.Keyword, c.Message, c.Direction, c.Against)
	}
	return string(raw)
}

// do sends a request and returns the status and body of a 2xx answer;
// other answers are an exitCode carrying an *apiError (exit 1 for 4xx,
// 3 for 5xx), and a transport failure is exit 3.
func (c *apiClient) do(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, nil, exitCode{exitUsage, fmt.Errorf("--api %q: %w", c.base, err)}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, exitCode{exitUnreachable, fmt.Errorf("calling the gateway at %s: %w", c.base, err)}
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return 0, nil, exitCode{exitUnreachable, fmt.Errorf("reading the answer of %s %s: %w", method, path, err)}
	}
	if resp.StatusCode/100 == 2 {
		return resp.StatusCode, out, nil
	}
	ae := &apiError{Status: resp.StatusCode}
	if json.Unmarshal(out, ae) == nil && ae.Message == "" && ae.Code != "" {
		// The older routes answer {"error": "<sentence>"}.
		ae.Message, ae.Code = ae.Code, ""
	}
	if ae.Message == "" {
		ae.Message = strings.TrimSpace(string(out))
		if ae.Message == "" {
			ae.Message = http.StatusText(resp.StatusCode)
		}
	}
	code := exitRefused
	if resp.StatusCode >= 500 {
		code = exitUnreachable
	}
	return resp.StatusCode, out, exitCode{code, ae}
}

// printJSON prints raw indented.
func printJSON(w io.Writer, raw []byte) {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		b.Reset()
		b.Write(raw)
	}
	fmt.Fprintln(w, strings.TrimSpace(b.String()))
}
