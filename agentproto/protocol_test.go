package agentproto_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentgate/agentgate/agentproto"
)

func TestParseEnvelope(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		given      string
		wantPrompt string
		wantAtt    int
		wantErr    bool
	}{
		{"plain text", "summarize the report", "summarize the report", 0, false},
		{"text that starts with a bracket", "[draft] summarize", "[draft] summarize", 0, false},
		{"JSON envelope", `{"prompt":"summarize"}`, "summarize", 0, false},
		{"leading whitespace then JSON", " \n\t{\"prompt\":\"x\"}", "x", 0, false},
		{"attachments", `{"prompt":"x","attachments":[{"filename":"a","content":"YQ=="}]}`, "x", 1, false},
		{"empty", "", "", 0, true},
		{"bad JSON", `{"prompt":`, "", 0, true},
		{"prompt not a string", `{"prompt":42}`, "", 0, true},
		{"no prompt", `{"text":"x"}`, "", 0, true},
		{"empty prompt", `{"prompt":""}`, "", 0, true},
		{"attachments not an array", `{"prompt":"x","attachments":{}}`, "", 0, true},
		{"attachment without a filename", `{"prompt":"x","attachments":[{"content":"YQ=="}]}`, "", 0, true},
		{"attachment content not a string", `{"prompt":"x","attachments":[{"filename":"a","content":7}]}`, "", 0, true},
		{"attachment content URL-safe base64", `{"prompt":"x","attachments":[{"filename":"a","content":"-_8="}]}`, "", 0, true},
		{"attachment content unpadded", `{"prompt":"x","attachments":[{"filename":"a","content":"YQ"}]}`, "", 0, true},
		{"attachment content with a line break", `{"prompt":"x","attachments":[{"filename":"a","content":"YWJj\nZGVm"}]}`, "", 0, true},
		{"not UTF-8", "\xff\xfe", "", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env, err := agentproto.ParseEnvelope([]byte(tt.given))
			if tt.wantErr {
				if !errors.Is(err, agentproto.ErrBadEnvelope) {
					t.Fatalf("err = %v, want ErrBadEnvelope", err)
				}
				return
			}
			if err != nil || env.Prompt != tt.wantPrompt || len(env.Attachments) != tt.wantAtt {
				t.Fatalf("got %+v, %v", env, err)
			}
		})
	}
}

// TestEnvelope_preservesUnknownMembers: relaying keeps every member
// (section 5.6) and replaces only the prompt.
func TestEnvelope_preservesUnknownMembers(t *testing.T) {
	t.Parallel()
	env, err := agentproto.ParseEnvelope([]byte(`{"prompt":"a","trace":{"id":7},"attachments":[{"filename":"f","content":"YQ==","x":1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	env.Prompt = "a <b>"
	var got map[string]any
	if err := json.Unmarshal(env.Encode(), &got); err != nil {
		t.Fatal(err)
	}
	att := got["attachments"].([]any)[0].(map[string]any)
	if got["prompt"] != "a <b>" || got["trace"].(map[string]any)["id"] != float64(7) || att["x"] != float64(1) {
		t.Errorf("encoded %v", got)
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		given   string
		want    int64
		wantErr bool
	}{
		{"1MB", 1 << 20, false}, {"512KB", 512 << 10, false}, {"4GB", 4 << 30, false}, {"100B", 100, false},
		{"0MB", 0, true}, {"-1KB", 0, true}, {"1 MB", 0, true}, {"1mb", 0, true}, {"MB", 0, true}, {"", 0, true}, {"1.5MB", 0, true},
	}
	for _, tt := range tests {
		got, err := agentproto.ParseSize(tt.given)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v", tt.given, got, err)
		}
	}
	for _, n := range []int64{1, 1023, 1024, 1<<20 - 1, 1 << 20, 3 << 30} {
		if got, err := agentproto.ParseSize(agentproto.FormatSize(n)); err != nil || got != n {
			t.Errorf("FormatSize(%d) = %q reads back as %d, %v", n, agentproto.FormatSize(n), got, err)
		}
	}
}

func TestResponseText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		given, want string
		wantErr     bool
	}{
		{`"Hello"`, "Hello", false},
		{`{"text":"Hello","attachments":[],"more":1}`, "Hello", false},
		{`{"attachments":[]}`, "", true},
		{`42`, "", true},
	}
	for _, tt := range tests {
		got, err := agentproto.ResponseText(json.RawMessage(tt.given))
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ResponseText(%s) = %q, %v", tt.given, got, err)
		}
	}
}
