package embedx

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"unicode"

	"ragscope/internal/redact"
	"ragscope/retrieval"
)

// Error is a failed call (embedding, chat) of any provider. Error returns a message
// a person can act on; Err is the cause. Its class follows one rule for
// every provider (see Is), and neither the message nor the cause contains
// the API key.
type Error struct {
	// Status is the HTTP status of the last attempt, 0 when no response came.
	Status int
	// Invalid marks a server that answered (Status) with something that is
	// not a valid embedding response.
	Invalid bool
	// Msg is the user-facing message.
	Msg string
	// Err is the underlying error.
	Err error
	// Attempts is the number of requests made, when the provider counts
	// them (Cohere); 0 otherwise.
	Attempts int
}

// Error returns the user-facing message, with the credentials of any URL
// in it hidden (redact.Text): a message built from an SDK's error text
// cannot show a base URL's key= or user:password@.
func (e *Error) Error() string { return redact.Text(e.Msg) }

// Unwrap returns the cause, so errors.Is(err, context.Canceled) works.
func (e *Error) Unwrap() error { return e.Err }

// Is matches the retrieval error class, by the rule every provider shares:
//   - 401, 403: ErrAuth (the key was refused; exit 3).
//   - other 4xx except 408, 409 and 429: ErrConfig. The backend refused this
//     request (unknown model, bad dimensions, wrong base URL path); only a
//     change of settings fixes it (exit 2).
//   - 408, 409, 429, 5xx, no answer, a timeout, or an invalid answer:
//     ErrUnavailable (exit 3).
func (e *Error) Is(target error) bool {
	switch target {
	case retrieval.ErrAuth:
		return !e.Invalid && (e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden)
	case retrieval.ErrConfig:
		return !e.Invalid && Refused(e.Status)
	case retrieval.ErrUnavailable:
		if e.Invalid || Retryable(e.Status) {
			return true
		}
		return e.Status == 0 && !errors.Is(e.Err, context.Canceled)
	}
	return false
}

// Retryable reports whether a status is worth another attempt: 408, 409,
// 429 and 5xx (never 400, 401, 403, 404).
func Retryable(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500
}

// Refused reports whether a status means "the backend refused this request":
// a 4xx that is neither an auth failure nor retryable.
func Refused(status int) bool {
	return status >= 400 && status < 500 && !Retryable(status) &&
		status != http.StatusUnauthorized && status != http.StatusForbidden
}

// Excerpt is a short, printable excerpt of an untrusted response body, with
// key and URL credentials redacted (Redact): control characters become
// spaces, runs of space collapse, and at most 120 characters are kept.
func Excerpt(body []byte, key string) string {
	s := Redact(string(body), key)
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	return s
}
