package netx

import (
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"":                              0,
		"3":                             3 * time.Second,
		"0.25":                          250 * time.Millisecond,
		"-1":                            0,
		"soon":                          0,
		"Wed, 01 Jan 2025 00:00:05 GMT": 5 * time.Second,
		"Tue, 31 Dec 2024 23:00:00 GMT": 0,
	} {
		if got := RetryAfter(in, now); got != want {
			t.Errorf("RetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestBackoffBounds(t *testing.T) {
	for n := 1; n <= 10; n++ {
		d := Backoff(n, 500*time.Millisecond, 8*time.Second)
		hi := min(500*time.Millisecond<<(n-1), 8*time.Second)
		if d < hi/2 || d > hi {
			t.Errorf("Backoff(%d) = %v, want in [%v, %v]", n, d, hi/2, hi)
		}
	}
}
