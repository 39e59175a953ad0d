package agentproto

import (
	"fmt"
	"sync"
)

// Claims keeps the prompt subjects of one gateway's twins apart. A twin's
// subject is agents.gate.<owner>.<name> of its upstream agent, so two
// blueprints that gate one agent would register one subject and one queue
// group: a caller's prompt would be judged by either blueprint's schema,
// whichever twin NATS picked. The first twin to claim a subject keeps it;
// the other does not register (ErrSubjectTaken). The zero value is ready.
type Claims struct {
	mu sync.Mutex
	by map[string]string // subject -> blueprint
}

// claim gives subject to blueprint unless another blueprint holds it.
func (c *Claims) claim(subject, blueprint string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if holder, ok := c.by[subject]; ok && holder != blueprint {
		return fmt.Errorf("%w: %s is the twin of blueprint %q already; blueprint %q gates the same upstream agent (give one of them another upstream, or merge them)",
			ErrSubjectTaken, subject, holder, blueprint)
	}
	if c.by == nil {
		c.by = map[string]string{}
	}
	c.by[subject] = blueprint
	return nil
}

// release gives subject up, if blueprint holds it.
func (c *Claims) release(subject, blueprint string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by[subject] == blueprint {
		delete(c.by, subject)
	}
}
