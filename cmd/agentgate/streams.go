package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/internal/natsurl"
)

// connect opens the NATS connection of a CLI command from its --nats-url.
func connect(cmd *cobra.Command, name string) (*nats.Conn, jetstream.JetStream, error) {
	url, _ := cmd.Flags().GetString("nats-url")
	nc, err := nats.Connect(url, nats.Name("agentgate-"+name), nats.Timeout(5*time.Second))
	if err != nil {
		return nil, nil, exitCode{2, fmt.Errorf("connecting to %s (is agentgate serve running?): %w", natsurl.Redacted(url), err)}
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, exitCode{2, err}
	}
	return nc, js, nil
}

func addNATSFlag(cmd *cobra.Command) {
	cmd.Flags().String("nats-url", defaultNATSURL, "URL of the NATS server the gateway uses")
}

// readStream calls fn for every message of stream on a subject matching
// filter ("" for all), oldest first, up to the last message the stream held
// when it was called: it never waits for new ones.
func readStream(ctx context.Context, js jetstream.JetStream, stream, filter string, fn func(jetstream.Msg) error) error {
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return fmt.Errorf("stream %s: %w", stream, err)
	}
	last := s.CachedInfo().State.LastSeq
	if s.CachedInfo().State.Msgs == 0 {
		return nil
	}
	cfg := jetstream.OrderedConsumerConfig{}
	if filter != "" {
		cfg.FilterSubjects = []string{filter}
	}
	c, err := s.OrderedConsumer(ctx, cfg)
	if err != nil {
		return fmt.Errorf("reading %s: %w", stream, err)
	}
	for {
		msg, err := c.Next(jetstream.FetchMaxWait(2 * time.Second))
		if errors.Is(err, jetstream.ErrNoMessages) || errors.Is(err, nats.ErrTimeout) {
			return nil // nothing more matches the filter
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", stream, err)
		}
		meta, err := msg.Metadata()
		if err != nil {
			return err
		}
		if err := fn(msg); err != nil {
			return err
		}
		if meta.Sequence.Stream >= last || meta.NumPending == 0 {
			return nil
		}
	}
}

// event is any outcome message, decoded far enough to describe it.
type event struct {
	EventType      string                   `json:"event_type"`
	RunID          string                   `json:"run_id"`
	AgentID        string                   `json:"agent_id"`
	Attempt        int                      `json:"attempt"`
	Refusal        string                   `json:"refusal"`
	Normalizations []contract.Normalization `json:"normalizations"`
	Error          json.RawMessage          `json:"error"`
	Raw            *contract.RawMessage     `json:"raw"`
	Timestamp      time.Time                `json:"timestamp"`
}

// describe is an outcome as one readable line: time, outcome, agent, run,
// attempt and what matters most about it.
func describe(outcome string, data []byte) string {
	var ev event
	if err := json.Unmarshal(data, &ev); err != nil {
		return fmt.Sprintf("%-7s (not JSON: %v)", outcome, err)
	}
	detail := ""
	switch ev.EventType {
	case contract.EventResult:
		detail = fmt.Sprintf("%d normalization(s)", len(ev.Normalizations))
	case contract.EventRefusal:
		detail = quoteShort(ev.Refusal)
	case contract.EventRetryRequested:
		var verr contract.ValidationError
		if json.Unmarshal(ev.Error, &verr) == nil && len(verr.Violations) > 0 {
			detail = handlers.ViolationLine(verr.Violations[0])
			if n := len(verr.Violations) - 1; n > 0 {
				detail += fmt.Sprintf(" (+%d more)", n)
			}
		}
	case contract.EventFailed:
		var ferr contract.FailedError
		if json.Unmarshal(ev.Error, &ferr) == nil {
			detail = string(ferr.Type) + ": " + ferr.Message
			if len(ferr.ValidationErrors) > 0 {
				detail += "; " + ferr.ValidationErrors[0]
			}
		}
	}
	return fmt.Sprintf("%s  %-7s  %-20s  %-24s  #%d  %s",
		ev.Timestamp.Format(time.RFC3339), outcome, ev.AgentID, ev.RunID, ev.Attempt, detail)
}

func quoteShort(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return fmt.Sprintf("%q", s)
}
