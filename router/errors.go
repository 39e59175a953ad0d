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

// ErrLookupIncomplete is wrapped by Outcomes.Emit when the look-up of a
// republished outcome ended before it had read every message it counted:
// the outcome is not published (it may be stored already), and the input
// is delivered again.
var ErrLookupIncomplete = errors.New("router: outcome look-up incomplete")
