// Package subjects owns agentgate's names on the bus: the subjects of the
// contract (section 1), how an agent is read from one and which subject
// each outcome goes to.
//
// Names are strings with no client behind them: it must never import
// nats.go, Watermill or any pipeline package. Where the messages are kept
// (streams, buckets, consumers) is the topology package's.
package subjects
