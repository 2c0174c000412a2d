package gemini

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/embedx/embedxtest"
)

// A 300 MB embed answer stops at the real default bound (64 MB), as
// "answered with an oversized response", announced or not; it is not
// read whole, and not reported as a timeout.
func TestHugeAnswerStopsAtTheDefaultBound(t *testing.T) {
	const huge = 300 << 20
	for _, announced := range []bool{true, false} {
		t.Run("Content-Length "+strconv.FormatBool(announced), func(t *testing.T) {
			var sent atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if announced {
					w.Header().Set("Content-Length", strconv.Itoa(huge))
				}
				chunk := []byte(`{"embeddings":[{"values":[` + strings.Repeat("0.1,", 256<<10))
				for sent.Load() < huge {
					n, err := w.Write(chunk)
					sent.Add(int64(n))
					if err != nil || r.Context().Err() != nil {
						return
					}
					chunk = []byte(strings.Repeat("0.1,", 256<<10))
				}
			}))
			defer srv.Close()
			e, err := New(context.Background(), Options{APIKey: embedxtest.Key, BaseURL: srv.URL, CacheSize: -1, Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Embed(context.Background(), []string{"q"})
			if !errors.Is(err, retrieval.ErrUnavailable) {
				t.Fatalf("err %v", err)
			}
			want := "Gemini at " + srv.URL + " answered with an oversized response (HTTP 200): the response passed 64 MiB. Check GEMINI_BASE_URL."
			if err.Error() != want {
				t.Fatalf("message %q\nwant    %q", err, want)
			}
			srv.CloseClientConnections()
			if n := sent.Load(); n >= huge {
				t.Fatalf("the server sent all %d bytes: the answer was read whole", n)
			}
		})
	}
}
