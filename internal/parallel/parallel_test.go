package parallel

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
)

func TestLimitBoundsAndWaits(t *testing.T) {
	l := New(3)
	var active, most, done atomic.Int32
	for range 50 {
		l.Go(func() {
			n := active.Add(1)
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			runtime.Gosched()
			active.Add(-1)
			done.Add(1)
		})
	}
	l.Wait()
	if done.Load() != 50 || most.Load() > 3 {
		t.Fatalf("ran %d of 50, at most %d at once (limit 3)", done.Load(), most.Load())
	}
}

func TestGoCtxGivesUpWhenCancelled(t *testing.T) {
	l := New(1)
	release := make(chan struct{})
	started := make(chan struct{})
	l.Go(func() { close(started); <-release })
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var ran atomic.Bool
	gaveUp := make(chan struct{})
	l.GoCtx(ctx, func() { ran.Store(true) }, func() { close(gaveUp) })
	<-gaveUp // the slot is still held: only ctx can end the wait
	close(release)
	l.Wait()
	if ran.Load() {
		t.Fatal("fn ran after ctx ended")
	}
}
