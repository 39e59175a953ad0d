package deploy_test

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// What cannot run here (no container engine) is linted: the files parse,
// say what the issue asks, and build the binary the way the Makefile does.

// buildFlags returns the flags of the `go build` in a Makefile recipe or a
// Dockerfile RUN line, with $(VAR) and ${VAR} both written as $VAR.
func buildFlags(t *testing.T, text, what string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)CGO_ENABLED=0 (?:\$\(GO\)|go) build (.*?) -o \S+ \./cmd/agentgate\s*$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("%s: no `CGO_ENABLED=0 go build ... -o ... ./cmd/agentgate` line", what)
	}
	return regexp.MustCompile(`\$[({](\w+)[)}]`).ReplaceAllString(m[1], "$$$1")
}

// makefileFlags is the Makefile's BUILD_FLAGS as the build recipe uses them.
func makefileFlags(t *testing.T) string {
	t.Helper()
	mk := read(t, "../Makefile")
	def := regexp.MustCompile(`(?m)^BUILD_FLAGS = (.*)$`).FindStringSubmatch(mk)
	if def == nil {
		t.Fatal("Makefile: no BUILD_FLAGS")
	}
	return buildFlags(t, strings.ReplaceAll(mk, "$(BUILD_FLAGS)", def[1]), "Makefile")
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDockerfile(t *testing.T) {
	df := read(t, "Dockerfile")
	froms := regexp.MustCompile(`(?m)^FROM (\S+)`).FindAllStringSubmatch(df, -1)
	if len(froms) < 2 {
		t.Fatalf("%d stages, want a multi-stage build", len(froms))
	}
	final := froms[len(froms)-1][1]
	if !strings.HasPrefix(final, "gcr.io/distroless/static") && final != "scratch" {
		t.Errorf("final stage %s, want distroless static or scratch", final)
	}
	if u := regexp.MustCompile(`(?m)^USER (\S+)`).FindStringSubmatch(df); u == nil || strings.HasPrefix(u[1], "root") || strings.HasPrefix(u[1], "0") {
		t.Errorf("USER %v, want a non-root user", u)
	}
	if !regexp.MustCompile(`(?m)^HEALTHCHECK .*CMD \["/agentgate", "health"\]`).MatchString(df) {
		t.Error("no HEALTHCHECK running agentgate health")
	}
	if got, want := buildFlags(t, df, "Dockerfile"), makefileFlags(t); got != want {
		t.Errorf("Dockerfile builds with %q, the Makefile with %q", got, want)
	}
}

// TestGoVersion checks that every way of building agentgate uses the Go
// that go.mod asks for: the Dockerfile's golang image has its major and
// minor version, and the toolchain the Makefile and CI pin (GOTOOLCHAIN,
// for a go command older than go.mod's) is of that minor version too.
func TestGoVersion(t *testing.T) {
	mod := regexp.MustCompile(`(?m)^go (\d+\.\d+)(?:\.\d+)?$`).FindStringSubmatch(read(t, "../go.mod"))
	if mod == nil {
		t.Fatal("go.mod: no go line")
	}
	want := mod[1]
	if m := regexp.MustCompile(`(?m)^FROM golang:(\d+\.\d+)\b`).FindStringSubmatch(read(t, "Dockerfile")); m == nil || m[1] != want {
		t.Errorf("Dockerfile builds with golang:%v, go.mod asks for Go %s", m, want)
	}
	mk := regexp.MustCompile(`(?m)^export GOTOOLCHAIN \?= go(\d+\.\d+)\.\d+$`).FindStringSubmatch(read(t, "../Makefile"))
	if mk == nil || mk[1] != want {
		t.Errorf("Makefile pins GOTOOLCHAIN %v, go.mod asks for Go %s", mk, want)
	}
	ci := regexp.MustCompile(`GOTOOLCHAIN="\$\{GOTOOLCHAIN:-go(\d+\.\d+\.\d+)\}"`).FindStringSubmatch(read(t, "../.ci/run"))
	mkFull := regexp.MustCompile(`(?m)^export GOTOOLCHAIN \?= go(\S+)$`).FindStringSubmatch(read(t, "../Makefile"))
	if ci == nil || mkFull == nil || ci[1] != mkFull[1] {
		t.Errorf(".ci/run pins GOTOOLCHAIN %v, the Makefile %v", ci, mkFull)
	}
}

func TestKoConfig(t *testing.T) {
	var ko struct {
		DefaultBaseImage string `yaml:"defaultBaseImage"`
		Builds           []struct {
			Main    string   `yaml:"main"`
			Env     []string `yaml:"env"`
			Flags   []string `yaml:"flags"`
			Ldflags []string `yaml:"ldflags"`
		} `yaml:"builds"`
	}
	if err := yaml.Unmarshal([]byte(read(t, ".ko.yaml")), &ko); err != nil {
		t.Fatal(err)
	}
	if len(ko.Builds) != 1 || ko.Builds[0].Main != "./cmd/agentgate" {
		t.Fatalf("builds: %+v", ko.Builds)
	}
	b := ko.Builds[0]
	ld := regexp.MustCompile(`\{\{\.Env\.(\w+)\}\}`).ReplaceAllString(strings.Join(b.Ldflags, " "), "$$$1")
	got := strings.Join(b.Flags, " ") + ` -ldflags "` + ld + `"`
	if want := makefileFlags(t); got != want || !strings.Contains(strings.Join(b.Env, " "), "CGO_ENABLED=0") {
		t.Errorf("ko builds with %q (env %v), the Makefile with %q", got, b.Env, want)
	}
}

func TestCompose(t *testing.T) {
	var compose struct {
		Services map[string]struct {
			Command any      `yaml:"command"`
			Volumes []string `yaml:"volumes"`
			Secrets []string `yaml:"secrets"`
			Build   any      `yaml:"build"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal([]byte(read(t, "compose.yaml")), &compose); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"n1", "n2", "n3"} {
		s, ok := compose.Services[n]
		if !ok {
			t.Fatalf("no service %s", n)
		}
		mounts := strings.Join(s.Volumes, " ")
		for _, f := range []string{"./nats/" + n + ".conf", "./nats/auth.conf", "./nats/certs"} {
			if !strings.Contains(mounts, f) {
				t.Errorf("%s does not mount %s", n, f)
			}
			if _, err := os.Stat(strings.TrimPrefix(f, "./")); err != nil && !strings.HasSuffix(f, "certs") {
				t.Errorf("%s mounts %s: %v", n, f, err)
			}
		}
	}
	gateways := 0
	for name, s := range compose.Services {
		if !strings.HasPrefix(name, "gateway") {
			continue
		}
		gateways++
		if err := apiSecured(toStrings(s.Command)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		cmd := strings.Join(toStrings(s.Command), " ")
		for _, want := range []string{"serve", "--server=nats://n1:4222,nats://n2:4222,nats://n3:4222", "--nkey=", "--tlsca=", "--stream-replicas=3"} {
			if !strings.Contains(cmd, want) {
				t.Errorf("%s: command %q lacks %s", name, cmd, want)
			}
		}
		if s.Build == nil || len(s.Secrets) == 0 {
			t.Errorf("%s: not built from the Dockerfile or no secrets", name)
		}
	}
	if gateways != 2 {
		t.Errorf("%d gateways, want 2", gateways)
	}
}

func toStrings(v any) []string {
	var out []string
	switch v := v.(type) {
	case string:
		out = append(out, v)
	case []any:
		for _, e := range v {
			out = append(out, e.(string))
		}
	}
	return out
}

// TestKubernetes checks every document of the manifests: its kind, and for
// the Deployment the probes on /healthz, resources, a non-root user and
// secrets that the manifests define.
func TestKubernetes(t *testing.T) {
	dec := yaml.NewDecoder(bytes.NewReader([]byte(read(t, "k8s/agentgate.yaml"))))
	secrets := map[string]bool{}
	var deployments []map[string]any
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if doc["apiVersion"] == nil || doc["kind"] == nil || dig(doc, "metadata", "name") == nil {
			t.Fatalf("document without apiVersion, kind or name: %v", doc)
		}
		switch doc["kind"] {
		case "Secret":
			secrets[dig(doc, "metadata", "name").(string)] = true
		case "Deployment":
			deployments = append(deployments, doc)
		}
	}
	if len(deployments) != 1 {
		t.Fatalf("%d deployments, want 1", len(deployments))
	}
	d := deployments[0]
	pod := dig(d, "spec", "template", "spec").(map[string]any)
	if dig(pod, "securityContext", "runAsNonRoot") != true {
		t.Error("pod may run as root")
	}
	c := pod["containers"].([]any)[0].(map[string]any)
	for _, probe := range []string{"readinessProbe", "livenessProbe"} {
		if dig(c, probe, "httpGet", "path") != "/healthz" {
			t.Errorf("%s is not on /healthz", probe)
		}
	}
	for _, r := range []string{"requests", "limits"} {
		if dig(c, "resources", r, "cpu") == nil || dig(c, "resources", r, "memory") == nil {
			t.Errorf("no resources.%s", r)
		}
	}
	var args []string
	for _, a := range c["args"].([]any) {
		args = append(args, a.(string))
	}
	if err := apiSecured(args); err != nil {
		t.Error(err)
	}
	env := map[string]bool{}
	for _, e := range c["env"].([]any) {
		env[e.(map[string]any)["name"].(string)] = true
	}
	for _, want := range []string{"AGENTGATE_SERVER", "AGENTGATE_NKEY", "AGENTGATE_TLSCA"} {
		if !env[want] {
			t.Errorf("no %s in the container's environment", want)
		}
	}
	for _, v := range pod["volumes"].([]any) {
		if name, ok := dig(v.(map[string]any), "secret", "secretName").(string); ok && !secrets[name] {
			t.Errorf("volume uses secret %s, which the manifests do not define", name)
		}
	}
}

// apiSecured reports a gateway command line whose HTTP API listens beyond
// loopback without tokens, which serve refuses (contract section 6.1).
func apiSecured(args []string) error {
	listen, tokens := "127.0.0.1:8080", false
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--http="); ok {
			listen = v
		}
		tokens = tokens || strings.HasPrefix(a, "--api-token-file=") || a == "--http-no-auth"
	}
	host, _, _ := strings.Cut(listen, ":")
	if host != "127.0.0.1" && host != "localhost" && !tokens {
		return fmt.Errorf("the API listens on %s without --api-token-file: serve refuses to start", listen)
	}
	return nil
}

func dig(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// TestBuild builds the binary with the Makefile's (and so the
// Dockerfile's) flags and checks it is static and reports the version
// and commit it was stamped with. -trimpath recompiles every dependency
// (minutes on a busy 2-core box), so it runs with AGENTGATE_TEST_BUILD=1
// (make test-build).
func TestBuild(t *testing.T) {
	if os.Getenv("AGENTGATE_TEST_BUILD") != "1" {
		t.Skip("set AGENTGATE_TEST_BUILD=1 (make test-build) to compile agentgate with the release flags")
	}
	flags := strings.NewReplacer("$VERSION", "v9.9.9-test", "$COMMIT", "0123abc").Replace(makefileFlags(t))
	ld := regexp.MustCompile(`-ldflags "(.*)"`).FindStringSubmatch(flags)
	args := []string{"build", strings.Fields(flags)[0], "-ldflags", ld[1], "-o", filepath.Join(t.TempDir(), "agentgate"), "./cmd/agentgate"}
	cmd := exec.Command("go", args...)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %v: %v\n%s", args, err, out)
	}
	bin := args[len(args)-2]
	out, err := exec.Command(bin, "version").Output()
	if err != nil || !strings.Contains(string(out), "v9.9.9-test") || !strings.Contains(string(out), "0123abc") {
		t.Fatalf("agentgate version: %q, %v", out, err)
	}
	if runtime.GOOS == "linux" {
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Error("the binary is dynamically linked")
			}
		}
	}
}
