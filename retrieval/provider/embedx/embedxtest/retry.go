package embedxtest

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// RetryCase is a failing first answer and whether a ragscope client
// retries it: 408, 409, 429 and 5xx are retried (embedx.Retryable), after
// the Retry-After the answer asks, else after the first backoff; every
// other failing status is not.
type RetryCase struct {
	Status     int
	RetryAfter string
	Retried    bool
}

// Name names the case for t.Run: "429" or "429 after 2".
func (c RetryCase) Name() string {
	if c.RetryAfter == "" {
		return fmt.Sprint(c.Status)
	}
	return fmt.Sprintf("%d after %s", c.Status, c.RetryAfter)
}

// RetryCases are the first answers every client's retry test serves,
// each followed by a success.
func RetryCases() []RetryCase {
	return []RetryCase{
		{http.StatusRequestTimeout, "", true},
		{http.StatusConflict, "", true},
		{http.StatusTooManyRequests, "", true},
		{http.StatusTooManyRequests, "2", true},
		{http.StatusInternalServerError, "", true},
		{http.StatusServiceUnavailable, "3", true},
		{http.StatusBadRequest, "", false},
		{http.StatusUnauthorized, "", false},
		{http.StatusForbidden, "", false},
		{http.StatusNotFound, "", false},
		{http.StatusUnprocessableEntity, "1", false},
	}
}

// CheckRetry checks what a call made of c's answer, with the attempts
// and the backoff from base of a client's policy: one request and its
// error when c is not retried; else a second request that succeeds after
// one wait, of the Retry-After asked (whole seconds) or of the first
// backoff (base/2 to base).
func CheckRetry(t *testing.T, c RetryCase, base time.Duration, requests int, waits []time.Duration, err error) {
	t.Helper()
	if !c.Retried {
		if err == nil || requests != 1 || len(waits) != 0 {
			t.Fatalf("%d requests, waits %v, err %v: want one request and its error", requests, waits, err)
		}
		return
	}
	if err != nil || requests != 2 || len(waits) != 1 {
		t.Fatalf("%d requests, waits %v, err %v: want a retry that succeeds", requests, waits, err)
	}
	if c.RetryAfter != "" {
		var s int
		if _, serr := fmt.Sscan(c.RetryAfter, &s); serr != nil {
			t.Fatalf("Retry-After %q: %v", c.RetryAfter, serr)
		}
		if want := time.Duration(s) * time.Second; waits[0] != want {
			t.Errorf("waited %v, want the Retry-After %v", waits[0], want)
		}
	} else if waits[0] < base/2 || waits[0] > base {
		t.Errorf("waited %v, want the first backoff (%v to %v)", waits[0], base/2, base)
	}
}
