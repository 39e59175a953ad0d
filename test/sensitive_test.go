package test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/contract"
	"github.com/agentgate/agentgate/gateway"
	"github.com/agentgate/agentgate/internal/natstest"
)

// Members a schema marks "x-sensitive" are masked for read tokens in the
// run state and the dead-letter listing, shown to write tokens, and never
// logged, even at debug level.
func TestHTTPAPI_sensitiveMembers(t *testing.T) {
	t.Parallel()
	b := startBus(t)
	var logs natstest.Buffer
	g := startGateway(t, b, withTokens(t), func(c *gateway.Config) {
		c.ConfigDir = "../redact/testdata/sensitive"
		c.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	const ssn, card, badSSN = "123-45-6789", "4111111111111111", "98-76"
	b.publish(raw{agent: "account-agent", run: "s-1", payload: `{"name":"Ada","ssn":"` + ssn + `","cards":[{"label":"Visa","number":"` + card + `"}]}`})
	b.awaitState("s-1", contract.RunCompleted, 1)
	for attempt := 1; attempt <= 2; attempt++ {
		b.publish(raw{agent: "account-agent", run: "s-2", attempt: attempt, payload: `{"name":"Ada","ssn":"` + badSSN + `","cards":[]}`})
	}
	b.awaitState("s-2", contract.RunFailed, 2)
	base := "http://" + g.HTTPAddr()

	tests := []struct {
		path        string
		secrets     []string
		alsoVisible string
	}{
		{"/v1/runs/s-1", []string{ssn, card}, `"Visa"`},
		{"/v1/runs/s-2", []string{badSSN}, `"output_schema_validation_failed"`},
		{"/v1/dlq?run=s-2", []string{badSSN}, `"$.ssn`},
	}
	for _, tt := range tests {
		read := call(t, nil, base, "GET", tt.path, readToken, nil)
		write := call(t, nil, base, "GET", tt.path, writeToken, nil)
		if read.status != 200 || write.status != 200 {
			t.Fatalf("GET %s = %d (read), %d (write)", tt.path, read.status, write.status)
		}
		for _, secret := range tt.secrets {
			if strings.Contains(string(read.body), secret) {
				t.Errorf("GET %s with a read token shows %s:\n%s", tt.path, secret, read.body)
			}
			if !strings.Contains(string(write.body), secret) {
				t.Errorf("GET %s with a write token lacks %s:\n%s", tt.path, secret, write.body)
			}
		}
		if !strings.Contains(string(read.body), "[redacted]") || !strings.Contains(string(read.body), tt.alsoVisible) {
			t.Errorf("GET %s with a read token: want [redacted] and %s:\n%s", tt.path, tt.alsoVisible, read.body)
		}
	}
	if !strings.Contains(logs.String(), `"run_id":"s-2"`) {
		t.Fatalf("the debug log has no line about run s-2:\n%s", logs.String())
	}
	for _, secret := range []string{ssn, card, badSSN} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the log shows %s", secret)
		}
	}
}
