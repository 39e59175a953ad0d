// Package redact masks the members a schema marks "x-sensitive": true in
// what the gateway shows to callers who may not see them (the HTTP API's
// read tokens): in outcome messages (result_data, violations,
// normalizations, retry prompts, raw outputs), in run states and in dead
// letters. It works on the JSON as published, so members it does not know
// pass through untouched. It reads schemas from the registry and never
// imports NATS, net/http or the pipeline (handlers).
package redact
