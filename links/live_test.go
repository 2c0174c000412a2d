package links

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const pageA = `<!doctype html><html><body><div id="__docusaurus">
<h1>Page A</h1>
<h2 class="anchor" id="intro">Intro<a href="#intro" class="hash-link" aria-label="Direct link to Intro">&#8203;</a></h2>
<h2 class="anchor" id="11-intro">1.1 Intro<a href="#11-intro" class="hash-link">&#8203;</a></h2>
<h3 id="qos">Quality of Service</h3>
<a name="legacy"></a><p id="para">x</p>
</div></body></html>`

type fakeSite struct {
	mu   sync.Mutex
	hits map[string]int
	srv  *httptest.Server
}

func newFakeSite(t *testing.T) *fakeSite {
	f := &fakeSite{hits: map[string]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.hits[r.URL.Path]++
		n := f.hits[r.URL.Path]
		f.mu.Unlock()
		switch r.URL.Path {
		case "/docs/a":
			fmt.Fprint(w, pageA)
		case "/docs/b":
			http.Redirect(w, r, "/docs/b/", http.StatusMovedPermanently)
		case "/docs/b/":
			fmt.Fprint(w, `<h2 id="top">Top</h2>`)
		case "/docs/moved":
			http.Redirect(w, r, "/docs/a", http.StatusFound)
		case "/docs/d":
			if n == 1 {
				w.Header().Set("Retry-After", "0")
				http.Error(w, "slow down", http.StatusTooManyRequests)
				return
			}
			fmt.Fprint(w, `<h2 id="ready">Ready</h2>`)
		case "/docs/e":
			http.Error(w, "boom", http.StatusInternalServerError)
		case "/docs/later":
			w.Header().Set("Retry-After", "3600")
			http.Error(w, "come back in an hour", http.StatusTooManyRequests)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeSite) count(p string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits[p]
}

func TestLiveChecker(t *testing.T) {
	f := newFakeSite(t)
	c := NewLiveChecker(LiveOptions{RatePerHost: 1000, Backoff: time.Millisecond, Retries: 2, Timeout: 5 * time.Second})
	ctx := context.Background()
	u := f.srv.URL
	tests := []struct {
		url    string
		status Status
		sug    string
		cause  string
	}{
		{u + "/docs/a", StatusOK, "", ""},
		{u + "/docs/a#intro", StatusOK, "", ""},
		{u + "/docs/a#legacy", StatusOK, "", ""},
		{u + "/docs/a#para", StatusOK, "", ""},
		{u + "/docs/a#1-1-intro", StatusAnchorMissing, "11-intro", "slug rule mismatch"},
		{u + "/docs/a#quality-of-service", StatusAnchorMissing, "qos", "explicit heading id"},
		{u + "/docs/a#intr", StatusAnchorMissing, "intro", ""},
		{u + "/docs/b#top", StatusRedirected, "", "trailing-slash mismatch"},
		{u + "/docs/moved#intro", StatusRedirected, "", "redirected to"},
		{u + "/docs/c", StatusPageMissing, "", "HTTP 404"},
		{u + "/docs/d#ready", StatusOK, "", ""},
		{u + "/docs/e", StatusError, "", ""},
		{"/relative#x", StatusExternal, "", ""},
		{u + "/docs/later", StatusError, "", ""},
	}
	var wg sync.WaitGroup
	results := make([]Result, len(tests))
	for i, tt := range tests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = c.Check(ctx, tt.url)
		}()
	}
	wg.Wait()
	for i, tt := range tests {
		r := results[i]
		if r.Status != tt.status || r.Suggestion != tt.sug || !strings.Contains(r.Cause, tt.cause) {
			t.Errorf("Check(%s) = %+v; want %s suggestion %q cause ~%q", tt.url, r, tt.status, tt.sug, tt.cause)
		}
	}
	if r := results[7]; r.RedirectTo != u+"/docs/b/#top" {
		t.Errorf("redirect_to = %q", r.RedirectTo)
	}
	// One fetch per page however many anchors were asked (the redirect
	// target /docs/a is fetched once more through /docs/moved).
	if n := f.count("/docs/a"); n != 2 {
		t.Errorf("/docs/a fetched %d times, want 2", n)
	}
	if n := f.count("/docs/d"); n != 2 {
		t.Errorf("/docs/d fetched %d times, want 2 (429 then ok)", n)
	}
	if n := f.count("/docs/e"); n != 3 {
		t.Errorf("/docs/e fetched %d times, want 3 (1 + 2 retries)", n)
	}
	// A Retry-After past MaxBackoff is not waited, and not retried.
	if n := f.count("/docs/later"); n != 1 {
		t.Errorf("/docs/later fetched %d times, want 1 (asked to wait an hour)", n)
	}
	// Cached: no new request.
	c.Check(ctx, u+"/docs/a#qos")
	if n := f.count("/docs/a"); n != 2 {
		t.Errorf("/docs/a fetched again: %d", n)
	}
}

func TestLiveCheckerRateLimitAndConcurrency(t *testing.T) {
	var inFlight, peak atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		fmt.Fprint(w, "<p>ok</p>")
	}))
	defer srv.Close()
	c := NewLiveChecker(LiveOptions{RatePerHost: 50, Concurrency: 2})
	start := time.Now()
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := c.Check(context.Background(), fmt.Sprintf("%s/p%d", srv.URL, i)); r.Status != StatusOK {
				t.Errorf("p%d: %+v", i, r)
			}
		}()
	}
	wg.Wait()
	// 6 requests at 50/s to one host: at least 5 intervals of 20 ms.
	if el := time.Since(start); el < 95*time.Millisecond {
		t.Errorf("6 requests took %v; the per-host rate limit was not applied", el)
	}
	if p := peak.Load(); p > 2 {
		t.Errorf("peak concurrency %d > 2", p)
	}
}

func TestLiveCheckerTimeoutAndCancel(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c := NewLiveChecker(LiveOptions{Timeout: 50 * time.Millisecond, Retries: -1, RatePerHost: 1000})
	r := c.Check(context.Background(), srv.URL+"/slow")
	if r.Status != StatusError || r.Error == "" {
		t.Errorf("timeout: %+v", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r := c.Check(ctx, srv.URL+"/other"); r.Status != StatusError {
		t.Errorf("cancelled: %+v", r)
	}
}

func TestStatusCache(t *testing.T) {
	var calls atomic.Int32
	chk := checkerFunc(func(ctx context.Context, u string) Result {
		calls.Add(1)
		time.Sleep(10 * time.Millisecond)
		return Result{URL: u, Status: StatusOK}
	})
	c := NewStatusCache(chk)
	if _, ok := c.Get("x"); ok {
		t.Error("Get before Check")
	}
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := c.Check(context.Background(), "x"); r.Status != StatusOK {
				t.Errorf("%+v", r)
			}
		}()
	}
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("checker called %d times, want 1", n)
	}
	if r, ok := c.Get("x"); !ok || r.Status != StatusOK {
		t.Errorf("Get = %+v %v", r, ok)
	}
	// A cancelled check is not remembered.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c2 := NewStatusCache(checkerFunc(func(ctx context.Context, u string) Result {
		return Result{URL: u, Status: StatusError, Error: ctx.Err().Error()}
	}))
	c2.Check(ctx, "y")
	if _, ok := c2.Get("y"); ok || c2.Len() != 0 {
		t.Error("cancelled result was cached")
	}
}

type checkerFunc func(context.Context, string) Result

func (f checkerFunc) Check(ctx context.Context, u string) Result { return f(ctx, u) }
