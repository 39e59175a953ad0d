package main

import (
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"
)

// addLogFlags gives a command that logs --log-level and --log-format; the
// commands that only print results have neither.
func addLogFlags(cmd *cobra.Command) {
	cmd.Flags().String("log-level", "info", "log level: debug, info, warn, error")
	cmd.Flags().String("log-format", "text", "log format: text or json")
}

// newLogger is the logger asked for by the flags of addLogFlags, writing to
// the command's standard error.
func newLogger(cmd *cobra.Command) (*slog.Logger, error) {
	lvl, _ := cmd.Flags().GetString("log-level")
	format, _ := cmd.Flags().GetString("log-format")
	var level slog.Level
	if err := level.UnmarshalText([]byte(lvl)); err != nil {
		return nil, exitCode{2, fmt.Errorf("--log-level %q: want debug, info, warn or error", lvl)}
	}
	opts := &slog.HandlerOptions{Level: level}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(cmd.ErrOrStderr(), opts)), nil
	}
	return nil, exitCode{2, fmt.Errorf("--log-format %q: want text or json", format)}
}
