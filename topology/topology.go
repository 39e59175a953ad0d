package topology

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/subjects"
)

// Stream names. One stream per subject family keeps retention and
// de-duplication windows separate for inputs and each kind of outcome.
const (
	StreamRaw     = "AGENT_OUTPUT_RAW"
	StreamPartial = "AGENT_OUTPUT_PARTIAL"
	StreamValid   = "AGENT_OUTPUT_VALID"
	StreamRetry   = "AGENT_RETRY_REQUESTED"
	StreamRefused = "AGENT_OUTPUT_REFUSED"
	StreamDLQ     = "AGENT_OUTPUT_DLQ"
)

// RunsBucket is the key-value bucket that holds each run's state.
const RunsBucket = "agentgate_runs"

// ChunksBucket is the key-value bucket that holds the chunks of streamed
// outputs received so far, so that a restart loses none (section 8).
const ChunksBucket = "agentgate_chunks"

// SchemasBucket holds the registry's schemas: one entry per schema name
// with all its versions (registry package).
const SchemasBucket = "agentgate_schemas"

// BlueprintsBucket holds the registry's blueprints: one entry per agent.
const BlueprintsBucket = "agentgate_blueprints"

// RegistryHistory is how many revisions of each registry entry the buckets
// keep (JetStream's maximum).
const RegistryHistory = 64

// PartialConsumer is the durable consumer on the partial stream that every
// gateway replica binds to.
const PartialConsumer = "agentgate-partial"

// GatewayConsumer is the durable consumer on the raw stream that every
// gateway replica binds to, so that each raw output is processed by one of
// them and survives restarts.
const GatewayConsumer = "agentgate"

// StreamsConfig tunes the streams the gateway creates.
type StreamsConfig struct {
	// Replicas is the replication factor of every stream and the bucket
	// (default 1; 3 on a three-node cluster).
	Replicas int
	// Duplicates is the de-duplication window (default 2 minutes, or MaxAge
	// when that is shorter).
	Duplicates time.Duration
	// MaxAge bounds how long messages are kept (default 0: kept until an
	// operator removes them).
	MaxAge time.Duration
}

func (c *StreamsConfig) setDefaults() {
	if c.Replicas == 0 {
		c.Replicas = 1
	}
	if c.Duplicates == 0 {
		c.Duplicates = 2 * time.Minute
	}
	if c.MaxAge > 0 && c.Duplicates > c.MaxAge {
		// JetStream refuses a de-duplication window longer than the
		// messages are kept.
		c.Duplicates = c.MaxAge
	}
}

// Validate reports every problem with the configuration.
func (c StreamsConfig) Validate() error {
	var errs []error
	if c.Replicas < 1 || c.Replicas > 5 {
		errs = append(errs, fmt.Errorf("%w: replicas %d, want 1 to 5", ErrBadConfig, c.Replicas))
	}
	if c.Duplicates < 0 || c.MaxAge < 0 {
		errs = append(errs, fmt.Errorf("%w: negative duration", ErrBadConfig))
	}
	return errors.Join(errs...)
}

// Streams returns the configuration of every stream of the contract. The raw
// stream takes agent.output.raw.> (not just .*) so that a raw output on a
// malformed subject is still captured and dead-lettered rather than lost.
func Streams(cfg StreamsConfig) []jetstream.StreamConfig {
	cfg.setDefaults()
	mk := func(name, desc string, subjects ...string) jetstream.StreamConfig {
		return jetstream.StreamConfig{
			Name:        name,
			Description: desc,
			Subjects:    subjects,
			Storage:     jetstream.FileStorage,
			Retention:   jetstream.LimitsPolicy,
			Replicas:    cfg.Replicas,
			Duplicates:  cfg.Duplicates,
			MaxAge:      cfg.MaxAge,
		}
	}
	return []jetstream.StreamConfig{
		mk(StreamRaw, "agentgate: raw agent outputs", subjects.RawPrefix, subjects.RawPrefix+".>"),
		mk(StreamPartial, "agentgate: streamed output chunks", subjects.PartialPrefix+".>"),
		mk(StreamValid, "agentgate: valid results", subjects.ValidPrefix+".>"),
		mk(StreamRetry, "agentgate: retry requests", subjects.RetryPrefix+".>"),
		mk(StreamRefused, "agentgate: refusals", subjects.RefusedPrefix+".>"),
		mk(StreamDLQ, "agentgate: dead letters", subjects.DLQPrefix+".>"),
	}
}

// OutcomeStreams names the streams that hold outcomes, for readers such as
// tail.
var OutcomeStreams = []string{StreamValid, StreamRetry, StreamRefused, StreamDLQ}

// OutcomeStream is the stream that holds outcomes of kind o.
func OutcomeStream(o contract.Outcome) string {
	switch o {
	case contract.OutcomeValid:
		return StreamValid
	case contract.OutcomeRetry:
		return StreamRetry
	case contract.OutcomeRefused:
		return StreamRefused
	}
	return StreamDLQ
}

// RunsBucketConfig is the run-state bucket's configuration.
func RunsBucketConfig(cfg StreamsConfig) jetstream.KeyValueConfig {
	cfg.setDefaults()
	return jetstream.KeyValueConfig{
		Bucket:      RunsBucket,
		Description: "agentgate: run state",
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
		TTL:         cfg.MaxAge,
	}
}

// ChunksBucketConfig is the chunk bucket's configuration.
func ChunksBucketConfig(cfg StreamsConfig) jetstream.KeyValueConfig {
	cfg.setDefaults()
	return jetstream.KeyValueConfig{
		Bucket:      ChunksBucket,
		Description: "agentgate: chunks of streamed outputs",
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
		TTL:         cfg.MaxAge,
	}
}

// RegistryBucketConfigs are the registry buckets' configurations: history
// kept, no expiry (a registry is never aged out), replicated like the
// streams.
func RegistryBucketConfigs(cfg StreamsConfig) []jetstream.KeyValueConfig {
	cfg.setDefaults()
	mk := func(name, desc string) jetstream.KeyValueConfig {
		return jetstream.KeyValueConfig{
			Bucket: name, Description: desc, History: RegistryHistory,
			Storage: jetstream.FileStorage, Replicas: cfg.Replicas,
		}
	}
	return []jetstream.KeyValueConfig{
		mk(SchemasBucket, "agentgate: registry schemas, every version"),
		mk(BlueprintsBucket, "agentgate: registry blueprints"),
	}
}

// PartialConsumerConfig is the durable consumer of streamed chunks.
func PartialConsumerConfig(ackWait time.Duration, maxAckPending int) jetstream.ConsumerConfig {
	c := GatewayConsumerConfig(ackWait, maxAckPending)
	c.Durable, c.Description = PartialConsumer, "agentgate gateway replicas: streamed chunks"
	return c
}

// GatewayConsumerConfig is the durable consumer the gateway processes raw
// outputs from. AckWait bounds how long an unacknowledged message waits
// before redelivery; MaxAckPending bounds the messages in flight.
func GatewayConsumerConfig(ackWait time.Duration, maxAckPending int) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       GatewayConsumer,
		Description:   "agentgate gateway replicas",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       ackWait,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		MaxAckPending: maxAckPending,
	}
}

// Ensure creates or updates every stream, the run-state bucket (returned),
// the chunk bucket and the registry buckets. It is safe to call from several replicas at once.
func Ensure(ctx context.Context, js jetstream.JetStream, cfg StreamsConfig) (jetstream.KeyValue, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	for _, sc := range Streams(cfg) {
		if _, err := js.CreateOrUpdateStream(ctx, sc); err != nil {
			return nil, fmt.Errorf("creating stream %s: %w", sc.Name, err)
		}
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, RunsBucketConfig(cfg))
	if err != nil {
		return nil, fmt.Errorf("creating bucket %s: %w", RunsBucket, err)
	}
	if _, err := js.CreateOrUpdateKeyValue(ctx, ChunksBucketConfig(cfg)); err != nil {
		return nil, fmt.Errorf("creating bucket %s: %w", ChunksBucket, err)
	}
	for _, rc := range RegistryBucketConfigs(cfg) {
		if _, err := js.CreateOrUpdateKeyValue(ctx, rc); err != nil {
			return nil, fmt.Errorf("creating bucket %s: %w", rc.Bucket, err)
		}
	}
	return kv, nil
}
