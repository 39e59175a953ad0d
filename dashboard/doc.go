// Package dashboard owns the browser dashboard that `agentgate serve`
// serves at "/": plain HTML, CSS and JavaScript embedded in the binary
// (no build step, no CDN), which reads and writes everything through the
// HTTP API of contract section 6 with the user's bearer token. It serves
// static files only: it must never import the gateway, NATS or the
// registry, and never sees a token.
package dashboard
