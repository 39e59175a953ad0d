// Command agentgate is the schema-enforcement gateway for AI-agent output:
// `agentgate serve` runs it on NATS; the other commands validate offline,
// publish raw outputs and inspect what the gateway did.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := newRootCmd().ExecuteContext(ctx)
	var ec exitCode
	switch {
	case err == nil:
	case errors.As(err, &ec):
		if ec.err != nil {
			fmt.Fprintln(os.Stderr, "agentgate:", ec.err)
		}
		stop()
		os.Exit(ec.code)
	default:
		fmt.Fprintln(os.Stderr, "agentgate:", err)
		stop()
		os.Exit(2)
	}
}

// exitCode carries a process exit status through cobra.
type exitCode struct {
	code int
	err  error
}

func (e exitCode) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e exitCode) Unwrap() error { return e.err }
