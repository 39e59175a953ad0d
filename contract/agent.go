package contract

import "regexp"

var agentName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// ValidAgent reports whether name can be an agent's name: a single subject
// token of [A-Za-z0-9_-] (section 1).
func ValidAgent(name string) bool { return agentName.MatchString(name) }
