package apiauth

import (
	"context"
	"net/http"
	"strings"
)

// Error codes of the JSON errors a Guard answers with (the "error" member
// of contract section 6's error body).
const (
	// CodeUnauthorized (401): the request carries no bearer token.
	CodeUnauthorized = "unauthorized"
	// CodeInvalidToken (401): the bearer token is not one of the file's.
	CodeInvalidToken = "invalid_token"
	// CodeForbidden (403): the token's scope is too weak for the route.
	CodeForbidden = "forbidden"
)

// DenyFunc writes the refusal of r: the status, the error code and a
// message for people. The Guard has set WWW-Authenticate already. It may
// log the refusal; the token is not given to it.
type DenyFunc func(w http.ResponseWriter, r *http.Request, status int, code, message string)

// Guard checks the bearer token of each request it wraps.
type Guard struct {
	tokens *Tokens
	deny   DenyFunc
}

// NewGuard returns a Guard over tokens. With no tokens (nil or empty)
// authentication is off and every request has the Write scope: the caller
// decides whether that is acceptable (the gateway allows it on loopback
// only). deny writes the refusals.
func NewGuard(tokens *Tokens, deny DenyFunc) *Guard {
	return &Guard{tokens: tokens, deny: deny}
}

// Enabled reports whether requests need a token.
func (g *Guard) Enabled() bool { return g.tokens.Len() > 0 }

// Require wraps next so that it runs only for a request whose bearer token
// has at least scope min; the token's scope is then in the request's
// context (ScopeFrom). Otherwise it answers 401 (no token: CodeUnauthorized;
// a token it does not know: CodeInvalidToken) or 403 (CodeForbidden), with
// a WWW-Authenticate header as RFC 6750 describes.
func (g *Guard) Require(min Scope, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.Enabled() {
			next.ServeHTTP(w, r.WithContext(withScope(r.Context(), Write)))
			return
		}
		token, ok := bearer(r)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="agentgate"`)
			g.deny(w, r, http.StatusUnauthorized, CodeUnauthorized, "this route needs an Authorization: Bearer <token> header")
			return
		}
		scope, _ := g.tokens.Lookup(token)
		switch {
		case scope == None:
			w.Header().Set("WWW-Authenticate", `Bearer realm="agentgate", error="invalid_token"`)
			g.deny(w, r, http.StatusUnauthorized, CodeInvalidToken, "the bearer token is not valid")
		case scope < min:
			w.Header().Set("WWW-Authenticate", `Bearer realm="agentgate", error="insufficient_scope", scope="`+min.String()+`"`)
			g.deny(w, r, http.StatusForbidden, CodeForbidden, "this route needs a token with the "+min.String()+" scope")
		default:
			next.ServeHTTP(w, r.WithContext(withScope(r.Context(), scope)))
		}
	})
}

// bearer is the request's bearer token. A request with several
// Authorization headers, or another scheme, has none.
func bearer(r *http.Request) (string, bool) {
	h := r.Header.Values("Authorization")
	if len(h) != 1 {
		return "", false
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(h[0]), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return token, true
}

type scopeKey struct{}

func withScope(ctx context.Context, s Scope) context.Context {
	return context.WithValue(ctx, scopeKey{}, s)
}

// ScopeFrom is the scope Require granted the request whose context ctx is;
// None for a route that Require does not guard.
func ScopeFrom(ctx context.Context) Scope {
	s, _ := ctx.Value(scopeKey{}).(Scope)
	return s
}
