package dashboard

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed assets
var assets embed.FS

// Assets is the dashboard's files: index.html, app.js, app.css.
func Assets() fs.FS {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded folder is fixed at build time
	}
	return sub
}

// Handler serves the dashboard: index.html at "/" and the other assets
// under "/assets/". The files carry no secret, so it needs no token; the
// API calls the page makes do.
func Handler() http.Handler {
	files := http.FileServerFS(Assets())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-cache")
		if r.URL.Path == "/" {
			http.ServeFileFS(w, r, Assets(), "index.html")
			return
		}
		http.StripPrefix("/assets", files).ServeHTTP(w, r)
	})
}

// Mux is where Register adds the dashboard's routes.
type Mux interface {
	Handle(pattern string, h http.Handler)
}

// Register adds the dashboard to mux: GET / and GET /assets/.
func Register(mux Mux) {
	h := Handler()
	mux.Handle("GET /{$}", h)
	mux.Handle("GET /assets/", h)
}
