package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/dlq"
	"github.com/agentgate/agentgate/runstate"
	"github.com/agentgate/agentgate/topology"
)

func newDLQCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dlq",
		Short: "List, show and replay dead letters",
		Long: `Dead letters are the raw outputs the gateway could not turn into a result: each
keeps the complete raw output and its headers. Once the cause is fixed (a schema or
blueprint corrected, a limit raised), replay publishes them again.`,
	}
	cmd.AddCommand(newDLQListCmd(), newDLQShowCmd(), newDLQReplayCmd())
	return cmd
}

func newDLQListCmd() *cobra.Command {
	var agent string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List dead letters, oldest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			nc, js, err := connect(cmd, "dlq")
			if err != nil {
				return err
			}
			defer nc.Close()
			dls, _, err := dlq.List(cmd.Context(), js, dlq.Query{Agent: agent})
			if err != nil {
				return exitCode{1, err}
			}
			for _, dl := range dls {
				if asJSON {
					fmt.Fprintln(cmd.OutOrStdout(), string(dl.Data))
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%6d  %s\n", dl.Seq, describe(string(contract.OutcomeDLQ), dl.Data))
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%d dead letter(s)%s\n", len(dls), forAgent(agent))
			return nil
		},
	}
	addNATSFlag(cmd)
	cmd.Flags().StringVar(&agent, "agent", "", "only this agent's dead letters")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print each dead letter as JSON")
	return cmd
}

func newDLQShowCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "Print a run's dead letters in full",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			nc, js, err := connect(cmd, "dlq")
			if err != nil {
				return err
			}
			defer nc.Close()
			dls, _, err := dlq.List(cmd.Context(), js, dlq.Query{Run: args[0]})
			if err != nil {
				return exitCode{1, err}
			}
			if len(dls) == 0 {
				return exitCode{1, fmt.Errorf("no dead letter for run %q", args[0])}
			}
			for _, dl := range dls {
				var out bytes.Buffer
				_ = json.Indent(&out, dl.Data, "", "  ")
				fmt.Fprintf(cmd.OutOrStdout(), "# dead letter %d\n%s\n", dl.Seq, out.String())
			}
			return nil
		},
	}
	addNATSFlag(cmd)
	return cmd
}

func newDLQReplayCmd() *cobra.Command {
	var (
		run   string
		all   bool
		agent string
	)
	cmd := &cobra.Command{
		Use:   "replay (--run ID | --all) [--agent NAME]",
		Short: "Publish dead-lettered raw outputs again",
		Long: `Publish the raw output and headers kept in a dead letter again, for the gateway
to process against its registry as it is now. The output carries a Replay-Of header
naming the dead letter: the gateway reopens the run for it on purpose and records the
replay in the run's state, so a dead letter is replayed into its run at most once and
a replay never produces a second valid result. Runs that have since completed or been
refused, or into which that dead letter was replayed already, are skipped. With --run the run's latest dead letter is replayed; with --all,
the latest dead letter of every run (of --agent only, if given).`,
		Example: `  agentgate dlq replay --run run-7
  agentgate dlq replay --all --agent pr-reviewer`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (run == "") == !all {
				return exitCode{2, fmt.Errorf("give exactly one of --run ID or --all")}
			}
			nc, js, err := connect(cmd, "dlq")
			if err != nil {
				return err
			}
			defer nc.Close()
			ctx := cmd.Context()
			dls, _, err := dlq.List(ctx, js, dlq.Query{Agent: agent, Run: run})
			if err != nil {
				return exitCode{1, err}
			}
			latest := map[string]dlq.Letter{}
			var order []string
			for _, dl := range dls {
				id := dl.Event.RunID
				if id == "" {
					fmt.Fprintf(cmd.ErrOrStderr(), "skipped dead letter %d: it has no Run-Id (%s)\n", dl.Seq, dl.Event.Error.Type)
					continue
				}
				if _, seen := latest[id]; !seen {
					order = append(order, id)
				}
				latest[id] = dl
			}
			if len(order) == 0 {
				return exitCode{1, fmt.Errorf("no dead letter to replay")}
			}
			kv, err := js.KeyValue(ctx, topology.RunsBucket)
			if err != nil {
				return exitCode{1, fmt.Errorf("run-state bucket: %w", err)}
			}
			store := runstate.New(kv)
			replayed := 0
			for _, id := range order {
				dl := latest[id]
				if err := dlq.Replayable(ctx, store, dl); errors.Is(err, dlq.ErrNotReplayable) {
					fmt.Fprintf(cmd.ErrOrStderr(), "skipped: %v\n", err)
					continue
				} else if err != nil {
					return exitCode{1, err}
				}
				if _, err := dlq.Replay(ctx, js, dl); err != nil {
					return exitCode{1, err}
				}
				replayed++
				fmt.Fprintf(cmd.OutOrStdout(), "replayed dead letter %d (%s) into run %s\n", dl.Seq, dl.Event.Error.Type, id)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%d replayed; follow the outcomes with: agentgate tail\n", replayed)
			return nil
		},
	}
	addNATSFlag(cmd)
	cmd.Flags().StringVar(&run, "run", "", "replay this run's latest dead letter")
	cmd.Flags().BoolVar(&all, "all", false, "replay the latest dead letter of every run")
	cmd.Flags().StringVar(&agent, "agent", "", "only this agent's dead letters")
	return cmd
}
