package natsurl_test

import (
	"testing"

	"github.com/agentgate/agentgate/internal/natsurl"
)

func TestRedacted(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, given, want string }{
		{"no credentials", "nats://127.0.0.1:4222", "nats://127.0.0.1:4222"},
		{"user and password", "nats://alice:s3cret@nats.example:4222", "nats://alice:xxxxx@nats.example:4222"},
		{"token", "nats://s3cret@nats.example:4222", "nats://xxxxx@nats.example:4222"},
		{"a list", "nats://a:s3cret@h1:4222, nats://h2:4222", "nats://a:xxxxx@h1:4222,nats://h2:4222"},
		{"unparsable", "nats://a:s3cret@h1:4222/%zz", "xxxxx@h1:4222/%zz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := natsurl.Redacted(tt.given); got != tt.want {
				t.Errorf("Redacted(%q) = %q, want %q", tt.given, got, tt.want)
			}
		})
	}
}

func TestCredential(t *testing.T) {
	t.Parallel()
	for given, want := range map[string]string{
		"nats://127.0.0.1:4222":                    "",
		"nats://alice:s3cret@h:4222":               `user "alice" (password in the URL)`,
		"nats://s3cret@h:4222, nats://b:c@h2:4222": "token in the URL",
		"tls://h:4222":                             "",
	} {
		if got := natsurl.Credential(given); got != want {
			t.Errorf("Credential(%q) = %q, want %q", given, got, want)
		}
	}
}
