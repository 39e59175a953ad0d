package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/runstate"
	"github.com/agentgate/agentgate/subjects"
	"github.com/agentgate/agentgate/topology"
)

const defaultNATSURL = "nats://127.0.0.1:4222"

func newPublishCmd() *cobra.Command {
	var (
		agent, runID, sessionID string
		attempt                 int
		refusal                 bool
		wait                    time.Duration
	)
	cmd := &cobra.Command{
		Use:   "publish --agent NAME --run ID [FILE|-]",
		Short: "Publish a raw agent output and print its outcome",
		Long: `Publish a raw agent output to agent.output.raw.<agent> on a running gateway's
NATS, then wait (at most --wait) for its outcome and print the outcome message.
Reads FILE, or standard input when FILE is - or absent.

A run that already has its final outcome (for the --attempt given, or for any
attempt when none is) is not published again: its recorded outcome is printed at
once.

Exit status: 0 when the outcome is valid, 1 for any other outcome or when none
came in time, 2 on a usage or connection error.`,
		Example: `  agentgate publish --agent pr-reviewer --run run-1 review.txt
  echo 'I cannot help with that.' | agentgate publish --agent pr-reviewer --run run-2 --refusal`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !contract.ValidAgent(agent) {
				return exitCode{2, fmt.Errorf("--agent %q: want a name of [A-Za-z0-9_-]+", agent)}
			}
			payload, err := readInput(cmd, args)
			if err != nil {
				return exitCode{2, err}
			}
			nc, js, err := connect(cmd, "publish")
			if err != nil {
				return err
			}
			defer nc.Close()

			// Subscribe before publishing so the outcome cannot slip by.
			outcomes := make(chan *nats.Msg, 16)
			for _, s := range []string{subjects.Valid(agent), subjects.Retry(agent), subjects.Refused(agent), subjects.DLQ(agent), subjects.DLQ(subjects.UnknownAgent)} {
				sub, err := nc.ChanSubscribe(s, outcomes)
				if err != nil {
					return exitCode{2, err}
				}
				defer func() { _ = sub.Unsubscribe() }()
			}

			msg := nats.NewMsg(subjects.Raw(agent))
			msg.Data = payload
			msg.Header.Set(contract.HeaderRunID, runID)
			if attempt > 0 {
				msg.Header.Set(contract.HeaderAttempt, strconv.Itoa(attempt))
			}
			if sessionID != "" {
				msg.Header.Set(contract.HeaderSessionID, sessionID)
			}
			if refusal {
				msg.Header.Set(contract.HeaderOutputKind, contract.OutputKindRefusal)
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), wait)
			defer cancel()
			if st := finishedRun(ctx, js, runID, attempt); st != nil {
				// Nothing new would come: the gateway answers an attempt once.
				fmt.Fprintf(cmd.ErrOrStderr(), "run %q is already finished (%s at attempt %d); nothing published. Its recorded outcome:\n", runID, st.Status, st.Attempts)
				return printRecorded(cmd, st)
			}
			ack, err := js.PublishMsg(ctx, msg)
			if err != nil {
				return exitCode{2, fmt.Errorf("publishing to %s: %w", msg.Subject, err)}
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "published %s run=%s (stream %s seq %d), waiting for the outcome...\n", msg.Subject, runID, ack.Stream, ack.Sequence)

			for {
				select {
				case m := <-outcomes:
					if m.Header.Get(contract.HeaderRunID) != runID || (attempt > 0 && m.Header.Get(contract.HeaderAttempt) != strconv.Itoa(attempt)) {
						continue
					}
					fmt.Fprintln(cmd.OutOrStdout(), string(m.Data))
					if m.Header.Get(contract.HeaderOutcome) == string(contract.OutcomeValid) {
						return nil
					}
					return exitCode{code: 1}
				case <-ctx.Done():
					return recordedOutcome(cmd, js, runID, wait)
				}
			}
		},
	}
	f := cmd.Flags()
	addNATSFlag(cmd)
	f.StringVar(&agent, "agent", "", "agent name (required)")
	f.StringVar(&runID, "run", "", "run id (required)")
	f.StringVar(&sessionID, "session", "", "session id, passed through")
	f.IntVar(&attempt, "attempt", 0, "attempt number (default: the run's next expected attempt)")
	f.BoolVar(&refusal, "refusal", false, "mark the payload as the model's refusal (Output-Kind: refusal)")
	f.DurationVar(&wait, "wait", 10*time.Second, "how long to wait for the outcome")
	_ = cmd.MarkFlagRequired("agent")
	_ = cmd.MarkFlagRequired("run")
	return cmd
}

// finishedRun is the run's state when the run has already reached its final
// outcome for the attempt asked for (0: the next one), so that publishing
// would bring no new outcome; nil otherwise, or when the state cannot be
// read (the gateway then answers as usual).
func finishedRun(ctx context.Context, js jetstream.JetStream, runID string, attempt int) *contract.RunState {
	kv, err := js.KeyValue(ctx, topology.RunsBucket)
	if err != nil {
		return nil
	}
	st, _, err := runstate.New(kv).Get(ctx, runID)
	if err != nil || st == nil || !st.Status.Finished() || attempt > st.Attempts {
		return nil
	}
	return st
}

// recordedOutcome prints the run's recorded outcome when no new one came:
// the attempt may already have had one.
func recordedOutcome(cmd *cobra.Command, js jetstream.JetStream, runID string, wait time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	kv, err := js.KeyValue(ctx, topology.RunsBucket)
	if err == nil {
		var st *contract.RunState
		if st, _, err = runstate.New(kv).Get(ctx, runID); err == nil && st != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "no new outcome within %s; the run's recorded outcome (attempt %d, %s):\n", wait, st.Attempts, st.Status)
			return printRecorded(cmd, st)
		}
	}
	return exitCode{1, errors.Join(fmt.Errorf("no outcome for run %q within %s (is agentgate serve running?)", runID, wait), err)}
}

// printRecorded prints a run's recorded outcome and exits as publish does
// for that outcome.
func printRecorded(cmd *cobra.Command, st *contract.RunState) error {
	fmt.Fprintln(cmd.OutOrStdout(), string(st.Outcome))
	if st.Status == contract.RunCompleted {
		return nil
	}
	return exitCode{code: 1}
}
