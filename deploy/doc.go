// Package deploy holds no code: its tests check what this folder ships.
// They boot NATS from the very files in nats/ (accounts, users,
// permissions, the three-node cluster with TLS), run gateways against it
// and attack it as an agent would; they lint what cannot run here (the
// Dockerfile, compose.yaml, the Kubernetes manifests). Nothing may import
// it, and it must not import agentgate's packages outside its tests.
package deploy
