package handlers_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/schemas"
)

// Contract section 9: a tool_or_answer blueprint takes a tool call whose
// args match the tool's schema, or an answer, and nothing else.
func TestReplyCheck_toolOrAnswer(t *testing.T) {
	t.Parallel()
	reg, err := schemas.Load("../examples")
	if err != nil {
		t.Fatal(err)
	}
	bp, ok := reg.Blueprint("repo-assistant")
	if !ok || bp.Reply != schemas.ReplyToolOrAnswer {
		t.Fatal("no tool_or_answer example blueprint")
	}
	readFile := "urn:agentgate:inline:repo-assistant/tools/read_file"
	reply := "urn:agentgate:inline:repo-assistant"
	tests := []struct {
		name       string
		given      string
		wantValid  bool
		wantSchema string
		wantData   string   // compact JSON, when valid
		wantOps    []string // op@path
		wantViol   []string // path keyword
	}{
		{"tool call", `{"tool":"read_file","args":{"path":"main.go"}}`, true, readFile,
			`{"args":{"path":"main.go"},"tool":"read_file"}`, nil, nil},
		{"tool call normalized under $.args", `{"tool":"read_file","args":{"file":"main.go","start_line":"3","junk":1}}`, true, readFile,
			`{"args":{"path":"main.go","start_line":3},"tool":"read_file"}`,
			[]string{"rename@$.args", "strip@$.args.junk", "coerce@$.args.start_line"}, nil},
		{"tool call in a wrapper", `<tool_call>{"tool":"search_code","args":{"query":"x"}}</tool_call>`, true,
			"urn:agentgate:inline:repo-assistant/tools/search_code", `{"args":{"query":"x"},"tool":"search_code"}`,
			[]string{"extract@$"}, nil},
		{"answer", `{"answer":"In gate.go."}`, true, reply, `{"answer":"In gate.go."}`, nil, nil},
		{"unknown tool", `{"tool":"rm","args":{}}`, false, reply, "", nil, []string{"$.tool enum"}},
		{"args violations under $.args", `{"tool":"read_file","args":{"start_line":0}}`, false, readFile, "", nil,
			[]string{"$.args.path required", "$.args.start_line minimum"}},
		{"tool and answer together", `{"tool":"read_file","args":{"path":"x"},"answer":"y"}`, false, reply, "", nil, []string{"$ oneOf"}},
		{"answer not a string", `{"answer":42}`, false, reply, "", nil, []string{"$.answer type"}},
		{"not an object", `["read_file"]`, false, reply, "", nil, []string{"$ oneOf"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, schemaID := handlers.ReplyCheck([]byte(tt.given), bp, handlers.CheckOptions{Coerce: true})
			if v.Valid != tt.wantValid || schemaID != tt.wantSchema {
				t.Fatalf("valid %v schema %q, want %v %q; violations %v", v.Valid, schemaID, tt.wantValid, tt.wantSchema, v.Violations)
			}
			if tt.wantValid {
				b, _ := json.Marshal(v.Data)
				if string(b) != tt.wantData {
					t.Errorf("data = %s, want %s", b, tt.wantData)
				}
			}
			var ops, viol []string
			for _, n := range v.Normalizations {
				ops = append(ops, n.Op+"@"+n.Path)
			}
			for _, x := range v.Violations {
				viol = append(viol, x.Path+" "+x.Keyword)
			}
			if strings.Join(ops, ",") != strings.Join(tt.wantOps, ",") || strings.Join(viol, ",") != strings.Join(tt.wantViol, ",") {
				t.Errorf("ops %v violations %v; want %v %v", ops, viol, tt.wantOps, tt.wantViol)
			}
		})
	}

	// The retry prompt shows what is accepted: one branch per tool and the
	// answer.
	g := newGate(t, 0, 0)
	d := g.Decide(env("agent.output.raw.repo-assistant", `{"tool":"rm","args":{}}`, "Run-Id", "r"), nil)
	var ev contract.RetryEvent
	if err := json.Unmarshal(d.Payload, &ev); err != nil || d.Outcome != contract.OutcomeRetry {
		t.Fatalf("decision %s: %s", d.Outcome, d.Payload)
	}
	for _, want := range []string{`"const": "read_file"`, `"const": "search_code"`, `"answer"`, `- $.tool: got "rm", expected one of "read_file", "search_code"`} {
		if !strings.Contains(ev.RetryPrompt, want) {
			t.Errorf("retry prompt lacks %s:\n%s", want, ev.RetryPrompt)
		}
	}
}
