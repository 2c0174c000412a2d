package cohere

import (
	"net/http"
	"time"

	"ragscope/retrieval/provider/embedx"
	"ragscope/retrieval/provider/netx"
)

// EmbedError is a failed call to Cohere (embedx.Error): a message a
// person can act on, the cause, the number of requests made, and the
// retrieval error class by the rule every provider shares: ErrAuth (401,
// 403), ErrConfig (400, 404, 422 and other request errors) or
// ErrUnavailable (429, 408, 5xx, network, timeout, an invalid answer).
// Neither the message nor the cause ever contains the API key.
type EmbedError = embedx.Error

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
	// Stop is what ended the retries after this answer; its Asked is
	// RetryAfter when that was past the time left (netx.Policy).
	Stop netx.Step
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
