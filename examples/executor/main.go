// Command executor runs one agentgate run end to end with a model served by
// any OpenAI-compatible chat-completions API (OpenAI, Ollama, vLLM,
// llama.cpp, LM Studio, ...): it fetches the agent's enriched system prompt
// from the gateway, asks the model, submits the answer, and on a retry
// request sends the gateway's retry prompt back to the model in the same
// conversation, until the output is valid, refused or dead-lettered.
//
// The valid result (result_data, or result_text for a free-text agent) is
// printed on stdout; each outcome is reported on stderr. Exit status: 0
// valid, 1 error, 2 usage, 3 refused, 4 dead letter (still invalid after
// the last retry, or not processable).
//
//	OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=llama3.1 \
//	  go run ./examples/executor -agent pr-reviewer -input-file change.diff
//
// Every flag falls back to an environment variable: OPENAI_BASE_URL,
// OPENAI_MODEL, OPENAI_API_KEY, AGENTGATE_NATS_URL, AGENTGATE_GATEWAY_URL,
// AGENTGATE_AGENT, AGENTGATE_RUN_ID. AGENTGATE_API_TOKEN is the bearer token
// for a gateway started with --api-token-file (a read token is enough).
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/executor"
	"github.com/agentgate/agentgate/executor/openai"
)

// Exit statuses.
const (
	exitValid   = 0
	exitError   = 1
	exitUsage   = 2
	exitRefused = 3
	exitDLQ     = 4
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the program, with its surroundings passed in so that tests can
// drive it.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	fs := flag.NewFlagSet("executor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		agent      = fs.String("agent", env("AGENTGATE_AGENT", "pr-reviewer"), "the agent to run ($AGENTGATE_AGENT)")
		runID      = fs.String("run", env("AGENTGATE_RUN_ID", ""), "the run id ($AGENTGATE_RUN_ID; default a new one)")
		input      = fs.String("input", "", "the task, as text: the conversation's first user message")
		inputFile  = fs.String("input-file", "", "read the task from this file (- for stdin)")
		session    = fs.String("session", "", "Session-Id passed through to the outcomes")
		natsURL    = fs.String("nats-url", env("AGENTGATE_NATS_URL", nats.DefaultURL), "NATS server ($AGENTGATE_NATS_URL)")
		gatewayURL = fs.String("gateway-url", env("AGENTGATE_GATEWAY_URL", executor.DefaultGatewayURL), "the gateway's HTTP API ($AGENTGATE_GATEWAY_URL)")
		baseURL    = fs.String("base-url", env("OPENAI_BASE_URL", openai.DefaultBaseURL), "chat-completions API base URL ($OPENAI_BASE_URL)")
		model      = fs.String("model", env("OPENAI_MODEL", ""), "model name ($OPENAI_MODEL; required)")
		apiKey     = fs.String("api-key", "", "API key (default $OPENAI_API_KEY, which is better: flags show in ps)")
		timeout    = fs.Duration("timeout", 10*time.Minute, "bounds the whole run")
	)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: executor -model NAME [-agent NAME] [-input TEXT | -input-file FILE] [flags]\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitValid
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "executor: unexpected arguments %q\n", fs.Args())
		return exitUsage
	}
	if *input != "" && *inputFile != "" {
		fmt.Fprintln(stderr, "executor: give -input or -input-file, not both")
		return exitUsage
	}
	if *apiKey == "" {
		*apiKey = getenv("OPENAI_API_KEY")
	}
	llm, err := openai.New(openai.Config{BaseURL: *baseURL, Model: *model, APIKey: *apiKey})
	if err != nil {
		complain(stderr, fmt.Errorf("%w (set -model or OPENAI_MODEL)", err))
		return exitUsage
	}
	task, err := readInput(*input, *inputFile, stdin)
	if err != nil {
		complain(stderr, err)
		return exitUsage
	}
	if *runID == "" {
		*runID = newRunID()
	}

	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	nc, err := nats.Connect(*natsURL, nats.Name("agentgate-executor"))
	if err != nil {
		complain(stderr, fmt.Errorf("connecting to NATS at %s: %w", *natsURL, err))
		return exitError
	}
	defer nc.Close()
	client, err := executor.New(executor.Config{Conn: nc, GatewayURL: *gatewayURL, APIToken: getenv("AGENTGATE_API_TOKEN")}, nil)
	if err != nil {
		complain(stderr, err)
		return exitUsage
	}

	opts := []executor.RunOption{executor.WithOutcomeHook(func(o *executor.Outcome) { report(stderr, o) })}
	if task != "" {
		opts = append(opts, executor.WithInput(task))
	}
	if *session != "" {
		opts = append(opts, executor.WithSessionID(*session))
	}
	fmt.Fprintf(stderr, "run %s: agent %s, model %s at %s\n", *runID, *agent, *model, *baseURL)
	res, err := client.Run(ctx, *agent, *runID, llm, opts...)
	if err != nil {
		return failure(stderr, err)
	}
	if res.Data != nil {
		var out bytes.Buffer
		if err := json.Indent(&out, res.Data, "", "  "); err != nil {
			out.Reset()
			out.Write(res.Data)
		}
		fmt.Fprintf(stdout, "%s\n", out.Bytes())
	} else {
		fmt.Fprintln(stdout, res.Text)
	}
	return exitValid
}

// report writes one line per outcome.
func report(w io.Writer, o *executor.Outcome) {
	switch o.Kind {
	case contract.OutcomeValid:
		fmt.Fprintf(w, "attempt %d: valid (%d normalization(s))\n", o.Attempt, len(o.Result.Normalizations))
	case contract.OutcomeRetry:
		vs := o.Retry.Error.Violations
		fmt.Fprintf(w, "attempt %d: retry requested, %d violation(s)", o.Attempt, len(vs))
		if len(vs) > 0 {
			fmt.Fprintf(w, ", first %s: %s", vs[0].Path, vs[0].Message)
		}
		fmt.Fprintln(w)
	case contract.OutcomeRefused:
		fmt.Fprintf(w, "attempt %d: refused\n", o.Attempt)
	case contract.OutcomeDLQ:
		fmt.Fprintf(w, "attempt %d: dead letter %s\n", o.Attempt, o.Failed.Error.Type)
	}
}

// failure reports why the run did not end valid and picks the exit status.
func failure(w io.Writer, err error) int {
	var (
		refused *executor.Refused
		invalid *executor.ValidationFailed
		dlq     *executor.DeadLettered
	)
	switch {
	case errors.As(err, &refused):
		fmt.Fprintf(w, "refused: %s\n", refused.Text)
		return exitRefused
	case errors.As(err, &invalid):
		fmt.Fprintf(w, "still invalid after attempt %d:\n", invalid.DeadLetter.Attempt)
		for _, v := range invalid.Violations {
			fmt.Fprintf(w, "  %s: %s\n", v.Path, v.Message)
		}
		return exitDLQ
	case errors.As(err, &dlq):
		fmt.Fprintf(w, "dead letter %s: %s\n", dlq.Type, dlq.Message)
		return exitDLQ
	}
	complain(w, err)
	return exitError
}

// complain writes err on one line under the program's name, once: the
// executor package's errors already start with "executor: ".
func complain(w io.Writer, err error) {
	msg := err.Error()
	if !strings.HasPrefix(msg, "executor: ") {
		msg = "executor: " + msg
	}
	fmt.Fprintln(w, msg)
}

func readInput(text, file string, stdin io.Reader) (string, error) {
	var (
		b   []byte
		err error
	)
	switch file {
	case "":
		return text, nil
	case "-":
		b, err = io.ReadAll(stdin)
	default:
		b, err = os.ReadFile(file)
	}
	if err != nil {
		return "", fmt.Errorf("reading the input: %w", err)
	}
	return string(b), nil
}

// newRunID is a fresh run id: the time, then randomness against clashes.
func newRunID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "run-" + time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b)
}
