package handlers

import (
	"errors"

	"github.com/agentgate/agentgate/contract"
)

// ErrBadConfig is returned by the constructors of this package for a
// configuration that cannot work; the message says what is wrong.
var ErrBadConfig = errors.New("handlers: bad configuration")

// ErrStateConflict is returned by a RunStore when the run's state changed
// since it was read (another replica recorded an outcome first).
var ErrStateConflict = contract.ErrStateConflict

// ErrCloseTimeout is returned by Handler.Close when a decision still ran
// past its limit when the close timeout ran out.
var ErrCloseTimeout = errors.New("handlers: close timed out with a decision still running")
