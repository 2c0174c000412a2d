package fakeapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"ragscope/retrieval/provider/netx"
	"sync"
	"time"
)

// Calls records a fake server's requests: it counts them, queues the
// failures a test asks for (F is the fake's failure type), delays answers,
// and keeps the size of every successful batch and the last well-formed
// request (Req is the fake's request type). Its methods are safe for
// concurrent use; the zero value is ready.
type Calls[F, Req any] struct {
	mu       sync.Mutex
	latency  time.Duration
	failures []F
	requests int
	batches  []int
	last     Req
}

// SetLatency makes every following request wait d before answering (or
// until the client goes away).
func (c *Calls[F, Req]) SetLatency(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.latency = d
}

// Fail queues failures: the next len(f) requests get them, in order.
func (c *Calls[F, Req]) Fail(f ...F) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failures = append(c.failures, f...)
}

// Requests is the number of requests received so far (failed ones
// included).
func (c *Calls[F, Req]) Requests() int { return locked(&c.mu, func() int { return c.requests }) }

// BatchSizes lists the number of texts of every successful embed call.
func (c *Calls[F, Req]) BatchSizes() []int {
	return locked(&c.mu, func() []int { return append([]int(nil), c.batches...) })
}

// Begin counts a request and returns the latency to wait and the failure
// queued for it (nil: none).
func (c *Calls[F, Req]) Begin() (time.Duration, *F) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests++
	if len(c.failures) == 0 {
		return c.latency, nil
	}
	f := c.failures[0]
	c.failures = c.failures[1:]
	return c.latency, &f
}

// Record records a successful embed call, req, of n texts.
func (c *Calls[F, Req]) Record(req Req, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.batches = append(c.batches, n)
	c.last = req
}

// LastRequest is the body of the last well-formed request.
func (c *Calls[F, Req]) LastRequest() Req { return locked(&c.mu, func() Req { return c.last }) }

// Wait waits d, or until ctx ends (the client went away); it reports
// whether the whole wait passed.
func Wait(ctx context.Context, d time.Duration) bool {
	return d <= 0 || netx.Sleep(ctx, d) == nil
}

// ChatLog records a fake server's chats: the replies a test queued (Req
// is the fake's chat request type, Reply its reply type), the last
// request and the count. Its methods are safe for concurrent use; the zero
// value is ready.
type ChatLog[Req, Reply any] struct {
	mu      sync.Mutex
	replies []Reply
	last    Req
	chats   int
}

// Reply queues replies for the next len(r) chats; chats with none queued
// get the fake's default reply.
func (c *ChatLog[Req, Reply]) Reply(r ...Reply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.replies = append(c.replies, r...)
}

// LastChat is the body of the last chat request.
func (c *ChatLog[Req, Reply]) LastChat() Req { return locked(&c.mu, func() Req { return c.last }) }

// Chats is the number of well-formed chat requests answered.
func (c *ChatLog[Req, Reply]) Chats() int { return locked(&c.mu, func() int { return c.chats }) }

// locked is get's value, read while mu is held.
func locked[T any](mu *sync.Mutex, get func() T) T {
	mu.Lock()
	defer mu.Unlock()
	return get()
}

// Next records req and returns the reply queued for it, or byDefault's.
func (c *ChatLog[Req, Reply]) Next(req Req, byDefault func(Req) Reply) Reply {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = req
	c.chats++
	if len(c.replies) == 0 {
		return byDefault(req)
	}
	r := c.replies[0]
	c.replies = c.replies[1:]
	return r
}

// Endpoint is a fake server's address and the key it accepts.
type Endpoint struct {
	// URL is the API root, to pass as the client's base URL.
	URL string
	// Key is the API key the server accepts.
	Key string

	srv *httptest.Server
}

// Start serves h on a loopback port for a fake that accepts key; root is
// appended to the server's address in URL ("/v1"). Close it when done.
func Start(key, root string, h http.HandlerFunc) Endpoint {
	srv := httptest.NewServer(h)
	return Endpoint{URL: srv.URL + root, Key: key, srv: srv}
}

// Close shuts the server down.
func (e Endpoint) Close() { e.srv.Close() }

// Pace waits before piece i of a streamed reply as the reply asks: from
// piece stall on (stall > 0) until the client goes away; after the first
// piece, until hold is closed (nil: no wait); delay before every piece. It
// reports false when the client went away.
func Pace(ctx context.Context, i, stall int, hold <-chan struct{}, delay time.Duration) bool {
	if stall > 0 && i == stall {
		<-ctx.Done()
		return false
	}
	if hold != nil && i > 0 {
		select {
		case <-hold:
		case <-ctx.Done():
			return false
		}
	}
	return Wait(ctx, delay)
}
