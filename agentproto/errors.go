package agentproto

import "errors"

// ErrBadConfig is returned by New for a configuration that cannot work;
// the message says what is wrong.
var ErrBadConfig = errors.New("agentproto: bad configuration")

// ErrNotFound is returned by Discover when no instance of the upstream
// agent answered discovery.
var ErrNotFound = errors.New("agentproto: upstream agent not found")

// ErrBadEnvelope is returned by ParseEnvelope for a request the protocol
// rejects with status 400 (its section 5.3).
var ErrBadEnvelope = errors.New("agentproto: malformed request")

// ErrBadRecord is returned for a discovery record that is not a compliant
// agent's (no prompt endpoint, missing metadata, bad max_payload).
var ErrBadRecord = errors.New("agentproto: not a compliant agent record")

// ErrSubjectTaken is returned by Twin.Run when another blueprint's twin of
// the same gateway already serves the prompt subject this twin would.
var ErrSubjectTaken = errors.New("agentproto: twin subject taken")
