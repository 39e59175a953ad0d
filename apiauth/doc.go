// Package apiauth owns who may call the gateway's HTTP API: the bearer
// tokens of the token file (one per line, each with the scope read or
// write), checking a request's token in constant time, and refusing it
// with 401 or 403. It knows nothing of NATS, the registry or the routes it
// guards, and must never import them.
package apiauth
