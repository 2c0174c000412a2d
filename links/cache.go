package links

import (
	"context"
	"sync"
)

// StatusCache answers "what is the status of this URL" for a UI: Check runs
// the checker once per URL (concurrent callers of the same URL share the
// run) and remembers the result; Get reads it without checking. Safe for
// concurrent use. A check cut short by its context is not remembered.
type StatusCache struct {
	checker Checker

	mu      sync.Mutex
	entries map[string]*cacheEntry
}

type cacheEntry struct {
	done chan struct{}
	res  Result
}

// NewStatusCache returns an empty cache over checker.
func NewStatusCache(checker Checker) *StatusCache {
	return &StatusCache{checker: checker, entries: map[string]*cacheEntry{}}
}

// Get returns the remembered result of rawURL, if its check has finished.
func (c *StatusCache) Get(rawURL string) (Result, bool) {
	c.mu.Lock()
	e, ok := c.entries[rawURL]
	c.mu.Unlock()
	if !ok {
		return Result{}, false
	}
	select {
	case <-e.done:
		return e.res, true
	default:
		return Result{}, false
	}
}

// Check returns rawURL's result, checking it unless it is remembered or in
// flight. When ctx ends first, it returns a StatusError result.
func (c *StatusCache) Check(ctx context.Context, rawURL string) Result {
	for {
		c.mu.Lock()
		e, ok := c.entries[rawURL]
		if !ok {
			e = &cacheEntry{done: make(chan struct{})}
			c.entries[rawURL] = e
			c.mu.Unlock()
			e.res = c.checker.Check(ctx, rawURL)
			if ctx.Err() != nil && e.res.Status == StatusError {
				c.mu.Lock()
				delete(c.entries, rawURL)
				c.mu.Unlock()
			}
			close(e.done)
			return e.res
		}
		c.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			return Result{URL: rawURL, Status: StatusError, Error: ctx.Err().Error()}
		}
		c.mu.Lock()
		kept := c.entries[rawURL] == e
		c.mu.Unlock()
		if kept {
			return e.res
		}
		if ctx.Err() != nil {
			return Result{URL: rawURL, Status: StatusError, Error: ctx.Err().Error()}
		}
	}
}

// Len returns the number of remembered or in-flight URLs.
func (c *StatusCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
