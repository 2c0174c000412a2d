package embedx

import (
	"fmt"
	"math"
	"time"
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
// single attempt, " after N attempts" when it was retried. asked > 0 is
// a Retry-After longer than the client waits, which ended the retries:
// then it says so, ": asked to wait 1 h; not retried" (after the first
// request) or " after N attempts: asked to wait 1 h; not retried again".
func Tries(attempts int, asked time.Duration) string {
	switch {
	case asked > 0 && attempts <= 1:
		return ": asked to wait " + Wait(asked) + "; not retried"
	case asked > 0:
		return fmt.Sprintf(" after %d attempts: asked to wait %s; not retried again", attempts, Wait(asked))
	case attempts > 1:
		return fmt.Sprintf(" after %d attempts", attempts)
	}
	return ""
}

// Wait writes a wait for a message, rounded to the second: "1 h",
// "1 h 30 min", "2 min", "45 s".
func Wait(d time.Duration) string {
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
