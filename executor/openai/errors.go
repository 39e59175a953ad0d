package openai

import (
	"errors"
	"fmt"
)

// ErrBadConfig is returned by New for a configuration that cannot work.
var ErrBadConfig = errors.New("openai: bad configuration")

// ErrNoAnswer is returned by Complete when the server answered 200 but with
// no choice, or with a choice that has neither content nor a refusal.
var ErrNoAnswer = errors.New("openai: no answer in the response")

// APIError is returned by Complete when the server answers with a status
// other than 200; Message and Type come from its {"error": {...}} body when
// it has one.
type APIError struct {
	StatusCode int
	Type       string
	Message    string
}

// Error implements error.
func (e *APIError) Error() string {
	if e.Type != "" {
		return fmt.Sprintf("openai: HTTP %d: %s: %s", e.StatusCode, e.Type, e.Message)
	}
	return fmt.Sprintf("openai: HTTP %d: %s", e.StatusCode, e.Message)
}
