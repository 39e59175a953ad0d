package schemas_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/schemas"
)

// TestValidate_ecmaPatterns checks that a pattern Go's RE2 cannot compile
// (lookahead, lookbehind, backreferences, named groups) loads and is
// enforced with ECMA-262 semantics, reported as keyword "pattern".
func TestValidate_ecmaPatterns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, pattern, value string
		valid                bool
	}{
		{"lookahead: has a digit", `^(?=.*\d)[a-z\d]{8,}$`, "abcdefg1", true},
		{"lookahead: no digit", `^(?=.*\d)[a-z\d]{8,}$`, "abcdefgh", false},
		{"negative lookahead", `^(?!tmp_)\w+$`, "tmp_file", false},
		{"negative lookahead passes", `^(?!tmp_)\w+$`, "file", true},
		{"lookbehind", `(?<=\$)\d+`, "cost: $42", true},
		{"lookbehind fails", `(?<=\$)\d+`, "cost: 42", false},
		{"backreference", `^(\w)\1$`, "aa", true},
		{"backreference fails", `^(\w)\1$`, "ab", false},
		{"named group and \\k", `^(?<q>['"]).*\k<q>$`, `"quoted"`, true},
		{"named group mismatch", `^(?<q>['"]).*\k<q>$`, `"quoted'`, false},
		{"long property name", `^(?=\p{Letter})\p{Letter}+$`, "héllo", true},
		{"RE2 pattern stays on kaptinlin", `^[a-z]+$`, "abc", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := compileSchema(t, `{"properties": {"a": {"type": "string", "pattern": `+quoteJSON(tt.pattern)+`}}}`)
			got := s.Validate(decode(t, `{"a": `+quoteJSON(tt.value)+`}`))
			if tt.valid {
				if got != nil {
					t.Errorf("violations %+v, want none", got)
				}
				return
			}
			if len(got) != 1 || got[0].Path != "$.a" || got[0].Keyword != "pattern" || got[0].Expected != tt.pattern ||
				got[0].Received != tt.value || got[0].Message != "string must match the pattern "+quoteJSON(tt.pattern) {
				t.Errorf("violations %+v, want one pattern violation at $.a", got)
			}
		})
	}
}

// TestValidate_ecmaPatternTimeout checks that catastrophic backtracking
// ends at PatternMatchTimeout with a violation, not a stalled gateway.
func TestValidate_ecmaPatternTimeout(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, `{"type": "string", "pattern": "^(a|aa)+(?!b)$"}`)
	start := time.Now()
	got := s.Validate(strings.Repeat("a", 60) + "!")
	if elapsed := time.Since(start); elapsed > 20*schemas.PatternMatchTimeout {
		t.Errorf("validation took %v", elapsed)
	}
	if len(got) != 1 || got[0].Keyword != "pattern" || !strings.Contains(got[0].Message, "ran past the 100ms limit") {
		t.Errorf("violations %+v, want one pattern violation saying the match timed out", got)
	}
}

func TestLoad_patterns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		schema  string
		wantErr error
		want    string
	}{
		{"lookahead pattern loads", `{"$id": "https://t.dev/x/1.0.0", "pattern": "^(?=a)"}`, nil, ""},
		{"invalid ECMA-262", `{"$id": "https://t.dev/x/1.0.0", "pattern": "(?<=a"}`, schemas.ErrMetaSchema, "$.pattern: value must be a valid regex"},
		{"Go-only inline flag", `{"$id": "https://t.dev/x/1.0.0", "pattern": "(?i)abc"}`, schemas.ErrMetaSchema, "$.pattern: value must be a valid regex"},
		{"Go-only escape", `{"$id": "https://t.dev/x/1.0.0", "pattern": "abc\\z"}`, schemas.ErrMetaSchema, "$.pattern: value must be a valid regex"},
		{"lookahead in patternProperties", `{"$id": "https://t.dev/x/1.0.0", "properties": {"m": {"patternProperties": {"^(?!x_)": {}}}}}`,
			schemas.ErrUnsupportedPattern, `$.properties.m.patternProperties: "^(?!x_)"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := loadFS(t, map[string]string{"schemas/x.schema.json": tt.schema})
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %v containing %q", err, tt.wantErr, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "schemas/x.schema.json: ") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

// TestValidate_emptyEnum checks the correction of kaptinlin's empty enum,
// which accepts everything (enum.go:25); 2020-12 allows "enum": [], which
// accepts nothing.
func TestValidate_emptyEnum(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, `{"properties": {"a": {"enum": []}}}`)
	equalJSON(t, s.Validate(decode(t, `{"a": "x"}`)),
		`[{"path": "$.a", "keyword": "enum", "expected": [], "received": "x", "message": "no value is allowed: the enum is empty"}]`)
	if got := s.Validate(decode(t, `{}`)); got != nil {
		t.Errorf("violations %+v for an absent member", got)
	}
}

// TestLoadFS_refToDraft07MetaSchema checks that the draft-07 meta-schema is
// served from the binary like the 2020-12 one: kaptinlin keeps its copy for
// ValidateSchema only.
func TestLoadFS_refToDraft07MetaSchema(t *testing.T) {
	t.Parallel()
	r, err := loadFS(t, map[string]string{
		"schemas/x.schema.json": `{"$schema": "http://json-schema.org/draft-07/schema#", "$id": "https://t.dev/x/1.0.0", "properties": {"schema": {"$ref": "http://json-schema.org/draft-07/schema#"}}}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := r.Schema("https://t.dev/x/1.0.0")
	if got := s.Validate(decode(t, `{"schema": {"type": "object"}}`)); got != nil {
		t.Errorf("valid: %+v", got)
	}
	if got := s.Validate(decode(t, `{"schema": {"type": 5}}`)); len(got) == 0 {
		t.Error("invalid schema accepted")
	}
}

func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}
