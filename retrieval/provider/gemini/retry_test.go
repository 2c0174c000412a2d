package gemini

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ragscope/retrieval/provider/embedx/embedxtest"
)

// TestRetriedStatuses checks which answers an embed call retries and how
// long it waits first (embedxtest.RetryCases), and that a status that
// stays retryable uses up the attempts.
func TestRetriedStatuses(t *testing.T) {
	newEmbedder := func(t *testing.T, h http.HandlerFunc) *Embedder {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		e, err := New(context.Background(), Options{APIKey: testKey, BaseURL: srv.URL, Timeout: time.Minute, MaxAttempts: 3, CacheSize: -1})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	for _, c := range embedxtest.RetryCases() {
		t.Run(c.Name(), func(t *testing.T) {
			var n atomic.Int32
			e := newEmbedder(t, func(rw http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				rw.Header().Set("Content-Type", "application/json")
				if n.Add(1) == 1 {
					if c.RetryAfter != "" {
						rw.Header().Set("Retry-After", c.RetryAfter)
					}
					rw.WriteHeader(c.Status)
					b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": c.Status, "message": "no", "status": http.StatusText(c.Status)}})
					_, _ = rw.Write(b)
					return
				}
				_, _ = io.WriteString(rw, `{"embeddings":[{"values":[`+strings.TrimSuffix(strings.Repeat("0.5,", 3072), ",")+`]}]}`)
			})
			var waits []time.Duration
			e.sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			_, err := e.Embed(context.Background(), []string{"q"})
			embedxtest.CheckRetry(t, c, 500*time.Millisecond, int(n.Load()), waits, err)
		})
	}
	t.Run("attempts used up", func(t *testing.T) {
		var n atomic.Int32
		e := newEmbedder(t, func(rw http.ResponseWriter, r *http.Request) {
			n.Add(1)
			rw.Header().Set("Content-Type", "application/json")
			rw.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(rw, `{"error":{"code":502,"message":"down","status":"UNAVAILABLE"}}`)
		})
		waits := 0
		e.sleep = func(context.Context, time.Duration) error { waits++; return nil }
		_, err := e.Embed(context.Background(), []string{"q"})
		if err == nil || n.Load() != 3 || waits != 2 || !strings.Contains(err.Error(), "502") {
			t.Fatalf("%d requests, %d waits, err %v: want 3 requests, 2 waits and the 502", n.Load(), waits, err)
		}
	})
}
