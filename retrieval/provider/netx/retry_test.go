package netx

import (
	"context"
	"errors"
	"testing"
	"time"
)

// retryRun records a Retry: the attempts try saw and the waits slept.
type retryRun struct {
	tries []int
	waits []time.Duration
}

func (r *retryRun) sleep(ctx context.Context, d time.Duration) error {
	r.waits = append(r.waits, d)
	return ctx.Err()
}

// Retry tries until an attempt is not retryable, waiting the policy's
// step between attempts; it stops at the attempts allowed.
func TestRetryAttemptsAndWaits(t *testing.T) {
	p := Policy{Attempts: 3, Base: 100 * time.Millisecond, Max: time.Second}
	var r retryRun
	n, stop, err := p.Retry(context.Background(), r.sleep, func(n int) (bool, time.Duration) {
		r.tries = append(r.tries, n)
		return n < 2, 2 * time.Second
	})
	if err != nil || n != 2 || stop != (Step{}) || len(r.tries) != 2 || len(r.waits) != 1 || r.waits[0] != 2*time.Second {
		t.Fatalf("success on the 2nd attempt: n=%d stop=%+v err=%v tries=%v waits=%v", n, stop, err, r.tries, r.waits)
	}
	r = retryRun{}
	n, stop, err = p.Retry(context.Background(), r.sleep, func(n int) (bool, time.Duration) {
		r.tries = append(r.tries, n)
		return true, 0
	})
	if err != nil || n != 3 || stop.Retry || stop.Asked != 0 || len(r.waits) != 2 {
		t.Fatalf("always retryable: n=%d stop=%+v err=%v waits=%v", n, stop, err, r.waits)
	}
	for _, w := range r.waits {
		if w < 50*time.Millisecond || w > time.Second {
			t.Fatalf("a backoff outside base/2..max: %v", r.waits)
		}
	}
}

// A Retry-After past the time left ends the retries at once, named in the
// Step returned; a wait cut short by the context returns its error.
func TestRetryStopsAndCancels(t *testing.T) {
	p := Policy{Attempts: 5, Base: time.Millisecond, Max: time.Millisecond, Timeout: 4 * time.Second}
	var r retryRun
	n, stop, err := p.Retry(context.Background(), r.sleep, func(int) (bool, time.Duration) { return true, time.Hour })
	if err != nil || n != 1 || stop.Asked != time.Hour || stop.Limit != "the 4 s timeout" || len(r.waits) != 0 {
		t.Fatalf("an hour's Retry-After: n=%d stop=%+v err=%v waits=%v", n, stop, err, r.waits)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sleep := func(context.Context, time.Duration) error { cancel(); return context.Canceled }
	n, _, err = p.Retry(ctx, sleep, func(int) (bool, time.Duration) { return true, 0 })
	if n != 1 || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled in the wait: n=%d err=%v", n, err)
	}
	// With no sleep given, Retry waits with Sleep.
	n, _, err = Policy{Attempts: 2, Base: time.Millisecond, Max: time.Millisecond}.Retry(context.Background(), nil, func(int) (bool, time.Duration) { return true, 0 })
	if n != 2 || err != nil {
		t.Fatalf("default sleep: n=%d err=%v", n, err)
	}
}
