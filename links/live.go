package links

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"

	"ragscope/retrieval"
	"ragscope/retrieval/docusaurus"
	"ragscope/retrieval/provider/netx"
)

// LiveOptions tune a LiveChecker. Zero values take the defaults.
type LiveOptions struct {
	// Client makes the requests (default: a client with Timeout).
	Client *http.Client
	// Concurrency bounds requests in flight over all hosts (default 4).
	Concurrency int
	// RatePerHost is the most requests per second to one host (default 5).
	RatePerHost float64
	// Timeout bounds each request (default 15 s).
	Timeout time.Duration
	// Retries is how many times a 429, 5xx or transport error is retried
	// (default 3; negative for none).
	Retries int
	// Backoff is the first retry's delay, doubled each time with jitter and
	// capped at MaxBackoff (defaults 500 ms and 10 s). A Retry-After header
	// wins when it is within MaxBackoff; a longer one ends the retries.
	Backoff    time.Duration
	MaxBackoff time.Duration
	// MaxBody caps the bytes of HTML read per page (default 8 MiB).
	MaxBody int64
	// UserAgent is sent with every request.
	UserAgent string
}

// LiveChecker checks URLs against the live site over HTTP: the page by its
// status code (redirects followed and reported), the anchor by the id
// attributes (and <a name>) of the returned HTML. Each page is fetched
// once; results are cached in memory for the checker's lifetime.
type LiveChecker struct {
	opts LiveOptions
	sem  chan struct{}

	flight singleflight.Group
	mu     sync.Mutex
	pages  map[string]*pageFetch // finished fetches
	hosts  map[string]*rate.Limiter
	down   map[string]error // hosts that could not be resolved or connected to
}

// pageFetch is one page's fetch, shared by every URL on that page.
type pageFetch struct {
	status  int
	final   string
	ids     map[string]bool
	anchors []string
	heads   []Heading
	err     error
}

// NewLiveChecker returns a live checker with opts.
func NewLiveChecker(opts LiveOptions) *LiveChecker {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 4
	}
	if opts.RatePerHost <= 0 {
		opts.RatePerHost = 5
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 15 * time.Second
	}
	if opts.Retries == 0 {
		opts.Retries = 3
	}
	if opts.Backoff <= 0 {
		opts.Backoff = 500 * time.Millisecond
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 10 * time.Second
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = 8 << 20
	}
	if opts.UserAgent == "" {
		opts.UserAgent = "ragscope-links/1 (+citation link audit)"
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: opts.Timeout}
	}
	return &LiveChecker{
		opts:  opts,
		sem:   make(chan struct{}, opts.Concurrency),
		pages: map[string]*pageFetch{},
		hosts: map[string]*rate.Limiter{},
		down:  map[string]error{},
	}
}

// Check fetches rawURL's page (once per page) and checks its anchor.
func (c *LiveChecker) Check(ctx context.Context, rawURL string) Result {
	r := Result{URL: rawURL}
	if strings.TrimSpace(rawURL) == "" {
		r.Status = StatusNoURL
		return r
	}
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		r.Status, r.Cause = StatusExternal, "not an absolute http(s) URL; set the site URL to check site-relative citations live"
		return r
	}
	r.Anchor = u.Fragment
	if err := c.hostDown(strings.ToLower(u.Host)); err != nil {
		r.Status, r.Error = StatusError, err.Error()
		return r
	}
	page := *u
	page.Fragment, page.RawFragment = "", ""
	pf := c.fetch(ctx, page.String())
	r.HTTPStatus = pf.status
	if pf.err != nil {
		r.Status, r.Error = StatusError, pf.err.Error()
		return r
	}
	switch {
	case pf.status == http.StatusNotFound || pf.status == http.StatusGone:
		r.Status = StatusPageMissing
		r.Cause = fmt.Sprintf("HTTP %d", pf.status)
		return r
	case pf.status >= 400:
		r.Status = StatusError
		r.Error = fmt.Sprintf("HTTP %d", pf.status)
		if pf.status < 500 && pf.status != http.StatusTooManyRequests {
			r.Status, r.Error, r.Cause = StatusPageMissing, "", fmt.Sprintf("HTTP %d", pf.status)
		}
		return r
	}
	r.Page = pf.final
	r.Status = StatusOK
	if pf.final != page.String() {
		r.Status = StatusRedirected
		r.RedirectTo = pf.final
		if u.Fragment != "" {
			r.RedirectTo += "#" + u.Fragment
		}
		r.Cause = "redirected to " + pf.final
		if strings.TrimSuffix(pf.final, "/") == strings.TrimSuffix(page.String(), "/") {
			r.Cause = "trailing-slash mismatch: the server redirects to " + pf.final
		}
	}
	if u.Fragment == "" || pf.ids[u.Fragment] {
		return r
	}
	r.Status = StatusAnchorMissing
	r.Suggestion, r.Cause = diagnoseAnchor(u.Fragment, pf.heads, pf.anchors)
	return r
}

// fetch returns the page's fetch: from the cache, else the one in flight
// (single-flight: every URL on a page shares one request), else a new one.
// A fetch cut short by its caller's context is not cached, and a caller
// whose own context is still live tries again.
func (c *LiveChecker) fetch(ctx context.Context, pageURL string) *pageFetch {
	for {
		c.mu.Lock()
		pf, ok := c.pages[pageURL]
		c.mu.Unlock()
		if ok {
			return pf
		}
		ch := c.flight.DoChan(pageURL, func() (any, error) {
			pf := &pageFetch{}
			c.load(ctx, pageURL, pf)
			if pf.err == nil || ctx.Err() == nil {
				c.mu.Lock()
				c.pages[pageURL] = pf
				c.mu.Unlock()
			}
			return pf, nil
		})
		select {
		case r := <-ch:
			pf := r.Val.(*pageFetch)
			if pf.err == nil || !r.Shared || ctx.Err() != nil {
				return pf
			}
			c.mu.Lock()
			_, cached := c.pages[pageURL]
			c.mu.Unlock()
			if cached {
				return pf
			}
			// The fetch we shared was cut short by its leader's context
			// and dropped; try again with ours.
		case <-ctx.Done():
			return &pageFetch{err: fmt.Errorf("check %s: %w", pageURL, ctx.Err())}
		}
	}
}

// load fetches pageURL with rate limiting, bounded concurrency and retries.
func (c *LiveChecker) load(ctx context.Context, pageURL string, pf *pageFetch) {
	host := ""
	if u, err := url.Parse(pageURL); err == nil {
		host = strings.ToLower(u.Host)
	}
	// The one retry rule every ragscope client follows (netx.Policy): a
	// Retry-After past MaxBackoff is not waited, and not retried.
	p := netx.Policy{Attempts: c.opts.Retries + 1, Base: c.opts.Backoff, Max: c.opts.MaxBackoff, MaxWait: c.opts.MaxBackoff}
	var (
		status int
		final  string
		body   []byte
		err    error
	)
	_, _, serr := p.Retry(ctx, nil, func(int) (bool, time.Duration) {
		var retryAfter time.Duration
		status, final, body, retryAfter, err = c.do(ctx, host, pageURL)
		if err != nil && unreachable(err) {
			return false, 0
		}
		return err != nil || status == http.StatusTooManyRequests || status >= 500, retryAfter
	})
	if serr != nil {
		pf.err = fmt.Errorf("fetch %s: %w", pageURL, serr)
		return
	}
	if err != nil && unreachable(err) {
		// No name or no connection: retrying, or asking for the host's
		// other pages, cannot help. Every later URL on the host fails at
		// once and the audit reports the outage.
		c.mu.Lock()
		if c.down[host] == nil {
			c.down[host] = &UnreachableError{Host: host, Err: err}
		}
		c.mu.Unlock()
		pf.err = fmt.Errorf("fetch %s: %w", pageURL, err)
		return
	}
	pf.status, pf.final = status, final
	if err != nil {
		pf.err = fmt.Errorf("fetch %s: %w", pageURL, err)
		return
	}
	if status < 400 {
		pf.ids, pf.anchors, pf.heads = parseHTMLAnchors(body)
	}
}

// do makes one GET. It returns the final status and URL (after redirects),
// the body for successful HTML responses, and a Retry-After delay.
func (c *LiveChecker) do(ctx context.Context, host, pageURL string) (status int, final string, body []byte, retryAfter time.Duration, err error) {
	if err := c.limiter(host).Wait(ctx); err != nil {
		return 0, "", nil, 0, err
	}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return 0, "", nil, 0, ctx.Err()
	}
	defer func() { <-c.sem }()
	rctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, pageURL, nil)
	if err != nil {
		return 0, "", nil, 0, err
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5")
	resp, err := c.opts.Client.Do(req)
	if err != nil {
		return 0, "", nil, 0, err
	}
	defer resp.Body.Close()
	final = resp.Request.URL.String()
	retryAfter = netx.RetryAfter(resp.Header.Get("Retry-After"), time.Now())
	if resp.StatusCode < 400 {
		body, err = io.ReadAll(io.LimitReader(resp.Body, c.opts.MaxBody))
		if err != nil {
			return resp.StatusCode, final, nil, 0, fmt.Errorf("read body: %w", err)
		}
	} else {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	}
	return resp.StatusCode, final, body, retryAfter, nil
}

// hostDown is the error that marked host unreachable, or nil.
func (c *LiveChecker) hostDown(host string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.down[host]
}

// Unreachable reports the first host the checker could not resolve or
// connect to (nil when every host answered). Audit turns it into an
// outage error: a site that cannot be reached is not a site of broken
// links.
func (c *LiveChecker) Unreachable() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	hosts := make([]string, 0, len(c.down))
	for h := range c.down {
		hosts = append(hosts, h)
	}
	if len(hosts) == 0 {
		return nil
	}
	slices.Sort(hosts)
	return c.down[hosts[0]]
}

// UnreachableError is a site host that has no address or refuses
// connections. It matches retrieval.ErrUnavailable (exit 3).
type UnreachableError struct {
	Host string
	Err  error
}

// Error says which host and why, and what to do.
func (e *UnreachableError) Error() string {
	cause := e.Err.Error()
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.As(e.Err, &dnsErr):
		cause = dnsErr.Error()
	case errors.As(e.Err, &opErr):
		cause = opErr.Error()
	}
	return fmt.Sprintf("Cannot reach %s (%s). Check the network and the site URL (--base-url), or drop --live to audit against the local site", e.Host, cause)
}

// Unwrap returns the network error.
func (e *UnreachableError) Unwrap() error { return e.Err }

// Is matches retrieval.ErrUnavailable.
func (e *UnreachableError) Is(target error) bool { return target == retrieval.ErrUnavailable }

// unreachable reports whether err means the host has no address or
// refuses connections (a DNS failure, a dial error), as opposed to a slow
// or failing server.
func unreachable(err error) bool {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial" && !opErr.Timeout()
}

// limiter returns host's rate limiter: RatePerHost requests a second,
// no bursts.
func (c *LiveChecker) limiter(host string) *rate.Limiter {
	c.mu.Lock()
	defer c.mu.Unlock()
	l, ok := c.hosts[host]
	if !ok {
		l = rate.NewLimiter(rate.Limit(c.opts.RatePerHost), 1)
		c.hosts[host] = l
	}
	return l
}

// parseHTMLAnchors returns the ids of an HTML page (id attributes of every
// element and name attributes of <a>), in document order, and its h1-h6
// headings with their text content (for diagnosing slug mismatches).
func parseHTMLAnchors(body []byte) (map[string]bool, []string, []Heading) {
	ids := map[string]bool{}
	var order []string
	var heads []Heading
	add := func(id string) {
		if id != "" && !ids[id] {
			ids[id] = true
			order = append(order, id)
		}
	}
	z := html.NewTokenizer(strings.NewReader(string(body)))
	var cur *Heading
	var text strings.Builder
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return ids, order, heads
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			id := ""
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				switch string(k) {
				case "id":
					id = string(v)
					add(id)
				case "name":
					if a == atom.A {
						add(string(v))
					}
				}
			}
			if cur == nil && tt == html.StartTagToken && id != "" {
				if lvl := docusaurus.HTMLHeadingLevel(a); lvl > 0 {
					cur = &Heading{ID: id, Level: lvl}
					text.Reset()
				}
			}
		case html.EndTagToken:
			if cur == nil {
				continue
			}
			// Headings do not nest, so the first closing tag of the
			// heading's level ends it.
			if name, _ := z.TagName(); docusaurus.HTMLHeadingLevel(atom.Lookup(name)) == cur.Level {
				cur.Text = strings.TrimSpace(strings.ReplaceAll(text.String(), "\u200b", ""))
				heads = append(heads, *cur)
				cur = nil
			}
		case html.TextToken:
			if cur != nil {
				text.Write(z.Text())
			}
		}
	}
}
