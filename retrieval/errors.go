package retrieval

import (
	"errors"
	"fmt"
)

// ErrInvalidQuery is matched (errors.Is) by every query validation error.
var ErrInvalidQuery = errors.New("invalid query")

// Validation sentinels; each also matches ErrInvalidQuery.
var (
	ErrEmptyQuestion  = &ValidationError{Field: "question", Msg: "Query cannot be empty. Type a question."}
	ErrEmptySelection = &ValidationError{Field: "selected_text", Msg: "Selected text cannot be empty in selected-text mode. Paste the text to ground the answer on."}
	ErrTopKRange      = &ValidationError{Field: "top_k", Msg: fmt.Sprintf("top_k must be between %d and %d.", MinTopK, MaxTopK)}
	ErrThresholdRange = &ValidationError{Field: "threshold", Msg: "threshold must be between 0.0 and 1.0."}
	ErrUnknownMode    = &ValidationError{Field: "mode", Msg: `mode must be "normal" or "selected_text_only".`}
	ErrNoWords        = &ValidationError{Field: "question", Msg: "The question has no letters or digits to search for. Type a question in words."}
)

// ValidationError is a query the caller can fix. It matches ErrInvalidQuery
// and its own sentinel with errors.Is.
type ValidationError struct {
	// Field is the offending query field.
	Field string
	// Msg says what to do.
	Msg string
	// Got is the rejected value, when useful in the message.
	Got string
	// sentinel is the package-level error this one instantiates.
	sentinel *ValidationError
}

// Error returns the actionable message.
func (e *ValidationError) Error() string {
	if e.Got != "" {
		return e.Msg + " Got " + e.Got + "."
	}
	return e.Msg
}

// Is matches ErrInvalidQuery and the sentinel e was made from.
func (e *ValidationError) Is(target error) bool {
	if target == ErrInvalidQuery {
		return true
	}
	if t, ok := target.(*ValidationError); ok {
		return t == e || (e.sentinel != nil && t == e.sentinel)
	}
	return false
}

func invalid(sentinel *ValidationError, got string) error {
	return &ValidationError{Field: sentinel.Field, Msg: sentinel.Msg, Got: got, sentinel: sentinel}
}

// Backend error classes. Backends wrap their errors with one of these (for
// example fmt.Errorf("%w: %w", retrieval.ErrUnavailable, err)) so callers can
// choose an exit code and a message without importing the backend.
var (
	// ErrUnavailable: the backend cannot be reached (network, TLS, timeout,
	// server error). CLI exit code 3.
	ErrUnavailable = errors.New("backend unavailable")
	// ErrAuth: the backend rejected the credentials. CLI exit code 3.
	ErrAuth = errors.New("credentials rejected")
	// ErrNotFound: the collection or index does not exist. CLI exit code 3.
	ErrNotFound = errors.New("collection not found")
	// ErrConfig: configuration or credentials are missing or invalid. CLI exit code 2.
	ErrConfig = errors.New("configuration error")
)
