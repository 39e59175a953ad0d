package goschema_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/agentgate/agentgate/executor"
	"github.com/agentgate/agentgate/goschema"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/registry"
)

type Comment struct {
	Path     string `json:"path" aliases:"file,filename"`
	Line     int    `json:"line"`
	Severity string `json:"severity" jsonschema:"enum=nitpick,enum=suggestion,enum=blocker"`
}

type Review struct {
	Summary  string    `json:"summary" aliases:"overview" jsonschema:"description=What the change does"`
	Approve  bool      `json:"approve"`
	Comments []Comment `json:"comments" aliases:"line_comments"`
	Note     string    `json:"note,omitempty"`
}

const reviewID = "https://example.com/schemas/review/1.0.0"

func TestFor_aliasesAndLoad(t *testing.T) {
	t.Parallel()
	doc, err := goschema.For[Review](reviewID)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	if m["$id"] != reviewID || m["$schema"] != "https://json-schema.org/draft/2020-12/schema" || m["additionalProperties"] != false {
		t.Fatalf("head of the document: %s", doc)
	}
	props := m["properties"].(map[string]any)
	if got := props["summary"].(map[string]any)["x-aliases"]; fmt.Sprint(got) != "[overview]" {
		t.Fatalf("summary x-aliases = %v: %s", got, doc)
	}
	req := fmt.Sprint(m["required"])
	if req != "[summary approve comments]" {
		t.Fatalf("required = %s", req)
	}

	// The gateway's pipeline renames drifted names (at the root and in the
	// $defs item type) and the executor decodes the result into the type.
	reg, err := registry.Compile([][]byte{doc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := reg.Schema(reviewID)
	v := handlers.Check([]byte(`{"overview":"Adds a flag","approve":false,"line_comments":[{"file":"a.go","line":3,"severity":"blocker"}]}`),
		s, handlers.CheckOptions{Coerce: true})
	if !v.Valid {
		t.Fatalf("drifted output not valid: %+v", v.Violations)
	}
	data, _ := json.Marshal(v.Data)
	got, err := executor.DecodeAs[Review](&executor.Result{RunID: "r", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	want := Review{Summary: "Adds a flag", Comments: []Comment{{Path: "a.go", Line: 3, Severity: "blocker"}}}
	if got.Summary != want.Summary || !slices.Equal(got.Comments, want.Comments) {
		t.Fatalf("decoded %+v, want %+v", got, want)
	}
}

func TestFor_errors(t *testing.T) {
	t.Parallel()
	type Clash struct {
		A string `json:"a" aliases:"b"`
		B string `json:"b"`
	}
	tests := []struct {
		name string
		err  error
		call func() error
	}{
		{"not a struct", goschema.ErrNotStruct, func() error { _, err := goschema.For[[]int](reviewID); return err }},
		{"no version", registry.ErrInvalid, func() error { _, err := goschema.For[Review]("https://example.com/schemas/review"); return err }},
		{"alias collides", registry.ErrInvalid, func() error { _, err := goschema.For[Clash](reviewID); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := tt.call(); !errors.Is(err, tt.err) {
				t.Fatalf("error %v, want %v", err, tt.err)
			}
		})
	}
}

func TestDecodeAs_strict(t *testing.T) {
	t.Parallel()
	_, err := executor.DecodeAs[Comment](&executor.Result{RunID: "r", Data: []byte(`{"path":"a","line":1,"severity":"nitpick","extra":1}`)})
	if err == nil {
		t.Fatal("an unknown member decoded silently")
	}
	if _, err := executor.DecodeAs[Comment](&executor.Result{RunID: "r", Text: "free"}); err == nil {
		t.Fatal("a free-text result decoded")
	}
}

// A Go type as a registry schema: register the document For returns
// (POST /v1/schemas/{name}/versions or agentgate schema push).
func ExampleFor() {
	type Answer struct {
		Text       string  `json:"text" aliases:"answer,response"`
		Confidence float64 `json:"confidence" jsonschema:"minimum=0,maximum=1"`
	}
	doc, err := goschema.For[Answer]("https://example.com/schemas/answer/1.0.0")
	if err != nil {
		panic(err)
	}
	var m struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	_ = json.Unmarshal(doc, &m)
	fmt.Println(m.Properties["text"]["x-aliases"])
	// Output: [answer response]
}
