package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/spf13/cobra"
)

// newHealthCmd is the container health check: images without a shell or
// curl (distroless, scratch) run `agentgate health`.
func newHealthCmd() *cobra.Command {
	var (
		url     string
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "health",
		Short: "Check a running gateway's /healthz (exit 0 when healthy, 1 when not)",
		Long: `Ask a running gateway's HTTP API whether it is healthy: GET --url, exit 0 on
200, 1 otherwise. For container health checks in images without a shell:
HEALTHCHECK CMD ["/agentgate", "health"].`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return exitCode{2, fmt.Errorf("--url %q: %w", url, err)}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return exitCode{1, fmt.Errorf("unhealthy: %w", err)}
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			if resp.StatusCode != http.StatusOK {
				return exitCode{1, fmt.Errorf("unhealthy: %s: %s", resp.Status, body)}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "healthy: %s\n", body)
			return nil
		},
	}
	cmd.Flags().StringVar(&url, "url", "http://127.0.0.1:8080/healthz", "the gateway's health URL")
	cmd.Flags().DurationVar(&timeout, "timeout", 3*time.Second, "how long to wait for the answer")
	return cmd
}
