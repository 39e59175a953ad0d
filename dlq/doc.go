// Package dlq owns the operator's side of the dead-letter stream: listing
// dead letters (of an agent, of a run, a page at a time), reading one by
// its sequence, and replaying one, which publishes its kept raw output
// again with a Replay-Of header for the gateway to reprocess. `agentgate
// dlq` and the HTTP API's /v1/dlq routes both use it. It never imports the
// pipeline (handlers), Watermill or net/http.
package dlq
