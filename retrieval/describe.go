package retrieval

import (
	"context"
	"errors"
	"strings"
)

// Describe is the message a person sees for err, the same in the CLI and
// the explorer: the class of the failure, then what went wrong and what to
// do. A backend's own message wins over generic advice; in particular a
// timeout names the backend that did not answer ("Cohere did not answer in
// time") whenever the backend said so.
func Describe(err error) string {
	if err == nil {
		return ""
	}
	var ve *ValidationError
	if errors.As(err, &ve) {
		return ve.Error()
	}
	// The class is said once, in front: a configuration error wrapped
	// inside another ("--judge needs a chat model: configuration error:
	// …") drops its inner label too.
	msg := strings.TrimSpace(strings.ReplaceAll(err.Error(), ErrConfig.Error()+": ", ""))
	switch {
	case errors.Is(err, ErrConfig):
		return "Configuration: " + msg
	case errors.Is(err, context.DeadlineExceeded):
		if errors.Is(err, ErrUnavailable) {
			// A classified backend error: its message names the backend.
			return "Timed out: " + withAdvice(msg, "Try again, or raise --timeout.")
		}
		return "Timed out: the backend did not answer in time. Try again, or raise --timeout."
	case errors.Is(err, ErrAuth):
		return "Credentials rejected: " + withAdvice(msg, "Check QDRANT_API_KEY and the embedder's API key.")
	case errors.Is(err, ErrNotFound):
		return "Not found: " + withAdvice(msg, "Check QDRANT_COLLECTION.")
	case errors.Is(err, ErrUnavailable):
		return "Backend unavailable: " + withAdvice(msg, "Check QDRANT_URL and the network, then try again.")
	}
	return "Error: " + msg
}

// withAdvice appends generic advice to msg unless the backend already said
// what to do: "Check COHERE_API_KEY. Check QDRANT_API_KEY…" would mislead.
func withAdvice(msg, advice string) string {
	for _, verb := range []string{"Check ", "Set ", "Try again", "try again", "Wait ", "run your ingestion"} {
		if strings.Contains(msg, verb) {
			return msg
		}
	}
	return strings.TrimRight(msg, ".") + ". " + advice
}
