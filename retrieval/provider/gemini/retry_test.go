package gemini

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRetriedStatuses checks which answers a call retries and how long it
// waits first: 408, 409, 429 and 5xx are retried (after the server's
// Retry-After when it asks one, else after the backoff from 0.5 s),
// every other failing status is not, and a status that stays retryable
// uses up the attempts.
func TestRetriedStatuses(t *testing.T) {
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
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				rw.Header().Set("Content-Type", "application/json")
				if n.Add(1) == 1 {
					if c.retryAfter != "" {
						rw.Header().Set("Retry-After", c.retryAfter)
					}
					rw.WriteHeader(c.status)
					b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": c.status, "message": "no", "status": http.StatusText(c.status)}})
					_, _ = rw.Write(b)
					return
				}
				_, _ = io.WriteString(rw, `{"embeddings":[{"values":[`+strings.TrimSuffix(strings.Repeat("0.5,", 3072), ",")+`]}]}`)
			}))
			defer srv.Close()
			e, err := New(context.Background(), Options{APIKey: testKey, BaseURL: srv.URL, Timeout: time.Minute, MaxAttempts: 3, CacheSize: -1})
			if err != nil {
				t.Fatal(err)
			}
			var waits []time.Duration
			e.sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			_, err = e.Embed(context.Background(), []string{"q"})
			if !c.retried {
				if err == nil || n.Load() != 1 || len(waits) != 0 {
					t.Fatalf("%d requests, waits %v, err %v: want one request and its error", n.Load(), waits, err)
				}
				return
			}
			if err != nil || n.Load() != 2 || len(waits) != 1 {
				t.Fatalf("%d requests, waits %v, err %v: want a retry that succeeds", n.Load(), waits, err)
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
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			n.Add(1)
			rw.Header().Set("Content-Type", "application/json")
			rw.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(rw, `{"error":{"code":502,"message":"down","status":"UNAVAILABLE"}}`)
		}))
		defer srv.Close()
		e, err := New(context.Background(), Options{APIKey: testKey, BaseURL: srv.URL, Timeout: time.Minute, MaxAttempts: 3, CacheSize: -1})
		if err != nil {
			t.Fatal(err)
		}
		waits := 0
		e.sleep = func(context.Context, time.Duration) error { waits++; return nil }
		_, err = e.Embed(context.Background(), []string{"q"})
		if err == nil || n.Load() != 3 || waits != 2 || !strings.Contains(err.Error(), "502") {
			t.Fatalf("%d requests, %d waits, err %v: want 3 requests, 2 waits and the 502", n.Load(), waits, err)
		}
	})
}
