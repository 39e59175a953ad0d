package topology

import "errors"

// ErrBadConfig is returned by StreamsConfig.Validate for a configuration
// that JetStream would refuse or that makes no sense.
var ErrBadConfig = errors.New("topology: bad streams configuration")
