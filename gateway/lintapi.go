package gateway

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing/fstest"

	"github.com/agentgate/agentgate/schemas"
)

// The file names a linted document takes in the folder it is checked in.
const (
	lintSchemaFile    = "schemas/submitted.schema.json"
	lintBlueprintFile = "agents/submitted.json"
)

// lintRequest is the body of POST /v1/lint.
type lintRequest struct {
	// Kind is "schema" or "blueprint".
	Kind     string          `json:"kind"`
	Document json.RawMessage `json:"document"`
}

// lintAnswer is the answer of POST /v1/lint: the findings of
// `agentgate schema lint` for the one document.
type lintAnswer struct {
	Errors   int               `json:"errors"`
	Warnings int               `json:"warnings"`
	Findings []schemas.Finding `json:"findings"`
}

// lint serves POST /v1/lint: the document checked as `agentgate schema
// lint` checks a configuration folder, beside the schemas in force (which
// its $ref and schema names may reach). Nothing is stored.
func (g *Gateway) lint(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, codePayloadTooLarge, "request body too large")
		return
	}
	var req lintRequest
	if err := json.Unmarshal(body, &req); err != nil || len(req.Document) == 0 {
		writeError(w, http.StatusBadRequest, codeBadRequest, `want {"kind": "schema"|"blueprint", "document": {...}}`)
		return
	}
	var file string
	switch req.Kind {
	case "schema":
		file = lintSchemaFile
	case "blueprint":
		file = lintBlueprintFile
	default:
		writeError(w, http.StatusBadRequest, codeBadRequest, `kind: want "schema" or "blueprint"`)
		return
	}
	var head struct {
		ID string `json:"$id"`
	}
	_ = json.Unmarshal(req.Document, &head)
	fsys := fstest.MapFS{file: {Data: req.Document}}
	for i, s := range g.reg.Schemas() {
		if req.Kind == "schema" && s.ID == head.ID {
			continue // the submitted document replaces it
		}
		ext := ".schema.json"
		if s.Draft == schemas.DraftJTD {
			ext = ".jtd.json"
		}
		fsys["schemas/registered-"+strconv.Itoa(i)+ext] = &fstest.MapFile{Data: s.Raw}
	}
	report, err := schemas.LintFS(fsys)
	if err != nil {
		writeError(w, http.StatusBadRequest, codeBadRequest, "the document could not be linted: "+err.Error())
		return
	}
	ans := lintAnswer{Findings: []schemas.Finding{}}
	for _, f := range report.For(file) {
		f.File = ""
		if f.Severity == schemas.SeverityError {
			ans.Errors++
		} else {
			ans.Warnings++
		}
		ans.Findings = append(ans.Findings, f)
	}
	writeJSON(w, http.StatusOK, ans)
}
