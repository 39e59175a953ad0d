// Package subjects owns agentgate's names on the bus: the subjects of the
// contract, the JetStream streams that capture them, the durable consumer the
// gateway replicas share and the run-state key-value bucket.
//
// It knows nothing of the pipeline; it only says where things live.
package subjects
