package netx

import (
	"context"
	"fmt"
	"time"
)

// MaxWait is the longest Retry-After any ragscope client waits: a longer
// one ends the retries at once (Policy.MaxWait).
const MaxWait = 30 * time.Second

// Policy is the one retry rule every ragscope client shares (Cohere's
// embed, rerank and chat, OpenAI, Gemini): how long to wait before the
// next attempt, and when not to retry at all. A server's Retry-After
// longer than the time left — until the context's deadline, the per-call
// Timeout, or MaxWait, whichever is least — is not waited even in part:
// the call fails at once and says so (Step.Asked, Step.Limit).
type Policy struct {
	// Attempts is the number of requests in all; below 1 counts as 1.
	Attempts int
	// Base and Max bound the exponential backoff between attempts.
	Base, Max time.Duration
	// Timeout is the per-call timeout (--timeout): no wait is longer.
	// 0 leaves the wait to the deadline and MaxWait.
	Timeout time.Duration
	// MaxWait is the longest Retry-After worth waiting at all; 0 means
	// no bound beyond the deadline and Timeout.
	MaxWait time.Duration
}

// Step is what follows a failed attempt.
type Step struct {
	// Retry reports whether to make another attempt after Wait.
	Retry bool
	// Wait is the time to wait before it.
	Wait time.Duration
	// Asked is a server's Retry-After that ended the retries because it
	// is past the time left; 0 when the retries ended otherwise.
	Asked time.Duration
	// Limit names what Asked is past, for a message: "the 4 s timeout",
	// "the 3 s left", "the 30 s ragscope waits at most".
	Limit string
}

// NotRetried is how a message says that a server's wait was not kept:
// "asked to wait 1 h, past the 4 s timeout; not retried" ("" when Asked
// is 0).
func (s Step) NotRetried() string {
	if s.Asked <= 0 {
		return ""
	}
	return fmt.Sprintf("asked to wait %s, past %s; not retried", Words(s.Asked), s.Limit)
}

// Left is the longest a wait may last now, and what bounds it: the time
// until ctx's deadline, the per-call Timeout and MaxWait, whichever is
// least. ok is false when nothing bounds it.
func (p Policy) Left(ctx context.Context, now time.Time) (left time.Duration, limit string, ok bool) {
	if p.Timeout > 0 {
		left, limit, ok = p.Timeout, "the "+Words(p.Timeout)+" timeout", true
	}
	if dl, has := ctx.Deadline(); has {
		if d := max(dl.Sub(now), 0); !ok || d < left {
			left, ok = d, true
			// A deadline within a second of the timeout is the timeout
			// itself (the caller bounds the call by it): say so.
			if p.Timeout <= 0 || d < p.Timeout-time.Second {
				limit = "the " + Words(d) + " left"
			}
		}
	}
	if p.MaxWait > 0 && (!ok || p.MaxWait < left) {
		left, limit, ok = p.MaxWait, "the "+Words(p.MaxWait)+" ragscope waits at most", true
	}
	return left, limit, ok
}

// Next decides what follows failed attempt n (1-based) of a retryable
// failure whose answer asked retryAfter (0 when it did not ask). There is
// no retry when the attempts are used up, when ctx has ended, or when
// the wait would outlast the time left (Left); a Retry-After past it is
// reported in Asked, a backoff past it is not (the failure itself is
// the cause then).
func (p Policy) Next(ctx context.Context, n int, retryAfter time.Duration) Step {
	if ctx.Err() != nil || n >= max(p.Attempts, 1) {
		return Step{}
	}
	wait := Backoff(n, p.Base, p.Max)
	if retryAfter > 0 {
		wait = retryAfter
	}
	if left, limit, ok := p.Left(ctx, time.Now()); ok && wait > left {
		if retryAfter > 0 {
			return Step{Asked: retryAfter, Limit: limit}
		}
		return Step{}
	}
	return Step{Retry: true, Wait: wait}
}

// Words writes a duration for a message, rounded to the second (to the
// millisecond below one): "1 h", "1 h 30 min", "2 min", "45 s".
func Words(d time.Duration) string {
	if d > 0 && d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	d = d.Round(time.Second)
	h, m, s := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	switch {
	case h > 0 && m > 0:
		return fmt.Sprintf("%d h %d min", h, m)
	case h > 0:
		return fmt.Sprintf("%d h", h)
	case m > 0 && s > 0:
		return fmt.Sprintf("%d min %d s", m, s)
	case m > 0:
		return fmt.Sprintf("%d min", m)
	}
	return fmt.Sprintf("%d s", s)
}
