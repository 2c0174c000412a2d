// Package netx holds the HTTP retry rule every ragscope client shares
// (the providers' embed, chat and rerank calls, the live link checker):
// Policy, which decides each wait and refuses one past the time left,
// Retry-After parsing and exponential backoff with jitter.
package netx

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryAfter reads a Retry-After header: delay-seconds or an HTTP
// date. It returns 0 when the header is absent or invalid.
func RetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// Backoff returns the wait before retry number n (1-based): exponential
// from base, doubling, capped at max, with "equal jitter" (half fixed,
// half random) so concurrent clients spread out.
func Backoff(n int, base, max time.Duration) time.Duration {
	d := base
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(half)+1))
}

// Sleep waits d, or until ctx ends (then it returns ctx's error).
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
