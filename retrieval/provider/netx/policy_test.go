package netx

import (
	"context"
	"testing"
	"time"
)

// The time left is the least of the deadline, the per-call timeout and
// MaxWait, and a Retry-After past it is not waited at all.
func TestPolicyRetryAfterPastTheTimeLeft(t *testing.T) {
	p := Policy{Attempts: 3, Base: 500 * time.Millisecond, Max: 8 * time.Second, Timeout: 4 * time.Second, MaxWait: MaxWait}
	ctx := context.Background()
	if s := p.Next(ctx, 1, time.Hour); s.Retry || s.Asked != time.Hour || s.Limit != "the 4 s timeout" {
		t.Fatalf("an hour past the timeout: %+v", s)
	}
	if got := p.Next(ctx, 1, time.Hour).NotRetried(); got != "asked to wait 1 h, past the 4 s timeout; not retried" {
		t.Fatalf("NotRetried = %q", got)
	}
	if s := p.Next(ctx, 1, 3*time.Second); !s.Retry || s.Wait != 3*time.Second {
		t.Fatalf("3 s within the timeout is waited: %+v", s)
	}
	if s := p.Next(ctx, 3, time.Second); s.Retry || s.Asked != 0 {
		t.Fatalf("attempts used up: %+v", s)
	}
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if s := p.Next(dctx, 1, 3*time.Second); s.Retry || s.Asked != 3*time.Second || s.Limit != "the 2 s left" {
		t.Fatalf("past the deadline: %+v", s)
	}
	tctx, cancelT := context.WithTimeout(ctx, 4*time.Second)
	defer cancelT()
	if s := p.Next(tctx, 1, time.Hour); s.Retry || s.Limit != "the 4 s timeout" {
		t.Fatalf("a deadline that is the timeout is named so: %+v", s)
	}
	long := Policy{Attempts: 3, Timeout: time.Hour, MaxWait: MaxWait}
	if s := long.Next(ctx, 1, time.Minute); s.Retry || s.Limit != "the 30 s ragscope waits at most" {
		t.Fatalf("past MaxWait: %+v", s)
	}
	// A backoff past the time left is no retry, and no Retry-After to name.
	short := Policy{Attempts: 3, Base: time.Second, Max: time.Second, Timeout: 100 * time.Millisecond}
	if s := short.Next(ctx, 1, 0); s.Retry || s.Asked != 0 {
		t.Fatalf("backoff past the timeout: %+v", s)
	}
	cctx, stop := context.WithCancel(ctx)
	stop()
	if s := p.Next(cctx, 1, 0); s.Retry {
		t.Fatalf("an ended context is not retried: %+v", s)
	}
}
