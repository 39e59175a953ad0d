package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/agentgate/agentgate/apiauth"
	"github.com/agentgate/agentgate/registry"
)

// registryTimeout bounds one registry request's reads and writes.
const registryTimeout = 10 * time.Second

// awaitLocalTimeout bounds how long a write's answer waits for this
// gateway to serve the change.
const awaitLocalTimeout = 5 * time.Second

// maxDocument bounds a registered document.
const maxDocument = 1 << 20

// problem is the body of every error answer of the registry routes
// (section 12): a stable code, a sentence, and what the caller needs to fix
// it.
type problem struct {
	Error   string `json:"error"`
	Message string `json:"message"`
	Details []any  `json:"details"`
}

// registryRoutes adds the registry service's routes (contract section 12).
// Every route that changes the registry is registered with the write scope, through registryWrite.
func (g *Gateway) registryRoutes(mux *http.ServeMux, handle func(pattern string, scope apiauth.Scope, h http.Handler)) {
	handle("GET /v1/schemas/{name}/versions", apiauth.Read, http.HandlerFunc(g.schemaVersions))
	handle("GET /v1/schemas/{name}/versions/{version}", apiauth.Read, http.HandlerFunc(g.schemaVersion))
	handle("GET /v1/schemas/{name}/config", apiauth.Read, http.HandlerFunc(g.schemaConfig))
	write := func(pattern string, h http.HandlerFunc) { handle(pattern, apiauth.Write, g.registryWrite(h)) }
	write("POST /v1/schemas/{name}/versions", g.registerSchema)
	write("POST /v1/schemas/{name}/compatibility", g.checkSchema)
	write("PUT /v1/schemas/{name}/config", g.setSchemaConfig)
	write("DELETE /v1/schemas/{name}/versions/{version}", g.deleteSchemaVersion)
	write("POST /v1/agents", g.applyAgent(registry.CreateOnly))
	write("PUT /v1/agents/{name}", g.applyAgent(registry.CreateOrUpdate))
	write("DELETE /v1/agents/{name}", g.deleteAgent)
}

// registryWrite wraps a route that changes the registry (registered with
// the write scope, contract section 6.1). With a static registry
// (Config.Registry) it answers 503; it bounds the request body and the
// time the route may take.
func (g *Gateway) registryWrite(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.regSvc == nil {
			writeProblem(w, http.StatusServiceUnavailable, "static_registry",
				"this gateway was given a fixed registry; the registry cannot be changed through it", nil)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxDocument)
		ctx, cancel := context.WithTimeout(r.Context(), registryTimeout)
		defer cancel()
		h(w, r.WithContext(ctx))
	})
}

// awaitLocal waits (bounded by the request's time) until this gateway
// serves a change it just stored, so that a client reading its own write
// from the same gateway sees it. A change that does not compile here is
// stored all the same; the answer then comes when the time is up.
func (g *Gateway) awaitLocal(r *http.Request, cond func(*registry.Snapshot) bool) {
	if g.live != nil {
		ctx, cancel := context.WithTimeout(r.Context(), awaitLocalTimeout)
		defer cancel()
		_ = g.live.Await(ctx, cond)
	}
}

// store returns the registry's store for a read route, or answers 404.
func (g *Gateway) regStore(w http.ResponseWriter) *registry.Store {
	if g.regSvc == nil {
		writeProblem(w, http.StatusNotFound, "static_registry", "this gateway has a fixed registry, without versions", nil)
		return nil
	}
	return g.regSvc.Store()
}

// pathSubject reads the schema name of the request's {name}, answering
// the error itself when there is none to read.
func (g *Gateway) pathSubject(w http.ResponseWriter, r *http.Request) (*registry.Subject, bool) {
	st := g.regStore(w)
	if st == nil {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(r.Context(), registryTimeout)
	defer cancel()
	sub, err := st.Subject(ctx, r.PathValue("name"))
	if err != nil {
		g.writeRegistryError(w, err)
		return nil, false
	}
	return sub, true
}

// versionInfo is a version without its document.
type versionInfo struct {
	Version      string          `json:"version"`
	ID           string          `json:"id"`
	Origin       registry.Origin `json:"origin"`
	RegisteredAt time.Time       `json:"registered_at"`
	Deleted      bool            `json:"deleted,omitempty"`
}

func infoOfVersion(v registry.Version) versionInfo {
	return versionInfo{Version: v.Version, ID: v.ID, Origin: v.Origin, RegisteredAt: v.RegisteredAt, Deleted: v.Deleted}
}

func (g *Gateway) schemaVersions(w http.ResponseWriter, r *http.Request) {
	sub, ok := g.pathSubject(w, r)
	if !ok {
		return
	}
	list := []versionInfo{}
	if r.URL.Query().Get("deleted") == "true" {
		for _, v := range sub.Versions {
			list = append(list, infoOfVersion(v))
		}
	} else {
		for _, v := range sub.Live() {
			list = append(list, infoOfVersion(v))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"name": sub.Name, "compatibility": sub.Level(), "versions": list})
}

func (g *Gateway) schemaVersion(w http.ResponseWriter, r *http.Request) {
	name, version := r.PathValue("name"), r.PathValue("version")
	sub, ok := g.pathSubject(w, r)
	if !ok {
		return
	}
	var v *registry.Version
	if version == "latest" {
		v = sub.Latest()
	} else if v = sub.Find(version); v != nil && v.Deleted && r.URL.Query().Get("deleted") != "true" {
		v = nil
	}
	if v == nil {
		writeProblem(w, http.StatusNotFound, "not_found", fmt.Sprintf("schema %s has no version %s", name, version), nil)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Name string `json:"name"`
		versionInfo
		Schema json.RawMessage `json:"schema"`
	}{sub.Name, infoOfVersion(*v), v.Schema})
}

func (g *Gateway) schemaConfig(w http.ResponseWriter, r *http.Request) {
	sub, ok := g.pathSubject(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"name": sub.Name, "compatibility": sub.Level()})
}

func (g *Gateway) registerSchema(w http.ResponseWriter, r *http.Request) {
	doc, ok := g.readSchemaBody(w, r)
	if !ok {
		return
	}
	res, err := g.regSvc.Register(r.Context(), doc, registry.OriginAPI)
	if err != nil {
		g.writeRegistryError(w, err)
		return
	}
	status := http.StatusCreated
	if !res.Created {
		status = http.StatusOK
	}
	g.awaitLocal(r, func(s *registry.Snapshot) bool { _, ok := s.Registry.Schema(res.Version.ID); return ok })
	writeJSON(w, status, infoOfVersion(*res.Version))
}

func (g *Gateway) checkSchema(w http.ResponseWriter, r *http.Request) {
	doc, ok := g.readSchemaBody(w, r)
	if !ok {
		return
	}
	err := g.regSvc.CheckCompatibility(r.Context(), doc)
	var inv *registry.InvalidError
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, map[string]any{"compatible": true})
	case errors.As(err, &inv):
		g.writeRegistryError(w, err)
	case errors.Is(err, registry.ErrIncompatible), errors.Is(err, registry.ErrImmutable), errors.Is(err, registry.ErrVersionOrder):
		p := problemOf(err)
		writeJSON(w, http.StatusOK, map[string]any{"compatible": false, "error": p.Error, "message": p.Message, "details": p.Details})
	default:
		g.writeRegistryError(w, err)
	}
}

func (g *Gateway) setSchemaConfig(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Compatibility string `json:"compatibility"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeProblem(w, http.StatusBadRequest, "bad_request", `want {"compatibility": "<level>"}: `+err.Error(), nil)
		return
	}
	level, err := registry.ParseLevel(body.Compatibility)
	if err != nil {
		g.writeRegistryError(w, err)
		return
	}
	name := r.PathValue("name")
	if err := g.regSvc.SetLevel(r.Context(), name, level); err != nil {
		g.writeRegistryError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"name": name, "compatibility": level})
}

func (g *Gateway) deleteSchemaVersion(w http.ResponseWriter, r *http.Request) {
	name, version := r.PathValue("name"), r.PathValue("version")
	if err := g.regSvc.DeleteVersion(r.Context(), name, version); err != nil {
		g.writeRegistryError(w, err)
		return
	}
	g.awaitLocal(r, func(s *registry.Snapshot) bool {
		_, slash := s.Registry.Schema(name + "/" + version)
		_, colon := s.Registry.Schema(name + ":" + version)
		return !slash && !colon
	})
	writeJSON(w, http.StatusOK, map[string]any{"name": name, "version": version, "deleted": true})
}

// agentInfo answers a blueprint write.
type agentInfo struct {
	Name      string          `json:"name"`
	Revision  uint64          `json:"revision"`
	Origin    registry.Origin `json:"origin"`
	UpdatedAt time.Time       `json:"updated_at"`
}

func (g *Gateway) applyAgent(mode registry.ApplyMode) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		doc, ok := readBody(w, r)
		if !ok {
			return
		}
		if name := r.PathValue("name"); name != "" {
			var head struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(doc, &head) == nil && head.Name != name {
				writeProblem(w, http.StatusBadRequest, "name_mismatch",
					fmt.Sprintf("the blueprint's name is %q, the path's %q", head.Name, name), nil)
				return
			}
		}
		var before uint64
		if name := r.PathValue("name"); name != "" {
			if a, err := g.regSvc.Store().Agent(r.Context(), name); err == nil {
				before = a.Revision
			}
		}
		a, err := g.regSvc.ApplyAgent(r.Context(), doc, mode, registry.OriginAPI)
		if err != nil {
			g.writeRegistryError(w, err)
			return
		}
		status := http.StatusOK
		if before == 0 {
			status = http.StatusCreated
		}
		g.awaitLocal(r, func(s *registry.Snapshot) bool { return s.Revisions[a.Name] >= a.Revision })
		writeJSON(w, status, agentInfo{Name: a.Name, Revision: a.Revision, Origin: a.Origin, UpdatedAt: a.UpdatedAt})
	}
}

func (g *Gateway) deleteAgent(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if err := g.regSvc.DeleteAgent(r.Context(), name); err != nil {
		g.writeRegistryError(w, err)
		return
	}
	g.awaitLocal(r, func(s *registry.Snapshot) bool { _, ok := s.Revisions[name]; return !ok })
	writeJSON(w, http.StatusOK, map[string]any{"name": name, "deleted": true})
}

// readBody reads a JSON request body, answering 400 or 413 when it is not
// one.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	doc, err := io.ReadAll(r.Body)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeProblem(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("the document is over %d bytes", tooLarge.Limit), nil)
		return nil, false
	case err != nil:
		writeProblem(w, http.StatusBadRequest, "bad_request", "reading the body: "+err.Error(), nil)
		return nil, false
	case !json.Valid(doc):
		writeProblem(w, http.StatusBadRequest, "invalid_json", "the body is not a JSON document", nil)
		return nil, false
	}
	return doc, true
}

// readSchemaBody is readBody for a schema document, which must be a
// version of the name in the path.
func (g *Gateway) readSchemaBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	doc, ok := readBody(w, r)
	if !ok {
		return nil, false
	}
	id, err := registry.SchemaID(doc)
	if err != nil {
		g.writeRegistryError(w, &registry.InvalidError{Problems: []string{err.Error()}})
		return nil, false
	}
	name, _, err := registry.SplitID(id)
	if err != nil {
		g.writeRegistryError(w, &registry.InvalidError{Problems: []string{err.Error()}})
		return nil, false
	}
	if want := r.PathValue("name"); name != want {
		writeProblem(w, http.StatusBadRequest, "name_mismatch",
			fmt.Sprintf("the schema's $id %q is a version of %q, not of %q", id, name, want), nil)
		return nil, false
	}
	return doc, true
}

// writeRegistryError answers err with its status and problem body; an
// error that is not the registry's verdict (the bus or the store failed)
// is logged, its text kept out of the answer (contract section 6.2).
func (g *Gateway) writeRegistryError(w http.ResponseWriter, err error) {
	p := problemOf(err)
	if p.Error == "unavailable" {
		g.cfg.Logger.Error("registry call failed", "error", err)
	}
	status := http.StatusServiceUnavailable
	switch {
	case errors.Is(err, registry.ErrInvalid):
		status = http.StatusUnprocessableEntity
	case errors.Is(err, registry.ErrBadLevel):
		status = http.StatusBadRequest
	case errors.Is(err, registry.ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, registry.ErrTooLarge):
		status = http.StatusRequestEntityTooLarge
	case errors.Is(err, registry.ErrIncompatible), errors.Is(err, registry.ErrImmutable),
		errors.Is(err, registry.ErrVersionOrder), errors.Is(err, registry.ErrConflict),
		errors.Is(err, registry.ErrExists), errors.Is(err, registry.ErrInUse):
		status = http.StatusConflict
	}
	writeProblem(w, status, p.Error, p.Message, p.Details)
}

// problemOf classifies a registry error.
func problemOf(err error) problem {
	p := problem{Error: "unavailable", Message: err.Error(), Details: []any{}}
	var (
		inv   *registry.InvalidError
		incmp *registry.IncompatibleError
		inUse *registry.InUseError
	)
	switch {
	case errors.As(err, &inv):
		p.Error, p.Message = "invalid", "the document does not load"
		for _, s := range inv.Problems {
			p.Details = append(p.Details, s)
		}
	case errors.As(err, &incmp):
		p.Error = "incompatible"
		p.Message = fmt.Sprintf("%s %s breaks %s against an earlier version without a major version bump",
			incmp.Name, incmp.Version, incmp.Level)
		for _, c := range incmp.Changes {
			p.Details = append(p.Details, c)
		}
	case errors.As(err, &inUse):
		p.Error = "in_use"
		for _, u := range inUse.Users {
			p.Details = append(p.Details, u)
		}
	case errors.Is(err, registry.ErrImmutable):
		p.Error = "immutable"
	case errors.Is(err, registry.ErrVersionOrder):
		p.Error = "version_order"
	case errors.Is(err, registry.ErrConflict):
		p.Error = "conflict"
		p.Message += "; another change to the same name or agent won, retry to check against it"
	case errors.Is(err, registry.ErrExists):
		p.Error = "exists"
	case errors.Is(err, registry.ErrNotFound):
		p.Error = "not_found"
	case errors.Is(err, registry.ErrBadLevel):
		p.Error = "bad_level"
	case errors.Is(err, registry.ErrTooLarge):
		p.Error = "too_large"
		p.Message += "; one entry holds every version of a schema name (deleted ones included): raise the NATS server's max_payload, or start a new name"
	default:
		// Not the registry's verdict: the bus or the store failed. Its text
		// is for the log (writeRegistryError), never the answer.
		p.Message = "the registry could not be read or written now; see the gateway's log"
	}
	return p
}

func writeProblem(w http.ResponseWriter, status int, code, msg string, details []any) {
	if details == nil {
		details = []any{}
	}
	writeJSON(w, status, problem{Error: code, Message: msg, Details: details})
}
