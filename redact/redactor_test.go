package redact_test

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/handlers"
	"github.com/agentgate/agentgate/redact"
	"github.com/agentgate/agentgate/schemas"
)

// Secrets in the outputs below; none may survive redaction. (The age, 87,
// could occur in a timestamp: its masking is checked by "age":"[redacted]".)
var secrets = []string{"123-45-6789", "12-34", "4111111111111111", "5500000000000004", "tok-very-secret"}

// decide runs a raw output of account-agent through the real pipeline and
// returns the outcome message the gateway would publish.
func decide(t *testing.T, reg *schemas.Registry, payload string, attempt int) []byte {
	t.Helper()
	gate, err := handlers.NewGate(handlers.GateConfig{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	d := gate.Decide(handlers.Envelope{
		Agent:   "account-agent",
		Headers: map[string][]string{contract.HeaderRunID: {"r"}, contract.HeaderAttempt: {strconv.Itoa(attempt)}},
		Payload: []byte(payload),
	}, nil)
	return d.Payload
}

func TestRedactor_Outcome(t *testing.T) {
	reg, err := schemas.Load("testdata/sensitive")
	if err != nil {
		t.Fatal(err)
	}
	r := redact.New(reg)
	tests := []struct {
		name     string
		payload  string
		attempt  int
		wantKeep []string // non-sensitive content that must stay
		wantMask []string // JSON fragments that must be there
	}{
		{"valid result",
			`{"name":"Ada","ssn":"123-45-6789","age":"87","cards":[{"label":"Visa","number":"4111111111111111"},{"label":"MC","number":"5500000000000004"}],"integration":{"kind":"api","token":"tok-very-secret"}}`,
			1, []string{`"Ada"`, `"Visa"`, `"MC"`, `"kind":"api"`, `"op":"coerce"`},
			[]string{`"ssn":"[redacted]"`, `"number":"[redacted]"`, `"token":"[redacted]"`, `"age":"[redacted]"`, `"from":"[redacted]"`}},
		{"retry request",
			"Here you go:\n```json\n" + `{"name":"Ada","ssn":"12-34","cards":[{"label":"Visa","number":"4111111111111111"}],"integration":{"kind":"api","token":"tok-very-secret"}}` + "\n```",
			1, []string{`"path":"$.ssn"`, `"keyword":"pattern"`},
			[]string{`"received":"[redacted]"`, `"raw_output":"[redacted]"`, `"retry_prompt":"[redacted]`}},
		{"wrong root type: the whole document received at $",
			`[{"name":"Ada","ssn":"123-45-6789","cards":[{"label":"Visa","number":"4111111111111111"}]}]`,
			1, []string{`"path":"$"`, `"keyword":"type"`},
			[]string{`"raw_output":"[redacted]"`}},
		{"dead letter",
			`{"name":"Ada","ssn":"12-34","cards":[{"label":"Visa","number":"4111111111111111"}]}`,
			2, []string{`"output_schema_validation_failed"`, `$.ssn: [redacted]`},
			[]string{`"payload":"[redacted]"`, `"received":"[redacted]"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := decide(t, reg, tt.payload, tt.attempt)
			out, err := r.Outcome(data)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(out) {
				t.Fatalf("not JSON: %s", out)
			}
			s := string(out)
			for _, secret := range secrets {
				if strings.Contains(string(data), secret) && strings.Contains(s, secret) {
					t.Errorf("%q survived:\n%s", secret, s)
				}
			}
			for _, want := range append(tt.wantKeep, tt.wantMask...) {
				if !strings.Contains(s, want) {
					t.Errorf("lacks %s:\n%s", want, s)
				}
			}
		})
	}

	// Agents whose schemas mark nothing are left exactly as they are.
	examples, err := schemas.Load("../examples")
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte(`{"event_type":"result","agent_id":"pr-reviewer","result_data":{"summary":"s"}}`)
	if out, err := redact.New(examples).Outcome(msg); err != nil || string(out) != string(msg) {
		t.Errorf("unmarked agent: %s, %v", out, err)
	}
}

// BenchmarkRedactor_Outcome: the cost a read token adds to GET /v1/runs
// for an agent with sensitive members.
func BenchmarkRedactor_Outcome(b *testing.B) {
	reg, err := schemas.Load("testdata/sensitive")
	if err != nil {
		b.Fatal(err)
	}
	gate, err := handlers.NewGate(handlers.GateConfig{Registry: reg})
	if err != nil {
		b.Fatal(err)
	}
	data := gate.Decide(handlers.Envelope{
		Agent:   "account-agent",
		Headers: map[string][]string{contract.HeaderRunID: {"r"}},
		Payload: []byte(`{"name":"Ada","ssn":"123-45-6789","cards":[{"label":"Visa","number":"4111111111111111"},{"label":"MC","number":"5500000000000004"}],"integration":{"kind":"api","token":"tok-very-secret"}}`),
	}, nil).Payload
	r := redact.New(reg)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := r.Outcome(data); err != nil {
			b.Fatal(err)
		}
	}
}

// A partial re-ask carries the previous attempt's document (partial.document):
// its sensitive members are masked like result_data's.
func TestRedactor_partialDocument(t *testing.T) {
	bp, err := os.ReadFile("testdata/sensitive/agents/account-agent.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := os.ReadFile("testdata/sensitive/schemas/account.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	partial := strings.Replace(string(bp), `"max_retries": 1,`, `"max_retries": 1, "retry": "partial",`, 1)
	reg, err := schemas.LoadFS(fstest.MapFS{
		"agents/account-agent.json":   {Data: []byte(partial)},
		"schemas/account.schema.json": {Data: sc},
	})
	if err != nil {
		t.Fatal(err)
	}
	msg := decide(t, reg, `{"name":7,"ssn":"123-45-6789","cards":[],"integration":{"kind":"api","token":"tok-very-secret"}}`, 1)
	if !strings.Contains(string(msg), `"partial"`) || !strings.Contains(string(msg), "123-45-6789") {
		t.Fatalf("not a partial re-ask holding the document: %s", msg)
	}
	out, err := redact.New(reg).Outcome(msg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets {
		if strings.Contains(string(out), s) {
			t.Errorf("%q survived redaction: %s", s, out)
		}
	}
}
