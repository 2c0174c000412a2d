// Package parallel runs work in goroutines, a bounded number at once.
package parallel

import (
	"context"
	"sync"
)

// Limit runs functions in goroutines, at most n at once: a counting
// semaphore and a WaitGroup in one. Its methods may be called from several
// goroutines, Wait after the last Go.
type Limit struct {
	sem chan struct{}
	wg  sync.WaitGroup
}

// New returns a Limit of n goroutines at once (at least one).
func New(n int) *Limit {
	return &Limit{sem: make(chan struct{}, max(n, 1))}
}

// Go runs fn in a new goroutine once a slot is free, holding the slot
// until fn returns.
func (l *Limit) Go(fn func()) {
	l.wg.Go(func() {
		l.sem <- struct{}{}
		defer func() { <-l.sem }()
		fn()
	})
}

// GoCtx is Go that stops waiting for a slot when ctx ends: then the
// goroutine runs cancelled instead of fn (cancelled may be nil).
func (l *Limit) GoCtx(ctx context.Context, fn, cancelled func()) {
	l.wg.Go(func() {
		select {
		case l.sem <- struct{}{}:
		case <-ctx.Done():
			if cancelled != nil {
				cancelled()
			}
			return
		}
		defer func() { <-l.sem }()
		fn()
	})
}

// Wait waits for every goroutine started by Go and GoCtx to return.
func (l *Limit) Wait() { l.wg.Wait() }
