package apiauth_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agentgate/agentgate/apiauth"
)

func deny(w http.ResponseWriter, _ *http.Request, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "message": message})
}

func TestGuard_Require(t *testing.T) {
	tokens, err := apiauth.Parse([]byte("read " + readToken + "\nwrite " + writeToken + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		tokens    *apiauth.Tokens
		min       apiauth.Scope
		auth      []string
		want      int
		wantCode  string
		wantScope apiauth.Scope
	}{
		{"no token", tokens, apiauth.Read, nil, 401, apiauth.CodeUnauthorized, 0},
		{"other scheme", tokens, apiauth.Read, []string{"Basic " + readToken}, 401, apiauth.CodeUnauthorized, 0},
		{"two headers", tokens, apiauth.Read, []string{"Bearer " + readToken, "Bearer " + writeToken}, 401, apiauth.CodeUnauthorized, 0},
		{"unknown token", tokens, apiauth.Read, []string{"Bearer " + readToken + "x"}, 401, apiauth.CodeInvalidToken, 0},
		{"read token on a read route", tokens, apiauth.Read, []string{"Bearer " + readToken}, 200, "", apiauth.Read},
		{"scheme in any case", tokens, apiauth.Read, []string{"bearer " + readToken}, 200, "", apiauth.Read},
		{"read token on a write route", tokens, apiauth.Write, []string{"Bearer " + readToken}, 403, apiauth.CodeForbidden, 0},
		{"write token on a read route", tokens, apiauth.Read, []string{"Bearer " + writeToken}, 200, "", apiauth.Write},
		{"write token on a write route", tokens, apiauth.Write, []string{"Bearer " + writeToken}, 200, "", apiauth.Write},
		{"authentication off", nil, apiauth.Write, nil, 200, "", apiauth.Write},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got apiauth.Scope
			h := apiauth.NewGuard(tt.tokens, deny).Require(tt.min, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = apiauth.ScopeFrom(r.Context())
			}))
			req := httptest.NewRequest(http.MethodGet, "/v1/x", nil)
			for _, a := range tt.auth {
				req.Header.Add("Authorization", a)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.want || got != tt.wantScope {
				t.Fatalf("status %d scope %v, want %d %v", rec.Code, got, tt.want, tt.wantScope)
			}
			if tt.want == 200 {
				return
			}
			var body map[string]string
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body["error"] != tt.wantCode || body["message"] == "" {
				t.Errorf("body %s, want error %q and a message", rec.Body, tt.wantCode)
			}
			if rec.Header().Get("WWW-Authenticate") == "" {
				t.Error("no WWW-Authenticate header")
			}
		})
	}
}
