package depguard

import (
	"slices"
	"testing"
)

// The module's own packages keep every rule.
func TestModule(t *testing.T) {
	pkgs, err := Load("../..")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("listed %d packages: the guard is not reading the module", len(pkgs))
	}
	for _, v := range Check(pkgs, Rules) {
		t.Error(v)
	}
}

// testdata/violation breaks the rules on purpose, through real imports:
// the guard must catch every break, and nothing else.
func TestViolation(t *testing.T) {
	pkgs, err := Load("testdata/violation")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range Check(pkgs, Rules) {
		got = append(got, v.String())
	}
	slices.Sort(got)
	want := []string{
		"handlers imports subjects (rule: a stage knows nothing of the bus)",
		"registry imports handlers (rule: the registry does not import the pipeline)",
		"router imports (its doc comment does not say what it must not import) (rule: doc)",
		"schemas imports github.com/kaptinlin/jsonschema (rule: the validator lives behind one seam)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%q\nwant:\n%q", got, want)
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		pkg  Package
		want []string
	}{
		{"a stage importing Watermill",
			Package{Path: "handlers/normalize", Doc: "It must never import the bus.", Deps: []string{"encoding/json", "github.com/ThreeDotsLabs/watermill/message"}},
			[]string{"handlers/normalize imports github.com/ThreeDotsLabs/watermill/message (rule: a stage knows nothing of the bus)"}},
		{"a stage reaching nats.go through subjects",
			Package{Path: "handlers", Doc: "It never imports the bus.", Deps: []string{"github.com/nats-io/nats.go/jetstream", "subjects"}},
			[]string{"handlers imports github.com/nats-io/nats.go/jetstream (rule: a stage knows nothing of the bus)",
				"handlers imports subjects (rule: a stage knows nothing of the bus)"}},
		{"the registry importing the pipeline",
			Package{Path: "registry", Doc: "It must not import the pipeline.", Deps: []string{"github.com/nats-io/nats.go", "handlers"}},
			[]string{"registry imports handlers (rule: the registry does not import the pipeline)"}},
		{"subject names importing nats.go",
			Package{Path: "subjects", Doc: "It imports only the standard library.", Deps: []string{"github.com/nats-io/nats.go"}},
			[]string{"subjects imports github.com/nats-io/nats.go (rule: subject names are strings, with no client behind them)"}},
		{"the wire types importing a package of the module",
			Package{Path: "contract", Doc: "It imports only the standard library.", Deps: []string{"encoding/json", "schemas"}},
			[]string{"contract imports schemas (rule: the wire types depend on nothing of agentgate's)"}},
		{"a package importing kaptinlin/jsonschema itself",
			Package{Path: "handlers/validate", Doc: "It must never import the bus.",
				Deps:    []string{"github.com/kaptinlin/jsonschema", "schemas", "schemas/validator"},
				Imports: []string{"github.com/kaptinlin/jsonschema", "schemas"}},
			[]string{"handlers/validate imports github.com/kaptinlin/jsonschema (rule: the validator lives behind one seam)"}},
		{"reaching kaptinlin/jsonschema through the validator",
			Package{Path: "schemas", Doc: "It must never import the bus.",
				Deps:    []string{"github.com/kaptinlin/jsonschema", "github.com/kaptinlin/jsonschema/pkg/tagparser", "schemas/validator"},
				Imports: []string{"github.com/kaptinlin/jsonpointer", "schemas/validator"}}, nil},
		{"the validator imports kaptinlin/jsonschema",
			Package{Path: "schemas/validator", Doc: "It must never import schemas.",
				Deps:    []string{"github.com/kaptinlin/jsonschema"},
				Imports: []string{"github.com/kaptinlin/jsonschema"}}, nil},
		{"a clean stage", Package{Path: "handlers/jsontext", Doc: "It must never import the bus.", Deps: []string{"encoding/json", "unicode/utf8"}}, nil},
		{"text recovery importing the decision",
			Package{Path: "handlers/jsontext", Doc: "It must never import handlers.", Deps: []string{"contract", "handlers"}},
			[]string{"handlers/jsontext imports handlers (rule: text recovery and normalization know nothing of the decision)"}},
		{"text recovery reading a schema",
			Package{Path: "handlers/jsontext", Doc: "It must never import handlers.", Deps: []string{"contract", "schemas"}},
			[]string{"handlers/jsontext imports schemas (rule: text recovery works on text alone, with no schema)"}},
		{"normalization importing the decision and the registry's schemas",
			Package{Path: "handlers/normalize", Doc: "It must never import handlers.", Deps: []string{"contract", "handlers", "schemas"}},
			[]string{"handlers/normalize imports handlers (rule: text recovery and normalization know nothing of the decision)",
				"handlers/normalize imports schemas (rule: normalization reads schemas through its Resolver, not the registry, and never text)"}},
		{"a stage below handlers may import contract", Package{Path: "handlers/normalize", Doc: "It must never import handlers.", Deps: []string{"contract", "internal/jsonx"}}, nil},
		{"the bus wiring may import the bus",
			Package{Path: "router", Doc: "It must not import the gateway.", Deps: []string{"github.com/ThreeDotsLabs/watermill/message", "handlers", "subjects"}}, nil},
		{"a command needs no import rule", Package{Path: "cmd/agentgate", Command: true, Deps: []string{"gateway"}}, nil},
		{"a library package whose doc is silent on imports",
			Package{Path: "dlq", Doc: "Package dlq owns dead letters."},
			[]string{"dlq imports (its doc comment does not say what it must not import) (rule: doc)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The module: the package itself and the ones it names.
			pkgs := []Package{tt.pkg}
			for _, p := range []string{"handlers", "subjects", "schemas", "gateway"} {
				if p != tt.pkg.Path {
					pkgs = append(pkgs, Package{Path: p, Command: true})
				}
			}
			var got []string
			for _, v := range Check(pkgs, Rules) {
				got = append(got, v.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("violations:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
}
