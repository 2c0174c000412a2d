package retrieval_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"ragscope/retrieval"
)

// backendErr is a classified backend error, as providers return them.
type backendErr struct {
	msg   string
	class error
	cause error
}

func (e *backendErr) Error() string        { return e.msg }
func (e *backendErr) Unwrap() error        { return e.cause }
func (e *backendErr) Is(target error) bool { return target == e.class }

func TestDescribe(t *testing.T) {
	cohereTimeout := &backendErr{msg: "Cohere did not answer in time. Check your network or COHERE_BASE_URL, then try again.",
		class: retrieval.ErrUnavailable, cause: context.DeadlineExceeded}
	tests := []struct {
		err  error
		want string
	}{
		{retrieval.ErrEmptyQuestion, "Query cannot be empty. Type a question."},
		{fmt.Errorf("%w: no collection: set QDRANT_COLLECTION", retrieval.ErrConfig), "Configuration: no collection: set QDRANT_COLLECTION"},
		{fmt.Errorf("embed question: %w", cohereTimeout), "Timed out: embed question: Cohere did not answer in time. Check your network or COHERE_BASE_URL, then try again."},
		{fmt.Errorf("search: %w", context.DeadlineExceeded), "Timed out: the backend did not answer in time. Try again, or raise --timeout."},
		{&backendErr{msg: "Qdrant rejected the API key (Unauthenticated). Check QDRANT_API_KEY.", class: retrieval.ErrAuth}, "Credentials rejected: Qdrant rejected the API key (Unauthenticated). Check QDRANT_API_KEY."},
		{fmt.Errorf("search: %w: dial tcp: connection refused", retrieval.ErrUnavailable), "Backend unavailable: search: backend unavailable: dial tcp: connection refused. Check QDRANT_URL and the network, then try again."},
		{errors.New("boom"), "Error: boom"},
		{fmt.Errorf("--judge needs a chat model: %w", fmt.Errorf("%w: no chat model configured", retrieval.ErrConfig)), "Configuration: --judge needs a chat model: no chat model configured"},
	}
	for _, tt := range tests {
		if got := retrieval.Describe(tt.err); got != tt.want {
			t.Errorf("Describe(%v)\n got %q\nwant %q", tt.err, got, tt.want)
		}
	}
}
