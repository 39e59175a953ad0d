package schemas_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentgate/agentgate/schemas"
)

// inlineDifferencesFile names the suite tests whose verdict through an
// inline blueprint schema differs from the registry path's, with why.
var inlineDifferencesFile = filepath.Join("testdata", "conformance_inline_differences.json")

// TestConformance_inlineMatchesRegistry runs every required test of the
// JSON Schema test suite for draft-07 and draft 2020-12 twice: through the
// registry's compile path (CompileStandalone, as TestConformance) and as
// the inline output_schema of a blueprint, loaded as any configuration is
// (the schema's own $id, $anchors and $dynamicAnchors, the boolean schemas
// true and false). Both must give the same verdict on every test, apart
// from those named in testdata/conformance_inline_differences.json; a
// listed test that agrees again fails the test too. The suite's remotes/
// are served from memory to both paths; nothing is fetched. Reproduce the
// figures with
//
//	go test -v -run TestConformance_inlineMatchesRegistry ./schemas/
func TestConformance_inlineMatchesRegistry(t *testing.T) {
	if _, err := os.Stat(filepath.Join(suiteDir, "tests")); err != nil {
		t.Skipf("JSON-Schema-Test-Suite not found at %s (the shared testdata folder beside the repository): %v", suiteDir, err)
	}
	allRemotes := suiteRemotes(t)
	listed := readInlineDifferences(t)
	seen := make(map[string]bool)
	for _, d := range suiteDrafts {
		remotes := make(map[string][]byte, len(allRemotes))
		for url, doc := range allRemotes {
			if strings.HasPrefix(url, suiteRemoteBase+d.dir+"/") {
				doc = withDialect(doc, d.schemaURI)
			}
			remotes[url] = doc
		}
		files, err := filepath.Glob(filepath.Join(suiteDir, "tests", d.dir, "*.json"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no suite files for %s: %v", d.dir, err)
		}
		var total, same, differ, inlinePassed, registryPassed, inlineLoadFailed int
		for _, file := range files {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var groups []suiteGroup
			if err := json.Unmarshal(raw, &groups); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			prefix := d.dir + "/" + filepath.Base(file)
			for _, g := range groups {
				schema := withDialect(g.Schema, d.schemaURI)
				regSchema, regErr := schemas.CompileStandalone(schema, remotes)
				inSchema, inErr := inlineSuiteSchema(schema, remotes)
				if inErr != nil {
					inlineLoadFailed++
				}
				for _, tc := range g.Tests {
					name := prefix + ": " + g.Description + ": " + tc.Description
					seen[name] = true
					total++
					reg := regErr == nil && len(regSchema.Validate(decodeSuite(t, tc.Data))) == 0
					in := inErr == nil && len(inSchema.Validate(decodeSuite(t, tc.Data))) == 0
					if reg == tc.Valid {
						registryPassed++
					}
					if in == tc.Valid {
						inlinePassed++
					}
					switch {
					case reg == in && listed[name] != "":
						t.Errorf("listed difference now agrees, remove it from %s: %s", inlineDifferencesFile, name)
						same++
					case reg == in:
						same++
					case listed[name] != "":
						differ++
					default:
						differ++
						t.Errorf("DIFFER %s\n\tregistry valid=%v (load error %v), inline valid=%v (load error %v), suite says %v",
							name, reg, regErr, in, inErr, tc.Valid)
					}
				}
			}
		}
		t.Logf("%s required: %d tests; same verdict on both paths %d, listed differences %d; suite agreement: registry path %d (%.1f%%), inline path %d (%.1f%%); inline schemas that did not load: %d",
			d.dir, total, same, differ, registryPassed, pct(registryPassed, total), inlinePassed, pct(inlinePassed, total), inlineLoadFailed)
	}
	for _, name := range slices.Sorted(maps.Keys(listed)) {
		if !seen[name] {
			t.Errorf("%s lists %q, which is not a required test of the suite", inlineDifferencesFile, name)
		}
	}
}

// inlineSuiteSchema loads schema as the inline output_schema of a
// blueprint and returns it.
func inlineSuiteSchema(schema []byte, remotes map[string][]byte) (*schemas.Schema, error) {
	bp := `{"name": "suite", "output_schema": ` + string(schema) + `}`
	r, err := schemas.LoadFSWithRemotes(fstest.MapFS{"agents/suite.json": {Data: []byte(bp)}}, remotes)
	if err != nil {
		return nil, err
	}
	b, _ := r.Blueprint("suite")
	return b.OutputSchema, nil
}

// readInlineDifferences reads inlineDifferencesFile: test name to why.
func readInlineDifferences(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(inlineDifferencesFile)
	if err != nil {
		t.Fatal(err)
	}
	var list []struct {
		Tests []string `json:"tests"`
		Why   string   `json:"why"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatalf("%s: %v", inlineDifferencesFile, err)
	}
	out := make(map[string]string)
	for _, e := range list {
		for _, name := range e.Tests {
			out[name] = e.Why
		}
	}
	return out
}

func pct(n, total int) float64 { return 100 * float64(n) / float64(max(total, 1)) }
