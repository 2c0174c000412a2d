package cohere_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/cohere"
	"ragscope/retrieval/provider/cohere/coheretest"
)

// TestChatRetriedStatuses checks which answers a chat retries before its
// stream begins and how long it waits first: 408, 409, 429 and 5xx are
// retried (after the server's Retry-After when it asks one, else after
// the backoff), every other failing status is not, and a status that
// stays retryable uses up the attempts.
func TestChatRetriedStatuses(t *testing.T) {
	for _, c := range []struct {
		status     int
		retryAfter string
		retried    bool
	}{
		{http.StatusRequestTimeout, "", true},
		{http.StatusConflict, "", true},
		{http.StatusTooManyRequests, "", true},
		{http.StatusTooManyRequests, "2", true},
		{http.StatusInternalServerError, "", true},
		{http.StatusServiceUnavailable, "3", true},
		{http.StatusBadRequest, "", false},
		{http.StatusUnauthorized, "", false},
		{http.StatusForbidden, "", false},
		{http.StatusNotFound, "", false},
		{http.StatusUnprocessableEntity, "1", false},
	} {
		t.Run(fmt.Sprint(c.status, c.retryAfter), func(t *testing.T) {
			srv := coheretest.NewServer("k")
			defer srv.Close()
			srv.Fail(coheretest.Failure{Status: c.status, RetryAfter: c.retryAfter})
			var waits []time.Duration
			chat, err := cohere.NewChat(cohere.ChatOptions{APIKey: srv.Key, BaseURL: srv.URL, Timeout: time.Minute, MaxAttempts: 3,
				Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }})
			if err != nil {
				t.Fatal(err)
			}
			_, err = retrieval.Generate(context.Background(), chat, answerResult(), nil)
			if !c.retried {
				if err == nil || srv.Requests() != 1 || len(waits) != 0 {
					t.Fatalf("%d requests, waits %v, err %v: want one request and its error", srv.Requests(), waits, err)
				}
				return
			}
			if err != nil || srv.Requests() != 2 || len(waits) != 1 {
				t.Fatalf("%d requests, waits %v, err %v: want a retry that succeeds", srv.Requests(), waits, err)
			}
			if c.retryAfter != "" {
				if want := time.Duration(c.retryAfter[0]-'0') * time.Second; waits[0] != want {
					t.Errorf("waited %v, want the Retry-After %v", waits[0], want)
				}
			} else if waits[0] < 250*time.Millisecond || waits[0] > 500*time.Millisecond {
				t.Errorf("waited %v, want the first backoff (0.25 to 0.5 s)", waits[0])
			}
		})
	}
	t.Run("attempts used up", func(t *testing.T) {
		srv := coheretest.NewServer("k")
		defer srv.Close()
		f := coheretest.Failure{Status: http.StatusBadGateway}
		srv.Fail(f, f, f, f)
		waits := 0
		chat, err := cohere.NewChat(cohere.ChatOptions{APIKey: srv.Key, BaseURL: srv.URL, Timeout: time.Minute, MaxAttempts: 3,
			Sleep: func(context.Context, time.Duration) error { waits++; return nil }})
		if err != nil {
			t.Fatal(err)
		}
		_, err = retrieval.Generate(context.Background(), chat, answerResult(), nil)
		if err == nil || srv.Requests() != 3 || waits != 2 || !strings.Contains(err.Error(), "502") {
			t.Fatalf("%d requests, %d waits, err %v: want 3 requests, 2 waits and the 502", srv.Requests(), waits, err)
		}
	})
}
