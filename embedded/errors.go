package embedded

import "errors"

// ErrBadConfig is returned by Start for a configuration that cannot work;
// the message says what is wrong.
var ErrBadConfig = errors.New("embedded: bad configuration")

// ErrNotReady is returned by Start when the server does not accept
// connections in time.
var ErrNotReady = errors.New("embedded: NATS server not ready")
