package apiauth

import "errors"

// ErrBadTokenFile is returned by Parse and LoadFile for a token file that
// cannot be used: a line without a scope and a token, an unknown scope, a
// token too short or given twice, or no token at all. The error names the
// line, never the token.
var ErrBadTokenFile = errors.New("apiauth: bad token file")
