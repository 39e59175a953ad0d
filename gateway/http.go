package gateway

import (
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/schemas"
)

// routes is the HTTP API of contract section 6.
func (g *Gateway) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", g.healthz)
	mux.HandleFunc("GET /v1/runs/{run_id}", g.run)
	mux.HandleFunc("GET /v1/agents", g.agents)
	mux.HandleFunc("GET /v1/agents/{name}", g.agent)
	mux.HandleFunc("GET /v1/agents/{name}/prompt", g.prompt)
	mux.HandleFunc("GET /v1/schemas", g.schemaList)
	mux.HandleFunc("GET /v1/schemas/{id...}", g.schema)
	mux.Handle("GET /metrics", promhttp.HandlerFor(g.metrics.Registry(), promhttp.HandlerOpts{}))
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
		writeError(w, http.StatusServiceUnavailable, "reading run state: "+err.Error())
	case st == nil:
		writeError(w, http.StatusNotFound, "unknown run "+id)
	default:
		writeJSON(w, http.StatusOK, st)
	}
}

func (g *Gateway) agents(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, g.reg.Blueprints())
}

func (g *Gateway) agent(w http.ResponseWriter, r *http.Request) {
	bp, ok := g.reg.Blueprint(r.PathValue("name"))
	if !ok {
		writeError(w, http.StatusNotFound, "unknown agent "+r.PathValue("name"))
		return
	}
	writeJSON(w, http.StatusOK, bp)
}

func (g *Gateway) prompt(w http.ResponseWriter, r *http.Request) {
	bp, ok := g.reg.Blueprint(r.PathValue("name"))
	if !ok {
		writeError(w, http.StatusNotFound, "unknown agent "+r.PathValue("name"))
		return
	}
	text := bp.SystemPrompt
	switch {
	case bp.Reply == schemas.ReplyToolOrAnswer:
		text = handlers.SystemPrompt(bp.SystemPrompt, handlers.ReplySchema(bp))
	case bp.OutputSchema != nil:
		text = handlers.SystemPrompt(bp.SystemPrompt, bp.OutputSchema.Raw)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(text))
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
		writeError(w, http.StatusNotFound, "unknown schema "+id)
		return
	}
	w.Header().Set("Content-Type", "application/schema+json")
	_, _ = w.Write(s.Raw)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
