package cohere_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/cohere"
	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/provider/embedx/embedxtest"
)

// TestChatRetriedStatuses checks which answers a chat retries before its
// stream begins and how long it waits first (embedxtest.RetryCases), and
// that a status that stays retryable uses up the attempts.
func TestChatRetriedStatuses(t *testing.T) {
	chat := func(t *testing.T, fail ...coheretest.Failure) (*coheretest.Server, *[]time.Duration, error) {
		srv := coheretest.NewServer("k")
		t.Cleanup(srv.Close)
		srv.Fail(fail...)
		var waits []time.Duration
		c, err := cohere.NewChat(cohere.ChatOptions{APIKey: srv.Key, BaseURL: srv.URL, Timeout: time.Minute, MaxAttempts: 3,
			Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }})
		if err != nil {
			t.Fatal(err)
		}
		_, err = retrieval.Generate(context.Background(), c, answerResult(), nil)
		return srv, &waits, err
	}
	for _, c := range embedxtest.RetryCases() {
		t.Run(c.Name(), func(t *testing.T) {
			srv, waits, err := chat(t, coheretest.Failure{Status: c.Status, RetryAfter: c.RetryAfter})
			embedxtest.CheckRetry(t, c, 500*time.Millisecond, srv.Requests(), *waits, err)
		})
	}
	t.Run("attempts used up", func(t *testing.T) {
		f := coheretest.Failure{Status: http.StatusBadGateway}
		srv, waits, err := chat(t, f, f, f, f)
		if err == nil || srv.Requests() != 3 || len(*waits) != 2 || !strings.Contains(err.Error(), "502") {
			t.Fatalf("%d requests, waits %v, err %v: want 3 requests, 2 waits and the 502", srv.Requests(), *waits, err)
		}
	})
}
