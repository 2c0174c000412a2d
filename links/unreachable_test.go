package links

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"ragscope/retrieval"
)

// A site that cannot be resolved or connected to is an outage, not a site
// of broken links: the audit stops asking after the first failure (no
// retries, no request per page) and fails with ErrUnavailable (exit 3).
func TestLiveAuditStopsOnUnreachableSite(t *testing.T) {
	for name, dialErr := range map[string]error{
		"no such host": &net.DNSError{Err: "no such host", Name: "book.example", IsNotFound: true},
		"refused":      &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")},
	} {
		t.Run(name, func(t *testing.T) {
			var dials atomic.Int32
			client := &http.Client{Transport: &http.Transport{
				DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
					dials.Add(1)
					return nil, dialErr
				},
			}}
			var w sliceWalker
			for i := range 60 {
				w = append(w, retrieval.Chunk{ID: fmt.Sprint(i), URL: fmt.Sprintf("https://book.example/docs/page-%d#s", i)})
			}
			c := NewLiveChecker(LiveOptions{Client: client, RatePerHost: 1000, Backoff: time.Millisecond})
			_, err := Audit(context.Background(), w, AuditOptions{Checker: c, Concurrency: 4})
			if !errors.Is(err, retrieval.ErrUnavailable) {
				t.Fatalf("err = %v, want ErrUnavailable", err)
			}
			// The few checks already in flight may dial once each; the
			// rest fail at once without a request.
			if n := dials.Load(); n > 4 {
				t.Fatalf("%d dials for an unreachable host, want at most the 4 in flight", n)
			}
		})
	}
}
