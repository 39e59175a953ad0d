package main

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/subjects"
)

// tailStreams maps tail's outcome argument to streams and subject prefixes.
var tailStreams = map[string]struct{ stream, prefix string }{
	"valid":   {subjects.StreamValid, subjects.ValidPrefix},
	"retry":   {subjects.StreamRetry, subjects.RetryPrefix},
	"refused": {subjects.StreamRefused, subjects.RefusedPrefix},
	"dlq":     {subjects.StreamDLQ, subjects.DLQPrefix},
}

func newTailCmd() *cobra.Command {
	var (
		agent     string
		asJSON    bool
		fromStart bool
		count     int
	)
	cmd := &cobra.Command{
		Use:   "tail [valid|retry|refused|dlq|all]",
		Short: "Follow outcomes as they arrive",
		Long: `Follow the gateway's outcomes as they are published, one readable line each
(time, outcome, agent, run, attempt, and the first violation or the error), or the
full JSON with --json. Stops on Ctrl-C, or after --count outcomes.`,
		Example: `  agentgate tail
  agentgate tail dlq --agent pr-reviewer --json
  agentgate tail retry --from-start --count 10`,
		Args:      cobra.MatchAll(cobra.MaximumNArgs(1), cobra.OnlyValidArgs),
		ValidArgs: []string{"valid", "retry", "refused", "dlq", "all"},
		RunE: func(cmd *cobra.Command, args []string) error {
			which := "all"
			if len(args) == 1 {
				which = args[0]
			}
			if agent != "" && !subjects.ValidAgent(agent) {
				return exitCode{2, fmt.Errorf("--agent %q: want a name of [A-Za-z0-9_-]+", agent)}
			}
			nc, js, err := connect(cmd, "tail")
			if err != nil {
				return err
			}
			defer nc.Close()

			ctx, cancel := context.WithCancel(cmd.Context())
			defer cancel()
			type line struct{ text string }
			lines := make(chan line, 64)
			names := []string{"valid", "retry", "refused", "dlq"}
			if which != "all" {
				names = []string{which}
			}
			for _, name := range names {
				src := tailStreams[name]
				cfg := jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverNewPolicy}
				if fromStart {
					cfg.DeliverPolicy = jetstream.DeliverAllPolicy
				}
				filter := src.prefix + ".>"
				if agent != "" {
					filter = src.prefix + "." + agent
				}
				cfg.FilterSubjects = []string{filter}
				c, err := js.OrderedConsumer(ctx, src.stream, cfg)
				if err != nil {
					return exitCode{2, fmt.Errorf("following %s: %w", src.stream, err)}
				}
				cc, err := c.Consume(func(m jetstream.Msg) {
					outcome := m.Headers().Get(contract.HeaderOutcome)
					text := describe(outcome, m.Data())
					if asJSON {
						text = string(m.Data())
					}
					select {
					case lines <- line{text}:
					case <-ctx.Done():
					}
				})
				if err != nil {
					return exitCode{2, err}
				}
				defer cc.Stop()
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "following %s outcomes%s on %s (Ctrl-C to stop)\n", which, forAgent(agent), nc.ConnectedUrl())
			for seen := 0; count == 0 || seen < count; seen++ {
				select {
				case l := <-lines:
					fmt.Fprintln(cmd.OutOrStdout(), l.text)
				case <-ctx.Done():
					return nil
				}
			}
			return nil
		},
	}
	addNATSFlag(cmd)
	cmd.Flags().StringVar(&agent, "agent", "", "only this agent's outcomes")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print each outcome message as JSON")
	cmd.Flags().BoolVar(&fromStart, "from-start", false, "begin with the outcomes already stored, not just new ones")
	cmd.Flags().IntVar(&count, "count", 0, "stop after this many outcomes (0: follow until interrupted)")
	return cmd
}

func forAgent(agent string) string {
	if agent == "" {
		return ""
	}
	return " of agent " + agent
}
