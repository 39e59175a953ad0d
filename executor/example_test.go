package executor_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agentgate/agentgate/embedded"
	"github.com/agentgate/agentgate/executor"
	"github.com/agentgate/agentgate/gateway"
)

// An executor runs the pr-reviewer agent with a model that first drifts from
// the schema ("lgtm" is not an approval) and corrects itself when the
// gateway sends the retry prompt back in the same conversation.
func ExampleClient_Run() {
	natsURL, gatewayURL, stop := startAgentgate()
	defer stop()

	nc, err := nats.Connect(natsURL)
	if err != nil {
		log.Fatal(err)
	}
	defer nc.Close()
	client, err := executor.New(executor.Config{Conn: nc, GatewayURL: gatewayURL}, nil)
	if err != nil {
		log.Fatal(err)
	}

	// A model: any func from the conversation to an answer. This one is
	// scripted; see executor/openai for an OpenAI-compatible HTTP model.
	answers := []string{
		`{"summary": "Adds a bounded retry loop.", "approval": "lgtm", "comments": []}`,
		"```json\n{\"summary\": \"Adds a bounded retry loop.\", \"approval\": \"approve\", \"comments\": []}\n```",
	}
	model := executor.ModelFunc(func(_ context.Context, msgs []executor.Message) (string, error) {
		// msgs: the system prompt, the input, then answer/retry-prompt pairs.
		return answers[min((len(msgs)-2)/2, len(answers)-1)], nil
	})

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := client.Run(ctx, "pr-reviewer", "run-example-1", model,
		executor.WithInput("diff --git a/retry.go b/retry.go ..."),
		executor.WithOutcomeHook(func(o *executor.Outcome) {
			if o.Retry != nil {
				v := o.Retry.Error.Violations[0]
				fmt.Printf("attempt %d: retry requested: %s %s\n", o.Attempt, v.Path, v.Keyword)
			}
		}))
	if err != nil {
		log.Fatal(err)
	}
	var review struct {
		Approval string `json:"approval"`
	}
	if err := res.Decode(&review); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("attempt %d: valid, approval %s, %d normalization(s): %s\n",
		res.Attempt, review.Approval, len(res.Normalizations), res.Normalizations[0].Op)
	// Output:
	// attempt 1: retry requested: $.approval enum
	// attempt 2: valid, approval approve, 1 normalization(s): extract
}

// startAgentgate starts an embedded NATS server and a gateway with the
// bundled examples, as `make run` does, on free ports.
func startAgentgate() (natsURL, gatewayURL string, stop func()) {
	dir, err := os.MkdirTemp("", "agentgate-example")
	if err != nil {
		log.Fatal(err)
	}
	srv, err := embedded.Start(embedded.Config{Listen: "127.0.0.1:0", StoreDir: dir})
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	g, err := gateway.New(ctx, gateway.Config{
		ConfigDir: "../examples", NATSURL: srv.ClientURL(), HTTPAddr: "127.0.0.1:0",
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		log.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- g.Run(ctx) }()
	gatewayURL = "http://" + g.HTTPAddr()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(gatewayURL + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			log.Fatal("gateway not healthy after 10s")
		}
	}
	return srv.ClientURL(), gatewayURL, func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
		}
		srv.Shutdown()
		srv.WaitForShutdown()
		_ = os.RemoveAll(dir)
	}
}
