package schemas_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/schemas"
)

// suiteDir is the JSON-Schema-Test-Suite (MIT), in the shared folder beside
// the repository.
var suiteDir = filepath.Join("..", "..", "shared", "testdata", "json-schema-test-suite")

// suiteRemoteBase is the URL the suite's remotes/ folder is served under.
const suiteRemoteBase = "http://localhost:1234/"

// knownFailuresFile lists the suite tests agentgate is known to fail.
var knownFailuresFile = filepath.Join("testdata", "conformance_known_failures.json")

// knownFailure is one entry of knownFailuresFile: the tests it covers
// ("<draft>/<file>: <schema description>: <test description>"), what kind
// of failure it is, the upstream defect behind them (file and line in
// kaptinlin/jsonschema v0.9.10) and why our layer does not correct it.
type knownFailure struct {
	Tests  []string `json:"tests"`
	Kind   string   `json:"kind"`
	Defect string   `json:"defect"`
	Why    string   `json:"why"`
}

// Kinds of known failures.
const (
	kindUpstream       = "upstream"        // a validator defect our layer cannot reach
	kindByDesign       = "by-design"       // agentgate deliberately differs (contract section 5)
	kindNotImplemented = "not-implemented" // optional/format only: a correction not written yet
)

// suiteGroup is one schema of a suite file with its tests.
type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

// suiteDraft is one draft of the suite and how a schema declares it.
type suiteDraft struct {
	dir       string // folder under tests/
	schemaURI string // $schema added to a root object that has none
}

var suiteDrafts = []suiteDraft{
	{"draft7", "http://json-schema.org/draft-07/schema#"},
	{"draft2020-12", "https://json-schema.org/draft/2020-12/schema"},
}

// suiteCounts are the figures of one part of one draft.
type suiteCounts struct {
	passed, known, failed, total int
	byKind                       map[string]int
}

// TestConformance runs every required test of the JSON Schema test suite
// for draft-07 and draft 2020-12, and the tests of optional/format with
// format assertion on (as the gateway asserts formats), through the
// registry's own compile and validation path: CompileStandalone uses the
// gateway's compiler, and a test passes when Schema.Validate (the contract's
// violation mapping included) returns no violation exactly for the valid
// instances. The suite's remotes/ are served from memory under
// http://localhost:1234/; nothing is fetched.
//
// Every test not listed in testdata/conformance_known_failures.json must
// pass, and every listed test must still fail, so that the list stays
// honest. The counts per draft are logged (go test -v -run TestConformance).
func TestConformance(t *testing.T) {
	if _, err := os.Stat(filepath.Join(suiteDir, "tests")); err != nil {
		t.Skipf("JSON-Schema-Test-Suite not found at %s (the shared testdata folder beside the repository): %v", suiteDir, err)
	}
	allRemotes := suiteRemotes(t)
	known := readKnownFailures(t)
	listed := make(map[string]string) // test name to kind
	for _, k := range known {
		for _, name := range k.Tests {
			if listed[name] != "" {
				t.Errorf("%s: %q is listed twice", knownFailuresFile, name)
			}
			if k.Kind == kindNotImplemented && !strings.Contains(name, "/optional/format/") {
				t.Errorf("%s: %q: a required test cannot be %s", knownFailuresFile, name, kindNotImplemented)
			}
			listed[name] = k.Kind
		}
	}

	seen := make(map[string]bool)
	for _, d := range suiteDrafts {
		// The remotes of the draft's own folder are written in that draft
		// and, like the tests, leave $schema out.
		remotes := make(map[string][]byte, len(allRemotes))
		for url, doc := range allRemotes {
			if strings.HasPrefix(url, suiteRemoteBase+d.dir+"/") {
				doc = withDialect(doc, d.schemaURI)
			}
			remotes[url] = doc
		}
		for _, part := range []string{"", "optional/format"} {
			counts := runSuitePart(t, d, part, remotes, listed, seen)
			label := "required"
			if part != "" {
				label = part + " (format assertion on)"
			}
			t.Logf("%s %s: %d passed, %d known failures (%d upstream, %d by design, %d not implemented), %d total (%.1f%% passed)",
				d.dir, label, counts.passed, counts.known, counts.byKind[kindUpstream], counts.byKind[kindByDesign],
				counts.byKind[kindNotImplemented], counts.total, 100*float64(counts.passed)/float64(max(counts.total, 1)))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(listed)) {
		if !seen[name] {
			t.Errorf("%s lists %q, which is not a test of the suite", knownFailuresFile, name)
		}
	}
}

// runSuitePart runs the .json files of tests/<draft>/<part>.
func runSuitePart(t *testing.T, d suiteDraft, part string, remotes map[string][]byte, listed map[string]string, seen map[string]bool) suiteCounts {
	t.Helper()
	dir := filepath.Join(suiteDir, "tests", d.dir, filepath.FromSlash(part))
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no suite files in %s: %v", dir, err)
	}
	c := suiteCounts{byKind: make(map[string]int)}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var groups []suiteGroup
		if err := json.Unmarshal(raw, &groups); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		prefix := path.Join(d.dir, part, filepath.Base(file))
		for _, g := range groups {
			s, compileErr := schemas.CompileStandalone(withDialect(g.Schema, d.schemaURI), remotes)
			for _, tc := range g.Tests {
				name := prefix + ": " + g.Description + ": " + tc.Description
				if seen[name] {
					t.Fatalf("two suite tests are named %q", name)
				}
				seen[name] = true
				c.total++
				var got bool
				var why string
				if compileErr != nil {
					why = "schema did not load: " + compileErr.Error()
				} else {
					vs := s.Validate(decodeSuite(t, tc.Data))
					got = len(vs) == 0
					if !got {
						why = fmt.Sprintf("violations %+v", vs)
					}
				}
				switch {
				case got == tc.Valid && listed[name] != "":
					t.Errorf("known failure now passes, remove it from %s: %s", knownFailuresFile, name)
				case got == tc.Valid:
					c.passed++
				case listed[name] != "":
					c.known++
					c.byKind[listed[name]]++
				default:
					c.failed++
					t.Errorf("FAIL %s\n\twant valid=%v: %s", name, tc.Valid, why)
				}
			}
		}
	}
	return c
}

// withDialect adds "$schema" to a root object that has none: the suite's
// draft folders leave it out, where an agentgate schema file names a draft
// other than the default 2020-12.
func withDialect(schema json.RawMessage, uri string) []byte {
	trimmed := bytes.TrimSpace(schema)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return trimmed
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &members); err != nil {
		return trimmed
	}
	if _, ok := members["$schema"]; ok {
		return trimmed
	}
	body := bytes.TrimSpace(trimmed[1:])
	sep := ", "
	if body[0] == '}' {
		sep = ""
	}
	return []byte(fmt.Sprintf(`{"$schema": %q%s%s`, uri, sep, body))
}

// suiteRemotes reads remotes/ into a map from URL to document.
func suiteRemotes(t *testing.T) map[string][]byte {
	t.Helper()
	root := filepath.Join(suiteDir, "remotes")
	out := make(map[string][]byte)
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		out[suiteRemoteBase+filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func readKnownFailures(t *testing.T) []knownFailure {
	t.Helper()
	raw, err := os.ReadFile(knownFailuresFile)
	if err != nil {
		t.Fatal(err)
	}
	var list []knownFailure
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&list); err != nil {
		t.Fatalf("%s: %v", knownFailuresFile, err)
	}
	for i, k := range list {
		if len(k.Tests) == 0 || k.Defect == "" || k.Why == "" {
			t.Errorf("%s: entry %d needs tests, defect and why", knownFailuresFile, i)
		}
		if k.Kind != kindUpstream && k.Kind != kindByDesign && k.Kind != kindNotImplemented {
			t.Errorf("%s: entry %d: kind %q, want %q, %q or %q", knownFailuresFile, i, k.Kind, kindUpstream, kindByDesign, kindNotImplemented)
		}
		if !slices.IsSorted(k.Tests) {
			t.Errorf("%s: entry %d: keep tests sorted", knownFailuresFile, i)
		}
	}
	return list
}

// decodeSuite decodes a test instance as the gateway decodes outputs.
func decodeSuite(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return v
}
