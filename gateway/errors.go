package gateway

import "errors"

// ErrBadConfig is returned by New for a configuration that cannot work.
var ErrBadConfig = errors.New("gateway: bad configuration")
