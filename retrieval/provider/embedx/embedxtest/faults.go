// Package embedxtest holds the fault tests every embedding provider runs:
// one table of misbehaving servers (an HTML page or truncated JSON with
// 200, too few vectors, a size the model never makes, numbers out of
// range, a vector of zeros, a response past the read bound, a refused key that is echoed back, an unknown model, a wrong base
// URL, a server that never answers, a closed port), each with the error
// class and message the user must get. A provider describes its wire
// format (Wire) and calls Run from its own tests.
package embedxtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/embedx"
)

// Key is the API key the fault servers are called with; it must never
// appear in an error.
const Key = "sk-FAULTTESTx7-secret"

// Wire describes one provider's embedding API on the wire.
type Wire struct {
	// Name is how the provider's messages name it ("Cohere").
	Name string
	// Model is the model the embedder is made with; Dim its vector size.
	Model string
	Dim   int
	// New makes an embedder of Model against base with Key, a per-attempt
	// timeout, the read limits (zero: the defaults) and no cache.
	New func(base string, timeout time.Duration, limits embedx.Limits) (retrieval.Embedder, error)
	// Base maps the test server's root URL to the base URL setting.
	Base func(root string) string
	// Vectors is a 200 body carrying the given embeddings, each a JSON
	// array written out (so a test can send numbers Go cannot decode).
	Vectors func(vecs ...string) string
	// Error is the provider's JSON error body for status and message.
	Error func(status int, msg string) string
}

// fault is one misbehaving answer and what the user must be told.
type fault struct {
	name   string
	status int
	ctype  string
	body   func(w Wire) string
	// limits are the embedder's read limits (zero: the defaults).
	limits embedx.Limits
	// class is the one retrieval class the error must match.
	class error
	// say must all appear in the message; never must not.
	say   func(w Wire) []string
	never []string
}

func vec(n int, x string) string {
	return "[" + strings.TrimSuffix(strings.Repeat(x+",", n), ",") + "]"
}

func faults() []fault {
	invalid := func(extra ...string) func(Wire) []string {
		return func(w Wire) []string {
			return append([]string{w.Name, "answered with an invalid response", "200"}, extra...)
		}
	}
	notReach := []string{"Cannot reach", "cannot reach"}
	return []fault{
		{name: "HTML page with 200", status: 200, ctype: "text/html",
			body:  func(Wire) string { return "<html><body>\x1b[5mProxy sign-in\x1b[0m " + Key + "</body></html>" },
			class: retrieval.ErrUnavailable, say: invalid("Proxy sign-in"), never: append(notReach, "\x1b")},
		{name: "truncated JSON with 200", status: 200, ctype: "application/json",
			body:  func(w Wire) string { s := w.Vectors(vec(w.Dim, "0.1")); return s[:len(s)/2] },
			class: retrieval.ErrUnavailable, say: invalid(), never: notReach},
		{name: "no embeddings", status: 200, ctype: "application/json",
			body:  func(w Wire) string { return w.Vectors() },
			class: retrieval.ErrUnavailable, say: invalid("0 "), never: notReach},
		{name: "a size the model never makes", status: 200, ctype: "application/json",
			body:  func(w Wire) string { return w.Vectors(vec(7, "0.1")) },
			class: retrieval.ErrUnavailable,
			say:   func(w Wire) []string { return append(invalid()(w), "7-dimensional", fmt.Sprint(w.Dim)) },
			never: append(notReach, "use the model", "Use the model")},
		{name: "a number beyond float32", status: 200, ctype: "application/json",
			body:  func(w Wire) string { return w.Vectors(strings.Replace(vec(w.Dim, "0.1"), "0.1", "1e300", 1)) },
			class: retrieval.ErrUnavailable, say: invalid(), never: notReach},
		{name: "a number beyond float64", status: 200, ctype: "application/json",
			body:  func(w Wire) string { return w.Vectors(strings.Replace(vec(w.Dim, "0.1"), "0.1", "1e400", 1)) },
			class: retrieval.ErrUnavailable, say: invalid(), never: notReach},
		{name: "an embedding of all zeros", status: 200, ctype: "application/json",
			body:  func(w Wire) string { return w.Vectors(vec(w.Dim, "0")) },
			class: retrieval.ErrUnavailable, say: invalid("all zeros"), never: notReach},
		{name: "all zeros written as floats", status: 200, ctype: "application/json",
			body:  func(w Wire) string { return w.Vectors(vec(w.Dim, "-0.0e0")) },
			class: retrieval.ErrUnavailable, say: invalid("all zeros"), never: notReach},
		{name: "a response past the read bound", status: 200, ctype: "application/json",
			body:   func(w Wire) string { return w.Vectors(vec(w.Dim, "0.1")) }, // 4 bytes a value: past 2 KiB
			limits: embedx.Limits{Response: 2 << 10},
			class:  retrieval.ErrUnavailable,
			say: func(w Wire) []string {
				return []string{w.Name, "answered with an oversized response (HTTP 200): the response passed 2 KiB"}
			},
			never: append(notReach, "did not answer", "invalid response")},
		{name: "strings for numbers", status: 200, ctype: "application/json",
			body:  func(w Wire) string { return w.Vectors(vec(w.Dim, `"x"`)) },
			class: retrieval.ErrUnavailable, say: invalid(), never: notReach},
		{name: "refused key echoed back", status: 401, ctype: "application/json",
			body:  func(w Wire) string { return w.Error(401, "invalid api key "+Key) },
			class: retrieval.ErrAuth, say: func(w Wire) []string { return []string{w.Name, "401"} }, never: notReach},
		{name: "unknown model (400)", status: 400, ctype: "application/json",
			body:  func(w Wire) string { return w.Error(400, "model '"+w.Model+"' not found") },
			class: retrieval.ErrConfig, say: func(w Wire) []string { return []string{w.Model, "400"} }, never: notReach},
		{name: "unknown model (404)", status: 404, ctype: "application/json",
			body:  func(w Wire) string { return w.Error(404, "model '"+w.Model+"' not found") },
			class: retrieval.ErrConfig,
			say:   func(w Wire) []string { return []string{w.Model, "404", "--model"} },
			never: append(notReach, "endpoint was not found", "BASE_URL")},
		{name: "wrong base URL (HTML 404)", status: 404, ctype: "text/html",
			body:  func(Wire) string { return "<html><body>404 page not found</body></html>" },
			class: retrieval.ErrConfig, say: func(Wire) []string { return []string{"404", "BASE_URL"} }, never: append(notReach, "--model")},
	}
}

// Run runs the fault table against w, one in-process server per fault,
// then the timeout, Retry-After, retry, closed-port and cancellation
// cases.
func Run(t *testing.T, w Wire) {
	t.Helper()
	for _, f := range faults() {
		t.Run(f.name, func(t *testing.T) { runFault(t, w, f) })
	}
	for _, c := range []struct {
		name string
		run  func(t *testing.T, w Wire)
	}{
		{"no answer within the timeout", noAnswer},
		{"a Retry-After past the time left", retryAfterPastTimeLeft},
		{"retries ended by the deadline name the last answer", retriesEndedByDeadline},
		{"closed port", closedPort},
		{"cancelled", cancelled},
	} {
		t.Run(c.name, func(t *testing.T) { c.run(t, w) })
	}
}

// runFault serves f's answer to one embed call of w's embedder and
// checks the error's class and message, that the key never shows and
// that the call was not retried.
func runFault(t *testing.T, w Wire, f fault) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		rw.Header().Set("Content-Type", f.ctype)
		rw.WriteHeader(f.status)
		_, _ = io.WriteString(rw, f.body(w))
	}))
	defer srv.Close()
	e, err := w.New(w.Base(srv.URL), 5*time.Second, f.limits)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Embed(context.Background(), []string{"what is ROS 2?"})
	checkClass(t, err, f.class)
	msg := err.Error()
	for _, s := range f.say(w) {
		if !strings.Contains(msg, s) {
			t.Errorf("message does not say %q: %s", s, msg)
		}
	}
	for _, s := range f.never {
		if strings.Contains(msg, s) {
			t.Errorf("message says %q: %s", s, msg)
		}
	}
	checkNoKey(t, err)
	if n := calls.Load(); n != 1 {
		t.Errorf("%d requests, want 1 (this answer is not worth a retry)", n)
	}
}

// noAnswer checks that a server holding the call past the per-attempt
// timeout "did not answer", in a message naming the provider.
func noAnswer(t *testing.T, w Wire) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		// net/http notices a client that went away only once the
		// body has been read.
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-release:
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer srv.Close()
	defer close(release)
	e, err := w.New(w.Base(srv.URL), 100*time.Millisecond, embedx.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = e.Embed(ctx, []string{"q"})
	checkClass(t, err, retrieval.ErrUnavailable)
	if msg := err.Error(); !strings.Contains(msg, w.Name) || !strings.Contains(msg, "did not answer") {
		t.Errorf("a timeout must name %s and say it did not answer: %s", w.Name, msg)
	}
	checkNoKey(t, err)
}

// retryAfterPastTimeLeft checks that a 429 asking for a wait longer
// than the time left (the per-call timeout, or the deadline when it
// comes first) is neither waited for nor retried.
func retryAfterPastTimeLeft(t *testing.T, w Wire) {
	// No deadline: the per-call timeout is the time left. With one,
	// the deadline when it comes first.
	for _, c := range []struct {
		name     string
		timeout  time.Duration
		deadline time.Duration
		limit    string
	}{
		{"per-call timeout", 4 * time.Second, 0, "past the 4 s timeout"},
		{"deadline", 20 * time.Second, 3 * time.Second, "s left"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				_, _ = io.Copy(io.Discard, r.Body)
				rw.Header().Set("Content-Type", "application/json")
				rw.Header().Set("Retry-After", "3600")
				rw.WriteHeader(http.StatusTooManyRequests)
				_, _ = io.WriteString(rw, w.Error(http.StatusTooManyRequests, "slow down"))
			}))
			defer srv.Close()
			e, err := w.New(w.Base(srv.URL), c.timeout, embedx.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if c.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, c.deadline)
				defer cancel()
			}
			_, err = e.Embed(ctx, []string{"q"})
			checkClass(t, err, retrieval.ErrUnavailable)
			msg := err.Error()
			for _, s := range []string{w.Name, "(429)", "asked to wait 1 h", c.limit, "not retried"} {
				if !strings.Contains(msg, s) {
					t.Errorf("message does not say %q: %s", s, msg)
				}
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("%d requests, want 1: a wait past the time left is not made", n)
			}
		})
	}
}

// retriesEndedByDeadline checks that when the deadline ends the
// retries, the error names the last answer, not a timeout.
func retriesEndedByDeadline(t *testing.T, w Wire) {
	for _, status := range []int{http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				rw.Header().Set("Content-Type", "application/json")
				rw.WriteHeader(status)
				_, _ = io.WriteString(rw, w.Error(status, "try later"))
			}))
			defer srv.Close()
			// Each answer comes at once; the backoff (from 0.5 s) is
			// past the time left.
			e, err := w.New(w.Base(srv.URL), 300*time.Millisecond, embedx.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Embed(context.Background(), []string{"q"})
			checkClass(t, err, retrieval.ErrUnavailable)
			if msg := err.Error(); !strings.Contains(msg, fmt.Sprintf("(%d)", status)) || strings.Contains(msg, "did not answer") {
				t.Errorf("the last answer (%d) is the cause, not a timeout: %s", status, msg)
			}
		})
	}
}

// closedPort checks that a port nothing listens on is "Cannot reach".
func closedPort(t *testing.T, w Wire) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	root := "http://" + ln.Addr().String()
	ln.Close()
	e, err := w.New(w.Base(root), 2*time.Second, embedx.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Embed(context.Background(), []string{"q"})
	checkClass(t, err, retrieval.ErrUnavailable)
	if msg := err.Error(); !strings.Contains(msg, "Cannot reach") {
		t.Errorf("a closed port is 'Cannot reach': %s", msg)
	}
	checkNoKey(t, err)
}

// cancelled checks that a cancelled call is context.Canceled and of no
// failure class (it exits 130).
func cancelled(t *testing.T, w Wire) {
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer srv.Close()
	e, err := w.New(w.Base(srv.URL), 5*time.Second, embedx.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err = e.Embed(ctx, []string{"q"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	for _, c := range []error{retrieval.ErrUnavailable, retrieval.ErrAuth, retrieval.ErrConfig} {
		if errors.Is(err, c) {
			t.Errorf("a cancelled call matches %v (it must exit 130, not as a failure)", c)
		}
	}
}

// checkClass fails unless err matches want and no other backend class.
func checkClass(t *testing.T, err, want error) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	for _, c := range []error{retrieval.ErrUnavailable, retrieval.ErrAuth, retrieval.ErrConfig, retrieval.ErrNotFound} {
		if got := errors.Is(err, c); got != (c == want) {
			t.Errorf("errors.Is(err, %v) = %v; err = %v", c, got, err)
		}
	}
}

// checkNoKey fails when the key appears anywhere in err's chain.
func checkNoKey(t *testing.T, err error) {
	t.Helper()
	for e := err; e != nil; e = errors.Unwrap(e) {
		if strings.Contains(e.Error(), Key) || strings.Contains(fmt.Sprintf("%+v", e), Key) {
			t.Errorf("the API key leaks in %T: %v", e, e)
		}
	}
}
