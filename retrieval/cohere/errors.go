package cohere

import (
	"net/http"
	"time"

	"ragscope/retrieval/embedx"
)

// EmbedError is a failed embedding call. Error returns a message a person
// can act on; Err is the cause. It matches one of retrieval's error classes
// with errors.Is: ErrAuth (401, 403), ErrConfig (400, 404, 422 and other
// request errors) or ErrUnavailable (429, 408, 5xx, network, timeout).
// Neither the message nor the cause ever contains the API key.
type EmbedError struct {
	// Status is the HTTP status of the last attempt, 0 when no response came.
	Status int
	// Msg is the user-facing message.
	Msg string
	// Err is the underlying error (a *StatusError, a transport error or a
	// context error).
	Err error
	// Attempts is the number of requests made.
	Attempts int
	// Invalid marks an answer that is not a valid embed response (HTML or
	// truncated JSON with 200, too few embeddings, a size the model never
	// makes): ErrUnavailable, the server is at fault.
	Invalid bool
}

// Error returns the user-facing message.
func (e *EmbedError) Error() string { return e.Msg }

// Unwrap returns the cause, so errors.Is(err, context.Canceled) works.
func (e *EmbedError) Unwrap() error { return e.Err }

// Is matches the retrieval error class of the failure by the rule every
// provider shares (embedx.Error.Is): ErrAuth for 401 and 403, ErrConfig
// for a request refused for what it asks, ErrUnavailable for the rest.
func (e *EmbedError) Is(target error) bool {
	return (&embedx.Error{Status: e.Status, Invalid: e.Invalid, Err: e.Err}).Is(target)
}

// StatusError is a non-2xx answer from Cohere, as seen by the transport.
type StatusError struct {
	// Status is the HTTP status code.
	Status int
	// Message is the "message" of Cohere's JSON error body (or the raw body),
	// shortened and with the API key redacted.
	Message string
	// RetryAfter is the parsed Retry-After header (0 when absent).
	RetryAfter time.Duration
	// Invalid marks a 2xx answer that is not JSON; Message is an excerpt.
	Invalid bool
	// NotRetried marks a RetryAfter the retries did not wait for (it
	// would outlive the query).
	NotRetried bool
}

// Error describes the status and message.
func (e *StatusError) Error() string {
	if e.Invalid {
		return "cohere answered with an invalid response"
	}
	if e.Message == "" {
		return "cohere answered " + http.StatusText(e.Status)
	}
	return "cohere answered " + http.StatusText(e.Status) + ": " + e.Message
}
