// Package topology owns what agentgate keeps on JetStream and how it is
// laid out: the streams that capture the contract's subjects, the
// key-value buckets of run state, chunks and the registry, and the durable
// consumers the gateway replicas share, with the code that creates them.
//
// It knows nothing of the pipeline: it must never import handlers, router
// or gateway. Subject names are the subjects package's; this one says where
// the messages on them are kept.
package topology
