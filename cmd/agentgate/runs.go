package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/runstate"
	"github.com/agentgate/agentgate/subjects"
)

func newRunsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "Inspect runs",
	}
	show := &cobra.Command{
		Use:   "show RUN",
		Short: "Print a run's state and every outcome it had",
		Long: `Print the run's state from the key-value store (status, attempts, latest outcome),
then one line for each outcome published for it, oldest first.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			nc, js, err := connect(cmd, "runs")
			if err != nil {
				return err
			}
			defer nc.Close()
			ctx := cmd.Context()
			kv, err := js.KeyValue(ctx, subjects.RunsBucket)
			if err != nil {
				return exitCode{1, fmt.Errorf("run-state bucket: %w", err)}
			}
			st, _, err := runstate.New(kv).Get(ctx, args[0])
			if err != nil {
				return exitCode{1, err}
			}
			if st == nil {
				return exitCode{1, fmt.Errorf("unknown run %q", args[0])}
			}
			b, _ := json.Marshal(st)
			var out bytes.Buffer
			_ = json.Indent(&out, b, "", "  ")
			fmt.Fprintln(cmd.OutOrStdout(), out.String())

			// Each line starts with its RFC 3339 UTC timestamp, so sorting
			// the lines orders the outcomes in time across the streams.
			var lines []string
			for _, name := range []string{"valid", "retry", "refused", "dlq"} {
				src := tailStreams[name]
				err := readStream(ctx, js, src.stream, src.prefix+"."+st.AgentID, func(m jetstream.Msg) error {
					if m.Headers().Get(contract.HeaderRunID) == st.RunID {
						lines = append(lines, describe(name, m.Data()))
					}
					return nil
				})
				if err != nil {
					return exitCode{1, err}
				}
			}
			slices.Sort(lines)
			fmt.Fprintf(cmd.OutOrStdout(), "\n%d outcome(s):\n", len(lines))
			for _, l := range lines {
				fmt.Fprintln(cmd.OutOrStdout(), "  "+l)
			}
			return nil
		},
	}
	addNATSFlag(show)
	cmd.AddCommand(show)
	return cmd
}
