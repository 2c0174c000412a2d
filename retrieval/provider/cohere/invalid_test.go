package cohere

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"ragscope/retrieval"
)

// TestInvalidAnswersBlameTheServer: a server that answered with something
// that is not an embed response is ErrUnavailable (exit 3) and says
// "answered with an invalid response", never "cannot reach", and is not
// retried.
func TestInvalidAnswersBlameTheServer(t *testing.T) {
	vec := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("0.1,", n), ",") + "]" }
	cases := []struct{ name, ctype, body, say string }{
		{"HTML with 200", "text/html", "<html><body>Sign in " + testKey + "</body></html>", "Sign in [redacted]"},
		{"truncated JSON", "application/json", `{"id":"x","embeddings":{"float":[[0.1,`, "invalid response (HTTP 200)"},
		{"zero embeddings", "application/json", `{"id":"x","embeddings":{"float":[]},"texts":[]}`, "0 float embeddings for 1 texts"},
		{"wrong size", "application/json", `{"id":"x","embeddings":{"float":[` + vec(7) + `]}}`, "7-dimensional vectors, but embed-english-v3.0 makes 1024"},
		{"out of range", "application/json", `{"id":"x","embeddings":{"float":[[1e300]]}}`, "out of range"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", c.ctype)
				_, _ = io.WriteString(w, c.body)
			}))
			defer srv.Close()
			e, err := New(Options{APIKey: testKey, BaseURL: srv.URL, ModelDim: 1024})
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Embed(context.Background(), []string{"q"})
			if !errors.Is(err, retrieval.ErrUnavailable) || errors.Is(err, retrieval.ErrConfig) || errors.Is(err, retrieval.ErrAuth) {
				t.Fatalf("err = %v, want only ErrUnavailable", err)
			}
			if !strings.Contains(err.Error(), "answered with an invalid response") || !strings.Contains(err.Error(), c.say) {
				t.Fatalf("err = %q, want it to say %q", err, c.say)
			}
			if calls.Load() != 1 {
				t.Fatalf("%d calls, want 1 (an invalid answer is not retried)", calls.Load())
			}
			assertNoKey(t, err)
		})
	}
}
