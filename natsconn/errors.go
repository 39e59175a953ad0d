package natsconn

import "errors"

// ErrConnect is returned (wrapped in a *ConnectError) when no connection
// to NATS could be made.
var ErrConnect = errors.New("cannot connect to NATS")

// ErrBadOptions is returned when the connection options cannot work
// together or a file they name cannot be read (an unknown context, a
// certificate without its key, an unreadable seed).
var ErrBadOptions = errors.New("bad NATS connection options")
