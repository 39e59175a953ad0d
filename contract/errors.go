package contract

import "errors"

// ErrStateConflict is returned by a store of run or stream state when the
// entry changed since it was read: another replica recorded first. Every
// write of state is a compare-and-set (section 6).
var ErrStateConflict = errors.New("run state changed concurrently")
