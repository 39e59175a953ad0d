package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentgate/agentgate/contract"
	bundled "github.com/agentgate/agentgate/examples"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/schemas"
)

func newValidateCmd() *cobra.Command {
	var (
		configDir, agent, schemaID, previous string
		attempt                              int
	)
	cmd := &cobra.Command{
		Use:   "validate --agent NAME [FILE|-]",
		Short: "Check one agent output offline, with no NATS",
		Long: `Run one raw agent output through the same extraction, normalization and
validation as the gateway, with no NATS at all, and print the outcome message the
gateway would publish (a result, a retry request, a refusal or a dead letter).

Reads FILE, or standard input when FILE is - or absent. An answer to a partial
re-ask (a blueprint with "retry": "partial") is merged into the document its
retry request kept, as serve does: give that retry request with --previous (the
outcome validate printed for the attempt before, or the message the gateway
published) and --attempt its attempt plus one.
Exit status: 0 when the output is valid, 1 when it is not, 2 on a usage or
configuration error.`,
		Example: `  agentgate validate --agent pr-reviewer review.txt
  echo '{"summary":"ok","approval":"approve","comments":[]}' | agentgate validate --agent pr-reviewer
  agentgate validate --agent triage first.txt > retry.json
  agentgate validate --agent triage --attempt 2 --previous retry.json patch.txt`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := bundledRegistry()
			if configDir != "" {
				if reg, err = schemas.Load(configDir); err != nil {
					err = fmt.Errorf("loading configuration %s: %w", configDir, err)
				}
			}
			if err != nil {
				return exitCode{2, err}
			}
			payload, err := readInput(cmd, args)
			if err != nil {
				return exitCode{2, err}
			}
			gate, err := handlers.NewGate(handlers.GateConfig{Registry: reg})
			if err != nil {
				return exitCode{2, err}
			}
			headers := map[string][]string{
				contract.HeaderRunID:   {"offline"},
				contract.HeaderAttempt: {fmt.Sprint(attempt)},
			}
			if schemaID != "" {
				headers[contract.HeaderSchemaID] = []string{schemaID}
			}
			st, err := previousRetry(previous, agent, attempt)
			if err != nil {
				return exitCode{2, err}
			}
			d := gate.Decide(handlers.Envelope{Agent: agent, Headers: headers, Payload: payload}, st)
			fmt.Fprintln(cmd.OutOrStdout(), string(d.Payload))
			switch {
			case d.Outcome == contract.OutcomeValid:
				return nil
			case d.ErrorType == contract.ErrUnknownAgent || d.ErrorType == contract.ErrUnknownSchema || d.ErrorType == contract.ErrInvalidEnvelope:
				return exitCode{2, fmt.Errorf("%s", d.ErrorType)}
			default:
				return exitCode{code: 1}
			}
		},
	}
	f := cmd.Flags()
	f.StringVar(&configDir, "config", "", "configuration directory holding schemas/ and agents/ (default: the bundled examples)")
	f.StringVar(&agent, "agent", "", "agent name (required)")
	f.StringVar(&schemaID, "schema-id", "", "schema $id, for an agent whose blueprint has no output_schema")
	f.IntVar(&attempt, "attempt", 1, "attempt number; the last allowed attempt turns an invalid output into a dead letter")
	f.StringVar(&previous, "previous", "", "the retry request this attempt answers (a JSON file): the run's state as serve would hold it")
	_ = cmd.MarkFlagRequired("agent")
	return cmd
}

// previousRetry is the run state serve would hold when attempt answers
// the retry request in file: retry requested after attempt-1 attempts,
// that request its recorded outcome. Nil without a file.
func previousRetry(file, agent string, attempt int) (*contract.RunState, error) {
	if file == "" {
		return nil, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading --previous: %w", err)
	}
	var ev contract.RetryEvent
	if err := json.Unmarshal(b, &ev); err != nil || ev.EventType != contract.EventRetryRequested {
		return nil, fmt.Errorf("--previous %s: want a retry request (event_type %q)", file, contract.EventRetryRequested)
	}
	if attempt != ev.Attempt+1 {
		return nil, fmt.Errorf("--previous %s answers attempt %d: give --attempt %d", file, ev.Attempt, ev.Attempt+1)
	}
	return &contract.RunState{RunID: "offline", AgentID: agent, Status: contract.RunRetryRequested,
		Attempts: ev.Attempt, Outcome: b}, nil
}

// bundledRegistry loads the example configuration built into the binary.
func bundledRegistry() (*schemas.Registry, error) {
	reg, err := schemas.LoadFS(bundled.Config)
	if err != nil {
		return nil, fmt.Errorf("loading the bundled examples: %w", err)
	}
	return reg, nil
}

// readInput reads the file named by args[0], or standard input.
func readInput(cmd *cobra.Command, args []string) ([]byte, error) {
	if len(args) == 0 || args[0] == "-" {
		return io.ReadAll(io.LimitReader(cmd.InOrStdin(), 64<<20))
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		return nil, fmt.Errorf("reading input: %w", err)
	}
	return b, nil
}
