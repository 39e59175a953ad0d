package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/handlers"
)

func newServeCmd() *cobra.Command {
	var cfg gateway.Config
	var gcPercent int
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the gateway",
		Long: `Run the gateway. With no flags it starts an embedded NATS server with JetStream
(127.0.0.1:4222, files under ./data) and serves the bundled example configuration;
--nats-url connects to an existing NATS deployment instead. The HTTP API
(/healthz, /v1/runs, /v1/agents, /v1/schemas, /metrics) listens on --http.
SIGINT or SIGTERM stops taking messages, finishes the ones in flight and exits.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logger, err := newLogger(cmd)
			if err != nil {
				return err
			}
			cfg.Logger = logger
			if gateway.SetGCPercent(gcPercent, cmd.Flags().Changed("gc-percent")) {
				logger.Debug("garbage collector target set", "percent", gcPercent)
			}
			if cfg.ConfigDir == "" {
				if cfg.Registry, err = bundledRegistry(); err != nil {
					return exitCode{2, err}
				}
				logger.Info("serving the bundled example configuration (--config DIR to serve yours)")
			}
			g, err := gateway.New(cmd.Context(), cfg)
			if err != nil {
				return exitCode{2, err}
			}
			if err := g.Run(cmd.Context()); err != nil {
				return exitCode{1, err}
			}
			logger.Info("stopped")
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.ConfigDir, "config", "", "configuration directory holding schemas/*.schema.json and agents/*.json (default: the bundled examples)")
	f.StringVar(&cfg.NATSURL, "nats-url", "", "URL of an existing NATS deployment; no embedded server is started")
	f.StringVar(&cfg.NATSListen, "nats-listen", "127.0.0.1:4222", "HOST:PORT of the embedded NATS server")
	f.StringVar(&cfg.DataDir, "data-dir", "data", "directory of the embedded server's JetStream files")
	f.StringVar(&cfg.HTTPAddr, "http", "127.0.0.1:8080", "HOST:PORT of the HTTP API")
	f.IntVar(&cfg.MaxPayload, "max-payload", 1<<20, "largest raw output accepted, in bytes")
	f.IntVar(&gcPercent, "gc-percent", gateway.DefaultGCPercent, "garbage collector target (as GOGC); a GOGC environment variable wins over the default")
	f.IntVar(&cfg.Workers, "workers", 0, "raw outputs processed at once (default 32 × the number of CPUs, at most 128)")
	f.DurationVar(&cfg.StreamIdle, "stream-idle", handlers.DefaultStreamIdle, "how long a streamed output may go without a chunk before it is dead-lettered as stream_incomplete")
	f.IntVar(&cfg.Streams.Replicas, "stream-replicas", 1, "replicas of every stream and of the run-state bucket (3 on a three-node cluster)")
	f.DurationVar(&cfg.Streams.MaxAge, "stream-max-age", 0, "how long outputs, outcomes and run state are kept (0: until removed)")
	addLimitFlags(cmd, &cfg)
	return cmd
}

// addLimitFlags adds the flags of the limits table (contract section 10).
func addLimitFlags(cmd *cobra.Command, cfg *gateway.Config) {
	f, l := cmd.Flags(), &cfg.Limits
	f.DurationVar(&l.DecisionTimeout, "decision-timeout", handlers.DefaultDecisionTimeout, "longest decision on one output; past it a processing_limit dead letter")
	f.DurationVar(&l.StoreTimeout, "store-timeout", handlers.DefaultStoreTimeout, "deadline of each run-state call, from its start")
	f.DurationVar(&l.PublishTimeout, "publish-timeout", handlers.DefaultPublishTimeout, "deadline of each outcome publish, from its start")
	f.IntVar(&l.MaxInFlightBytes, "max-in-flight-bytes", handlers.DefaultMaxInFlightBytes, "payload bytes decided at once")
	f.IntVar(&l.MaxDeliver, "max-deliver", handlers.DefaultMaxDeliver, "deliveries of a raw output before one that still fails is a processing_limit dead letter")
	f.IntVar(&l.MaxViolations, "max-violations", handlers.DefaultMaxViolations, "violations listed in one outcome; the rest are counted")
	f.DurationVar(&l.ShutdownTimeout, "shutdown-timeout", handlers.DefaultCloseTimeout, "bound on each stage of a graceful shutdown")
	f.DurationVar(&cfg.AckWait, "ack-wait", 30*time.Second, "how long a raw output may go without an ack or progress report before redelivery")
	f.DurationVar(&cfg.Streams.Duplicates, "dedupe-window", 2*time.Minute, "JetStream de-duplication window of the streams")
}
