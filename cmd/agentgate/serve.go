package main

import (
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentgate/agentgate/agentproto"
	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/natsconn"
	"github.com/agentgate/agentgate/router"
)

func newServeCmd() *cobra.Command {
	var cfg gateway.Config
	var gcPercent int
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the gateway",
		Long: `Run the gateway. With no flags it starts an embedded NATS server with JetStream
(127.0.0.1:4222, files under ./data) and serves the bundled example configuration;
--server (or NATS_URL, or --context) connects to an existing NATS deployment
instead, with the credentials and TLS options the nats CLI takes. Without --auth
the embedded server has no authentication and listens on loopback only; with
--auth deploy/nats/auth.conf it enforces those users and permissions, and the
gateway connects to it as its own user (--nkey gateway.nk, which also signs
the outcomes). The HTTP API (/healthz, /v1/runs, /v1/agents, /v1/schemas,
/v1/dlq, /metrics) listens on --http; with --api-token-file every route but
those of --http-open needs a bearer token, and without one the API is served
on a loopback address only.
SIGINT or SIGTERM stops taking messages, finishes the ones in flight and exits.`,
		Example: `  agentgate serve
  agentgate serve --auth deploy/nats/auth.conf --nkey gateway.nk --nats-listen 0.0.0.0:4222
  agentgate serve -s nats://n1:4222,nats://n2:4222,nats://n3:4222 --nkey gateway.nk \
    --tlsca ca.pem --stream-replicas 3 --config /etc/agentgate
  agentgate serve --context prod`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logger, err := newLogger(cmd)
			if err != nil {
				return err
			}
			cfg.Logger = logger
			cfg.NATS = natsconn.FromFlags(cmd.Flags())
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
				if cmd.Context().Err() == nil || !onlyCloseTimeouts(err) {
					return exitCode{1, err}
				}
				// Asked to stop, and stopped within --shutdown-timeout:
				// what was still in hand is delivered again by JetStream.
				logger.Warn("stopped with outputs still in hand: they will be delivered again", "error", err)
			}
			logger.Info("stopped")
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.ConfigDir, "config", "", "configuration directory holding schemas/*.schema.json and agents/*.json (default: the bundled examples)")
	natsconn.AddFlags(f, "an existing NATS deployment; default: start an embedded server (--nats-listen)")
	f.StringVar(&cfg.SigningKey, "signing-key", "", "NKey seed file to sign outcomes with (Outcome-Signature; default: the --nkey seed, if any)")
	f.StringVar(&cfg.EmbeddedAuth, "auth", "", "nats-server configuration file whose accounts, users and permissions the embedded server enforces (deploy/nats/auth.conf); without it the embedded server is loopback-only")
	f.StringVar(&cfg.NATSListen, "nats-listen", "127.0.0.1:4222", "HOST:PORT of the embedded NATS server")
	f.StringVar(&cfg.DataDir, "data-dir", "data", "directory of the embedded server's JetStream files")
	f.StringVar(&cfg.HTTPAddr, "http", "127.0.0.1:8080", "HOST:PORT of the HTTP API")
	f.StringVar(&cfg.API.TokenFile, "api-token-file", "", `bearer tokens of the HTTP API, one "SCOPE TOKEN" per line, SCOPE read or write (default: no authentication, loopback only)`)
	f.StringSliceVar(&cfg.API.Open, "http-open", []string{gateway.OpenHealthz}, `routes served without a token: healthz, metrics, registry (the registry's reads) ("" for none)`)
	f.BoolVar(&cfg.API.NoAuth, "http-no-auth", false, "serve the HTTP API without tokens on an address other than loopback, on purpose")
	f.StringVar(&cfg.API.TLSCert, "http-tls-cert", "", "PEM certificate of the HTTP API; with --http-tls-key it serves HTTPS only")
	f.StringVar(&cfg.API.TLSKey, "http-tls-key", "", "PEM private key of the HTTP API")
	f.Int64Var(&cfg.API.MaxBody, "http-max-body", gateway.DefaultMaxBody, "largest HTTP request body accepted, in bytes")
	f.IntVar(&cfg.MaxPayload, "max-payload", 1<<20, "largest raw output accepted, in bytes")
	f.IntVar(&gcPercent, "gc-percent", gateway.DefaultGCPercent, "garbage collector target (as GOGC); a GOGC environment variable wins over the default")
	f.IntVar(&cfg.Workers, "workers", 0, "raw outputs processed at once (default 32 × the number of CPUs, at most 128)")
	f.DurationVar(&cfg.StreamIdle, "stream-idle", handlers.DefaultStreamIdle, "how long a streamed output may go without a chunk before it is dead-lettered as stream_incomplete")
	f.DurationVar(&cfg.DriftInterval, "drift-interval", gateway.DefaultDriftInterval, "how often each agent's drift totals are sampled for the history of GET /v1/drift (at least 50ms)")
	f.IntVar(&cfg.DriftPoints, "drift-points", gateway.DefaultDriftPoints, "drift samples kept per agent (at most 8640)")
	f.IntVar(&cfg.Streams.Replicas, "stream-replicas", 1, "replicas of every stream and of the run-state bucket (3 on a three-node cluster)")
	f.DurationVar(&cfg.Streams.MaxAge, "stream-max-age", 0, "how long outputs, outcomes and run state are kept (0: until removed)")
	f.DurationVar(&cfg.GateIdle, "gate-idle", agentproto.DefaultIdle, "gated twins: how long an upstream agent's response stream may go without a chunk before the attempt fails")
	f.DurationVar(&cfg.GateHeartbeat, "gate-heartbeat", agentproto.DefaultHeartbeat, "gated twins: heartbeat interval (at least 1s)")
	f.DurationVar(&cfg.GateDiscoveryWait, "gate-discovery-wait", agentproto.DefaultDiscoveryWait, "gated twins: how long one discovery of an upstream agent collects replies")
	addLogFlags(cmd)
	addLimitFlags(cmd, &cfg)
	return cmd
}

// addLimitFlags adds the flags of the limits table (contract section 13).
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

// onlyCloseTimeouts reports whether err holds nothing but the close
// timeouts of a bounded shutdown (a message or decision still in hand).
func onlyCloseTimeouts(err error) bool {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			if !onlyCloseTimeouts(e) {
				return false
			}
		}
		return true
	}
	return errors.Is(err, router.ErrCloseTimeout) || errors.Is(err, handlers.ErrCloseTimeout)
}
