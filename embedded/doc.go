// Package embedded runs the NATS server with JetStream that `agentgate
// serve` starts when no external cluster is given, on loopback unless an
// auth file secures it.
//
// It is the server, not the client: it must never import nats.go's client
// side, Watermill or any package of the pipeline.
package embedded
