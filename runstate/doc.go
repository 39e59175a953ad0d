// Package runstate keeps each run's state in a JetStream key-value bucket,
// updated with compare-and-set so that several gateway replicas can share
// the work (contract section 6).
package runstate
