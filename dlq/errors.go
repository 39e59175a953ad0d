package dlq

import "errors"

// ErrNotFound is returned by Get for a sequence that holds no dead letter.
var ErrNotFound = errors.New("dlq: no such dead letter")

// ErrNotReplayable is returned by Replay for a dead letter that cannot go
// back into its run: it has no Run-Id, the run has since completed or been
// refused, or this dead letter was replayed into it already.
var ErrNotReplayable = errors.New("dlq: dead letter not replayable")

// ErrBadLetter is returned for a message of the dead-letter stream that is
// not a failed event, or whose kept payload cannot be decoded.
var ErrBadLetter = errors.New("dlq: malformed dead letter")
