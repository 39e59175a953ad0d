package dashboard_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/dashboard"
)

func TestRegister(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	dashboard.Register(mux)
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "api", http.StatusTeapot) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	tests := []struct {
		name, path string
		wantStatus int
		wantType   string
		wantBody   string
	}{
		{"index at the root", "/", 200, "text/html", `<main id="main"`},
		{"script", "/assets/app.js", 200, "javascript", "sessionStorage"},
		{"json layout", "/assets/json.js", 200, "javascript", "const Layout"},
		{"style", "/assets/app.css", 200, "text/css", "@media"},
		{"unknown asset", "/assets/none.js", 404, "", ""},
		{"other paths stay the API's", "/v1/agents", http.StatusTeapot, "", "api"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, err := http.Get(srv.URL + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantStatus || !strings.Contains(resp.Header.Get("Content-Type"), tt.wantType) || !strings.Contains(string(body), tt.wantBody) {
				t.Errorf("GET %s = %d %q %.80q", tt.path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
		})
	}
}

// The assets reach nothing but the gateway: no CDN, no remote font, no
// inline script (the Content-Security-Policy forbids them anyway).
func TestAssets_selfContained(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"index.html", "app.js", "app.css", "charts.js", "json.js"} {
		b, err := fsRead(name)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for _, bad := range []string{"https://", "http://", "//cdn", "<script>"} {
			if bad == "http://" && strings.Contains(s, "http://www.w3.org/2000/svg") {
				s = strings.ReplaceAll(s, "http://www.w3.org/2000/svg", "")
			}
			if strings.Contains(s, bad) {
				t.Errorf("%s holds %q", name, bad)
			}
		}
	}
}

func fsRead(name string) ([]byte, error) {
	f, err := dashboard.Assets().Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// Register adds the dashboard beside an API on one mux.
func ExampleRegister() {
	mux := http.NewServeMux()
	dashboard.Register(mux) // GET / and GET /assets/...
	mux.Handle("/v1/", http.NotFoundHandler())
	_ = http.ListenAndServe // serve mux as usual
}
