package main

import (
	"context"
	"fmt"
	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/topology"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"

	"github.com/agentgate/agentgate/subjects"
)

// tailStreams maps tail's outcome argument to streams and subject prefixes.
var tailStreams = map[string]struct{ stream, prefix string }{
	"valid":   {topology.StreamValid, subjects.ValidPrefix},
	"retry":   {topology.StreamRetry, subjects.RetryPrefix},
	"refused": {topology.StreamRefused, subjects.RefusedPrefix},
	"dlq":     {topology.StreamDLQ, subjects.DLQPrefix},
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
full JSON with --json. With --from-start the outcomes already stored come first, in
the order they happened (a run's outcomes by attempt). Stops on Ctrl-C, or after
--count outcomes.`,
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
			if agent != "" && !contract.ValidAgent(agent) {
				return exitCode{2, fmt.Errorf("--agent %q: want a name of [A-Za-z0-9_-]+", agent)}
			}
			nc, js, err := connect(cmd, "tail")
			if err != nil {
				return err
			}
			defer nc.Close()

			ctx, cancel := context.WithCancel(cmd.Context())
			defer cancel()
			names := []string{"valid", "retry", "refused", "dlq"}
			if which != "all" {
				names = []string{which}
			}
			filter := func(prefix string) string {
				if agent != "" {
					return prefix + "." + agent
				}
				return prefix + ".>"
			}
			text := func(o storedOutcome) string {
				if asJSON {
					return string(o.data)
				}
				return describe(o.outcome, o.data)
			}

			// The outcomes already stored are read to the end of each
			// stream, put in order across the streams and printed; the live
			// consumers then start right after them.
			var stored []storedOutcome
			start := map[string]uint64{}
			for _, name := range names {
				src := tailStreams[name]
				s, err := js.Stream(ctx, src.stream)
				if err != nil {
					return exitCode{2, fmt.Errorf("following %s: %w", src.stream, err)}
				}
				last := s.CachedInfo().State.LastSeq
				start[name] = last + 1
				if !fromStart {
					continue
				}
				err = readStream(ctx, js, src.stream, filter(src.prefix), func(m jetstream.Msg) error {
					if o := newStoredOutcome(name, m); o.seq <= last {
						stored = append(stored, o)
					}
					return nil
				})
				if err != nil {
					return exitCode{1, err}
				}
			}
			orderOutcomes(stored)
			seen := 0
			for _, o := range stored {
				if count > 0 && seen == count {
					return nil
				}
				fmt.Fprintln(cmd.OutOrStdout(), text(o))
				seen++
			}

			lines := make(chan string, 64)
			for _, name := range names {
				src := tailStreams[name]
				cfg := jetstream.OrderedConsumerConfig{
					DeliverPolicy:  jetstream.DeliverByStartSequencePolicy,
					OptStartSeq:    start[name],
					FilterSubjects: []string{filter(src.prefix)},
				}
				c, err := js.OrderedConsumer(ctx, src.stream, cfg)
				if err != nil {
					return exitCode{2, fmt.Errorf("following %s: %w", src.stream, err)}
				}
				cc, err := c.Consume(func(m jetstream.Msg) {
					select {
					case lines <- text(newStoredOutcome(name, m)):
					case <-ctx.Done():
					}
				})
				if err != nil {
					return exitCode{2, err}
				}
				defer cc.Stop()
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "following %s outcomes%s on %s (Ctrl-C to stop)\n", which, forAgent(agent), nc.ConnectedUrl())
			for ; count == 0 || seen < count; seen++ {
				select {
				case l := <-lines:
					fmt.Fprintln(cmd.OutOrStdout(), l)
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
