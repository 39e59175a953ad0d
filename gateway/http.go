package gateway

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/agentgate/agentgate/apiauth"
	"github.com/agentgate/agentgate/dashboard"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/provider"
	"github.com/agentgate/agentgate/schemas"
)

// Error codes of the API's JSON errors (contract section 6), beside
// apiauth's.
const (
	codeNotFound        = "not_found"
	codeUnavailable     = "unavailable"
	codePayloadTooLarge = "payload_too_large"
	codeBadRequest      = "bad_request"
	codeConflict        = "conflict"
	codeInternal        = "internal"
)

// registryRead reports whether a route pattern is one of the registry's
// reads, which OpenRegistry opens.
func registryRead(pattern string) bool {
	return strings.HasPrefix(pattern, "GET /v1/agents") || strings.HasPrefix(pattern, "GET /v1/schemas")
}

// routes is the HTTP API of contract section 6, each route behind the
// token scope it needs.
func (g *Gateway) routes(cfg APIConfig) http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern string, scope apiauth.Scope, h http.Handler) {
		if scope == apiauth.Read && cfg.isOpen(OpenRegistry) && registryRead(pattern) {
			mux.Handle(pattern, h)
			return
		}
		mux.Handle(pattern, g.guard.Require(scope, h))
	}
	maybeOpen := func(route, pattern string, h http.Handler) {
		if cfg.isOpen(route) {
			mux.Handle(pattern, h)
			return
		}
		handle(pattern, apiauth.Read, h)
	}
	maybeOpen(OpenHealthz, "GET /healthz", http.HandlerFunc(g.healthz))
	maybeOpen(OpenMetrics, "GET /metrics", promhttp.HandlerFor(g.metrics.Registry(), promhttp.HandlerOpts{}))
	handle("GET /v1/runs", apiauth.Read, http.HandlerFunc(g.runsList))
	handle("GET /v1/runs/{run_id}", apiauth.Read, http.HandlerFunc(g.run))
	handle("GET /v1/runs/{run_id}/attempts", apiauth.Read, http.HandlerFunc(g.runAttempts))
	handle("GET /v1/drift", apiauth.Read, http.HandlerFunc(g.drift))
	handle("POST /v1/lint", apiauth.Read, http.HandlerFunc(g.lint))
	handle("GET /v1/agents", apiauth.Read, http.HandlerFunc(g.agents))
	handle("GET /v1/agents/{name}", apiauth.Read, http.HandlerFunc(g.agent))
	handle("GET /v1/agents/{name}/prompt", apiauth.Read, http.HandlerFunc(g.prompt))
	handle("GET /v1/agents/{name}/provider-schema", apiauth.Read, http.HandlerFunc(g.providerSchema))
	handle("GET /v1/schemas", apiauth.Read, http.HandlerFunc(g.schemaList))
	handle("GET /v1/schemas/{id...}", apiauth.Read, http.HandlerFunc(g.schema))
	handle("GET /v1/dlq", apiauth.Read, http.HandlerFunc(g.dlqList))
	handle("GET /v1/dlq/{seq}", apiauth.Read, http.HandlerFunc(g.dlqGet))
	handle("POST /v1/dlq/{seq}/replay", apiauth.Write, http.HandlerFunc(g.dlqReplay))
	g.registryRoutes(mux, handle)
	dashboard.Register(mux) // static assets, open: its API calls carry the token
	handle("/", apiauth.Read, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, codeNotFound, "no route "+r.Method+" "+quote(r.URL.Path))
	}))
	return mux
}

// healthz is 200 only while the gateway is consuming: connected, its
// durable consumers there and consumed from; otherwise 503 with the reason.
func (g *Gateway) healthz(w http.ResponseWriter, _ *http.Request) {
	switch {
	case !g.ready.Load():
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "starting"})
	case g.nc.Status() != nats.CONNECTED:
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable",
			"reason": "NATS connection is " + g.nc.Status().String()})
	case g.router.Health() != nil:
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable",
			"reason": g.router.Health().Error()})
	default:
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	}
}

func (g *Gateway) run(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("run_id")
	st, _, err := g.store.Get(r.Context(), id)
	switch {
	case err != nil:
		g.unavailable(w, "reading the run state", err)
	case st == nil:
		writeError(w, http.StatusNotFound, codeNotFound, "unknown run "+quote(id))
	default:
		if !seesSensitive(r) {
			if st, err = g.redactor.RunState(st); err != nil {
				g.redactFailed(w, err)
				return
			}
		}
		writeJSON(w, http.StatusOK, st)
	}
}

func (g *Gateway) agents(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, g.reg.Blueprints())
}

func (g *Gateway) agent(w http.ResponseWriter, r *http.Request) {
	bp, ok := g.reg.Blueprint(r.PathValue("name"))
	if !ok {
		writeError(w, http.StatusNotFound, codeNotFound, "unknown agent "+quote(r.PathValue("name")))
		return
	}
	writeJSON(w, http.StatusOK, bp)
}

func (g *Gateway) prompt(w http.ResponseWriter, r *http.Request) {
	bp, ok := g.reg.Blueprint(r.PathValue("name"))
	if !ok {
		writeError(w, http.StatusNotFound, codeNotFound, "unknown agent "+quote(r.PathValue("name")))
		return
	}
	text := handlers.AgentPrompt(bp)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(text))
}

// providerSchema answers GET /v1/agents/{name}/provider-schema?provider=P:
// the agent's output schema in provider P's strict mode, with what could
// not be expressed (contract section 6).
func (g *Gateway) providerSchema(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	bp, ok := g.reg.Blueprint(name)
	if !ok {
		writeError(w, http.StatusNotFound, codeNotFound, "unknown agent "+quote(name))
		return
	}
	if bp.OutputSchema == nil || bp.Reply != "" {
		writeError(w, http.StatusNotFound, codeNotFound, "agent "+quote(name)+" has no output schema to export")
		return
	}
	x, err := provider.Export(provider.Name(r.URL.Query().Get("provider")), bp.OutputSchema.Doc, bp.OutputSchema)
	if err != nil {
		writeError(w, http.StatusBadRequest, codeBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, provider.NewDocument(name, bp.OutputSchema.ID, x))
}

// schemaInfo is an entry of GET /v1/schemas.
type schemaInfo struct {
	ID          string `json:"id"`
	Version     string `json:"version"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Draft       string `json:"draft"`
}

func (g *Gateway) schemaList(w http.ResponseWriter, _ *http.Request) {
	list := []schemaInfo{}
	for _, s := range g.reg.Schemas() {
		list = append(list, infoOf(s))
	}
	writeJSON(w, http.StatusOK, list)
}

func infoOf(s *schemas.Schema) schemaInfo {
	return schemaInfo{ID: s.ID, Version: s.Version, Title: s.Title, Description: s.Description, Draft: s.Draft}
}

func (g *Gateway) schema(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	// Accept the id escaped once more than the mux already undid, too.
	if un, err := url.PathUnescape(id); err == nil {
		if _, ok := g.reg.Schema(id); !ok {
			id = un
		}
	}
	s, ok := g.reg.Schema(id)
	if !ok {
		writeError(w, http.StatusNotFound, codeNotFound, "unknown schema "+quote(id))
		return
	}
	ctype := "application/schema+json"
	if s.Draft == schemas.DraftJTD {
		ctype = "application/json" // RFC 8927 registers no media type
	}
	w.Header().Set("Content-Type", ctype)
	_, _ = w.Write(s.Raw)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// seesSensitive reports whether the caller may see the members schemas
// mark "x-sensitive": write tokens may, read tokens may not.
func seesSensitive(r *http.Request) bool { return apiauth.ScopeFrom(r.Context()) >= apiauth.Write }

// redactFailed answers 500 when a message could not be masked: it fails
// closed, showing nothing.
func (g *Gateway) redactFailed(w http.ResponseWriter, err error) {
	g.cfg.Logger.Error("HTTP API: masking sensitive members", "error", err)
	writeError(w, http.StatusInternalServerError, codeInternal, "the answer could not be masked for this token; see the gateway's log")
}

// apiError is the body of every error answer: a code for programs, a
// message for people. Messages never carry a raw output or a member's value.
type apiError struct {
	Error   string `json:"error"`
	Message string `json:"message"`
}

// writeError answers with an apiError.
func writeError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, apiError{Error: code, Message: message})
}

// quote is a caller-given name as an error message shows it: quoted, and
// cut at 128 bytes.
func quote(s string) string {
	if len(s) > 128 {
		s = s[:128] + "..."
	}
	return strconv.Quote(s)
}
