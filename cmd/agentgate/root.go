package main

import (
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentgate/agentgate/natsconn"
)

// envPrefix: every flag also reads from AGENTGATE_<FLAG>, upper case with _
// for - (contract section 7).
const envPrefix = "AGENTGATE_"

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "agentgate",
		Short: "Schema-enforcement gateway for AI-agent output on NATS",
		Long: `agentgate sits on the NATS bus between AI agents and their consumers. It takes
raw agent output from agent.output.raw.<agent>, extracts and normalizes the JSON,
validates it against the agent's JSON Schema and publishes exactly one outcome per
run and attempt: a valid result, a retry request with a ready prompt, a refusal,
or a dead letter.

Every flag can also be set from the environment: AGENTGATE_ plus the flag name in
upper case with _ for - (for example AGENTGATE_NATS_URL).`,
		Version:       readBuildInfo().String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return flagsFromEnv(cmd)
		},
	}
	root.PersistentFlags().String("log-level", "info", "log level: debug, info, warn, error")
	root.PersistentFlags().String("log-format", "text", "log format: text or json")
	root.AddCommand(newServeCmd(), newValidateCmd(), newPublishCmd(), newTailCmd(), newDLQCmd(), newRunsCmd(), newSchemaCmd(), newVersionCmd())
	root.SetVersionTemplate("{{.Version}}\n")
	return root
}

// flagsFromEnv sets every flag the command line left alone from its
// environment variable.
func flagsFromEnv(cmd *cobra.Command) error {
	var errs []string
	flags := cmd.Flags()
	// A flag of a group (--server and its alias --nats-url) given on the
	// command line wins over the environment variables of the whole group.
	given := map[string]bool{}
	flags.Visit(func(f *pflag.Flag) {
		for _, g := range f.Annotations[natsconn.FlagGroup] {
			given[g] = true
		}
	})
	flags.VisitAll(func(f *pflag.Flag) {
		if f.Changed {
			return
		}
		for _, g := range f.Annotations[natsconn.FlagGroup] {
			if given[g] {
				return
			}
		}
		name := envPrefix + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v, ok := os.LookupEnv(name); ok {
			// Set through the flag set, so that a required flag counts
			// as given.
			if err := flags.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Sprintf("%s=%q: %v", name, v, err))
			}
		}
	})
	if len(errs) > 0 {
		return exitCode{2, fmt.Errorf("bad environment: %s", strings.Join(errs, "; "))}
	}
	return nil
}

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
