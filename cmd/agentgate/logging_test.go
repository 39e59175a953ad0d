package main

import (
	"testing"

	"github.com/spf13/cobra"
)

// Only the commands that log take --log-level and --log-format.
func TestLogFlags_onlyOnCommandsThatLog(t *testing.T) {
	logs := map[string]bool{"agentgate serve": true}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if !c.Runnable() {
			return
		}
		for _, name := range []string{"log-level", "log-format"} {
			if has := c.Flags().Lookup(name) != nil; has != logs[c.CommandPath()] {
				t.Errorf("%s: has --%s = %v, want %v", c.CommandPath(), name, has, logs[c.CommandPath()])
			}
		}
	}
	walk(newRootCmd())

	if _, code := run(t, `{}`, "validate", "--agent", "pr-reviewer", "--log-level", "debug"); code != 2 {
		t.Errorf("validate --log-level: exit %d, want 2 (unknown flag)", code)
	}
}
