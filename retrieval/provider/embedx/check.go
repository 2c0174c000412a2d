package embedx

import (
	"fmt"
	"math"
	"time"

	"ragscope/retrieval/provider/netx"
)

// CheckVector says what makes v unusable as an embedding ("" when it is
// usable): no values, a value that is not a finite number (NaN, ±Inf, or
// a float64 beyond float32 that became Inf), or all values zero (a
// vector with no direction: every cosine with it is 0). Embed runs it on
// every vector a provider returns, before it is cached.
func CheckVector(v []float32) string {
	if len(v) == 0 {
		return "an empty embedding"
	}
	zero := true
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return "a number out of range in an embedding"
		}
		if x != 0 {
			zero = false
		}
	}
	if zero {
		return "an embedding of all zeros"
	}
	return ""
}

// Tries is what a failed call's message says of its attempts: "" for a
// single attempt, " after N attempts" when it was retried. stop.Asked > 0
// is a Retry-After past the time left (netx.Policy), which ended the
// retries: then it says so, ": asked to wait 1 h, past the 4 s timeout;
// not retried" (after the first request) or " after N attempts: asked to
// wait 1 h, past the 4 s timeout; not retried again".
func Tries(attempts int, stop netx.Step) string {
	switch {
	case stop.Asked > 0 && attempts <= 1:
		return ": " + stop.NotRetried()
	case stop.Asked > 0:
		return fmt.Sprintf(" after %d attempts: %s again", attempts, stop.NotRetried())
	case attempts > 1:
		return fmt.Sprintf(" after %d attempts", attempts)
	}
	return ""
}

// Wait writes a wait for a message, rounded to the second: "1 h",
// "1 h 30 min", "2 min", "45 s" (netx.Words).
func Wait(d time.Duration) string { return netx.Words(d) }
