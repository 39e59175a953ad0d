// Package natsurl owns how NATS server URLs are shown: never with their
// password or token. It does no I/O and imports nothing of agentgate.
package natsurl

import (
	"net/url"
	"strings"
)

// Redacted returns a NATS URL, or a comma-separated list of them, fit for
// logs and error messages: a password (nats://user:pass@host) shows as
// "xxxxx", and so does a token (nats://token@host), whose user part is the
// secret. Text that does not parse as a URL is kept up to the first "@".
func Redacted(urls string) string {
	parts := strings.Split(urls, ",")
	for i, p := range parts {
		parts[i] = redactOne(strings.TrimSpace(p))
	}
	return strings.Join(parts, ",")
}

func redactOne(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		if at := strings.LastIndex(s, "@"); at >= 0 {
			return "xxxxx" + s[at:]
		}
		return s
	}
	if u.User == nil {
		return s
	}
	if _, hasPassword := u.User.Password(); hasPassword {
		return u.Redacted()
	}
	// A user alone is a token: the secret itself.
	u.User = url.User("xxxxx")
	return u.String()
}

// Credential names, without its secret, the credential the first of urls
// carries in its user part: `user "alice" (password in the URL)`, "token
// in the URL", or "" when it carries none.
func Credential(urls string) string {
	first, _, _ := strings.Cut(urls, ",")
	u, err := url.Parse(strings.TrimSpace(first))
	if err != nil || u.User == nil {
		return ""
	}
	if _, hasPassword := u.User.Password(); hasPassword {
		return `user "` + u.User.Username() + `" (password in the URL)`
	}
	return "token in the URL"
}
