package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/runstate"
	"github.com/agentgate/agentgate/topology"
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
then one line for each outcome published for it, in order of attempt.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			nc, js, err := connect(cmd, "runs")
			if err != nil {
				return err
			}
			defer nc.Close()
			ctx := cmd.Context()
			kv, err := js.KeyValue(ctx, topology.RunsBucket)
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

			var outcomes []storedOutcome
			for _, name := range []string{"valid", "retry", "refused", "dlq"} {
				src := tailStreams[name]
				err := readStream(ctx, js, src.stream, src.prefix+"."+st.AgentID, func(m jetstream.Msg) error {
					if m.Headers().Get(contract.HeaderRunID) == st.RunID {
						outcomes = append(outcomes, newStoredOutcome(name, m))
					}
					return nil
				})
				if err != nil {
					return exitCode{1, err}
				}
			}
			orderOutcomes(outcomes)
			fmt.Fprintf(cmd.OutOrStdout(), "\n%d outcome(s):\n", len(outcomes))
			for _, o := range outcomes {
				fmt.Fprintln(cmd.OutOrStdout(), "  "+describe(o.outcome, o.data))
			}
			return nil
		},
	}
	addNATSFlag(show)
	cmd.AddCommand(show)
	return cmd
}
