package apiauth_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/apiauth"
)

const (
	readToken  = "r-0123456789abcdef"
	writeToken = "w-0123456789abcdef"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		given   string
		want    map[string]apiauth.Scope
		wantErr string
	}{
		{name: "read and write, comments, blank lines",
			given: "# dashboards\nread " + readToken + "\n\n  write " + writeToken + "  # ci\n",
			want:  map[string]apiauth.Scope{readToken: apiauth.Read, writeToken: apiauth.Write, "nope-0123456789abcdef": apiauth.None, "": apiauth.None}},
		{name: "unknown scope", given: "admin " + readToken + "\n", wantErr: `line 1: unknown scope "admin"`},
		{name: "token only", given: readToken + "\n", wantErr: "line 1: want \"SCOPE TOKEN\""},
		{name: "short token", given: "read short\n", wantErr: "line 1: token shorter than 16"},
		{name: "same token twice", given: "read " + readToken + "\nwrite " + readToken + "\n", wantErr: "line 2: same token as line 1"},
		{name: "empty", given: "# nothing\n", wantErr: "no token"},
		{name: "every bad line reported", given: "admin " + readToken + "\nread x\n", wantErr: "line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tokens, err := apiauth.Parse([]byte(tt.given))
			if tt.wantErr != "" {
				if !errors.Is(err, apiauth.ErrBadTokenFile) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want ErrBadTokenFile with %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), readToken) {
					t.Errorf("the error shows the token: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for token, want := range tt.want {
				if got, _ := tokens.Lookup(token); got != want {
					t.Errorf("Lookup(%q) = %v, want %v", token, got, want)
				}
			}
		})
	}
}

func TestLoadFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(p, []byte("read "+readToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tokens, err := apiauth.LoadFile(p)
	if err != nil || tokens.Len() != 1 {
		t.Fatalf("LoadFile = %v, %v", tokens, err)
	}
	if _, name := tokens.Lookup(readToken); name != "line 1" {
		t.Errorf("name = %q", name)
	}
	if _, err := apiauth.LoadFile(filepath.Join(t.TempDir(), "none")); !errors.Is(err, apiauth.ErrBadTokenFile) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
