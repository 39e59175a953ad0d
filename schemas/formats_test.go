package schemas_test

import (
	"fmt"
	"testing"
)

func TestValidate_formats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		format string
		value  string
		valid  bool
	}{
		{"date-time", "2026-11-22T10:00:00Z", true},
		{"date-time", "2026-11-22 10:00", false},
		{"date", "2026-02-28", true},
		{"date", "2026-02-30", false},
		{"time", "10:00:00+01:00", true},
		{"time", "25:00:00Z", false},
		{"duration", "P1DT2H", true},
		{"duration", "1 day", false},
		{"email", "dev@agentgate.dev", true},
		{"email", "dev.agentgate.dev", false},
		{"idn-email", "用户@例子.广告", true},
		{"idn-email", "no-at-sign", false},
		{"hostname", "api.agentgate.dev", true},
		{"hostname", "a.-bad.dev", false},
		{"idn-hostname", "例子.广告", true},
		{"idn-hostname", "bad_label.dev", false},
		{"ipv4", "192.168.0.1", true},
		{"ipv4", "256.1.1.1", false},
		{"ipv6", "::1", true},
		{"ipv6", "12345::", false},
		{"uri", "https://agentgate.dev/x?y=1", true},
		{"uri", "/relative/path", false},
		{"uri-reference", "../relative", true},
		{"uri-reference", `back\slash`, false},
		{"iri", "https://例子.广告/路径", true},
		{"iri", "relative", false},
		{"iri-reference", "路径", true},
		{"uri-template", "https://agentgate.dev/{id}", true},
		{"uri-template", "https://agentgate.dev/{id", false},
		{"uuid", "123e4567-e89b-12d3-a456-426614174000", true},
		{"uuid", "123e4567", false},
		{"regex", "^[a-z]+$", true},
		{"regex", "(unclosed", false},
		{"json-pointer", "/a/b~1c", true},
		{"json-pointer", "a/b", false},
		{"relative-json-pointer", "1/a", true},
		{"relative-json-pointer", "/a", false},
		// Corrections of kaptinlin's validators (validator/formats.go, validator/formats_uri.go),
		// and cases its validators got wrong before v0.9.10.
		{"hostname", "example.com.", false},
		{"hostname", "xn--bcher-kva.example", true},
		{"hostname", "xn--7a.example", false}, // decodes to U+00A1, DISALLOWED
		{"hostname", "ab--c.example", false},
		{"idn-hostname", "bücher.example", true},
		{"idn-hostname", "l·l", true},
		{"idn-hostname", "a·l", false},
		{"idn-hostname", "・abc", false},
		{"idn-hostname", "example.", false},
		{"uri", "https://example.org/foo bar", false},
		{"uri", `https://example.org/a\b`, false},
		{"uri", "http://[v1.fe]/", true},
		{"uri-reference", "/a\"b", false},
		{"uri", "https://a@b@example.org/", false},
		{"uri-reference", "//a@b@example.org", false},
		{"iri", "https://a@b@例子.广告/", false},
		{"iri-reference", "//a@b@例子.广告", false},
		{"uri", "mailto:a@b.example", true},
		{"uri", "https://user:pw@example.org/a@b?c@d#e@f", true},
		{"uri-template", "{#var}", true},
		{"uri-template", "{var=def}", false},
		{"ipv4", "+1.2.3.4", false},
		{"ipv4", "01.2.3.4", false},
		{"regex", "(?<=a)b", true},
		{"regex", "^(?=\\d)\\w+$", true},
		{"regex", "(?i)abc", false},
		{"regex", "\\a", false},
		{"regex", "(?P<n>x)", false},
		// Formats no draft defines are annotations: never asserted.
		{"int32", "not a number", true},
		{"float", "x", true},
		{"url", "not a url", true},
		{"period", "nonsense", true},
		{"my-own-format", "anything", true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s", tt.format, tt.value), func(t *testing.T) {
			t.Parallel()
			s := compileSchema(t, fmt.Sprintf(`{"properties": {"v": {"format": %q}}}`, tt.format))
			vs := s.Validate(map[string]any{"v": tt.value})
			if tt.valid && vs != nil {
				t.Errorf("%q rejected as %s: %+v", tt.value, tt.format, vs)
			}
			if !tt.valid {
				if len(vs) != 1 || vs[0].Keyword != "format" || vs[0].Path != "$.v" || vs[0].Expected != tt.format {
					t.Errorf("%q accepted as %s (violations %+v)", tt.value, tt.format, vs)
				}
			}
		})
	}
}

// TestValidate_formatOnOtherTypes checks that formats apply to strings only.
func TestValidate_formatOnOtherTypes(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, `{"properties": {"a": {"format": "email"}, "b": {"format": "int32"}}}`)
	if vs := s.Validate(decode(t, `{"a": 5, "b": 5.5}`)); vs != nil {
		t.Errorf("violations %+v", vs)
	}
}

// TestValidate_unknownFormatDraft07 checks an unknown format in a draft-07
// schema, nested in definitions.
func TestValidate_unknownFormatDraft07(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, `{"$schema": "http://json-schema.org/draft-07/schema#",
		"properties": {"n": {"$ref": "#/definitions/n"}}, "definitions": {"n": {"type": "string", "format": "float"}}}`)
	if vs := s.Validate(decode(t, `{"n": "abc"}`)); vs != nil {
		t.Errorf("violations %+v", vs)
	}
}
