// Package test holds agentgate's end-to-end tests: each starts a real NATS
// server with JetStream on a free loopback port, runs the gateway against
// it, publishes raw outputs as an executor would, and checks what lands on
// the outcome subjects and in the run-state bucket. Nothing may import it;
// it imports agentgate as its users do.
package test
