package deploy_test

import (
	"context"
	"errors"
	"github.com/agentgate/agentgate/internal/natstest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// authFile is the accounts, users and permissions every test loads.
const authFile = "nats/auth.conf"

// secrets are the users' passwords and the gateway's seed file, set in the
// environment the way deploy/nats/auth.conf reads them.
type secrets struct {
	gatewaySeed string // file
	gatewayPub  string
	passwords   map[string]string // user -> password
}

// setSecrets generates every secret auth.conf asks for and puts it in the
// environment (so the test cannot run in parallel with others).
func setSecrets(t *testing.T) secrets {
	t.Helper()
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := kp.Seed()
	pub, _ := kp.PublicKey()
	s := secrets{gatewaySeed: filepath.Join(t.TempDir(), "gateway.nk"), gatewayPub: pub, passwords: map[string]string{}}
	if err := os.WriteFile(s.gatewaySeed, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AGENTGATE_GATEWAY_NKEY", pub)
	for user, env := range map[string]string{
		"pr-reviewer": "AGENT_PR_REVIEWER_PASSWORD", "code-analyzer": "AGENT_CODE_ANALYZER_PASSWORD",
		"consumer": "CONSUMER_PASSWORD", "operator": "OPERATOR_PASSWORD", "sys": "SYS_PASSWORD",
	} {
		s.passwords[user] = "pw-" + user + "-" + pub[:8]
		t.Setenv(env, s.passwords[user])
	}
	return s
}

// conn is a user's connection that records the permission violations the
// server reports to it.
type conn struct {
	*nats.Conn
	mu         sync.Mutex
	violations []string
}

// connectAs connects as user with its own inbox prefix, as auth.conf asks.
func connectAs(t *testing.T, url, user, password string, extra ...nats.Option) *conn {
	t.Helper()
	c := &conn{}
	opts := append([]nats.Option{
		nats.UserInfo(user, password), nats.CustomInboxPrefix("_INBOX_" + user), nats.Name(user),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			if errors.Is(err, nats.ErrPermissionViolation) {
				c.mu.Lock()
				c.violations = append(c.violations, err.Error())
				c.mu.Unlock()
			}
		}),
	}, extra...)
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		t.Fatalf("connecting as %s: %v", user, err)
	}
	t.Cleanup(nc.Close)
	c.Conn = nc
	return c
}

// refused waits until the server has reported a permission violation on
// subject to c.
func (c *conn) refused(t *testing.T, op, subject string) {
	t.Helper()
	want := `Permissions Violation for ` + op + ` to "` + subject + `"`
	waitFor(t, 5*time.Second, want, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, v := range c.violations {
			if strings.Contains(v, want) {
				return true
			}
		}
		return false
	})
}

// waitFor polls cond until it holds or limit passes.
var waitFor = natstest.WaitFor

// shortCtx bounds one JetStream API call that the server is expected to
// drop (a denied request gets no answer).
func shortCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	t.Cleanup(cancel)
	return ctx
}
