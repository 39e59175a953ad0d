// Package runstate keeps each run's state in a JetStream key-value bucket,
// updated with compare-and-set so that several gateway replicas can share
// the work (contract section 6), and the chunks of streamed outputs and the
// dead letters replays name beside it: the stores behind the pipeline's
// ports (handlers.RunStore, ChunkStore, DeadLetters).
//
// It is storage, not the pipeline: it must never import handlers, router or
// gateway (a test of its own checks it implements the ports).
package runstate
