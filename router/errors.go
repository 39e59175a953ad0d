package router

import "errors"

// ErrBadConfig is returned by the constructors of this package for a
// configuration that cannot work; the message says what is wrong.
var ErrBadConfig = errors.New("router: bad configuration")

// ErrNotConsuming is wrapped by Router.Health when the router is not
// consuming raw outputs: a durable consumer was deleted, or consumption
// stopped.
var ErrNotConsuming = errors.New("router: not consuming")

// ErrCloseTimeout is returned by Router.Close when a message was still in
// hand when the close timeout ran out.
var ErrCloseTimeout = errors.New("router: close timed out")
