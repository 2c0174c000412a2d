package embedx

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"ragscope/internal/readlimit"
)

// Read bounds of every provider response. They are the one place the
// limits live: every provider's HTTP client goes through Client.
const (
	// MaxResponse bounds one response body that is read whole: an embed,
	// rerank or error answer (64 MiB; a 96-text 1024-dimensional Cohere
	// answer is about 2 MiB).
	MaxResponse = 64 << 20
	// MaxStream bounds all of one chat answer stream (64 MiB).
	MaxStream = 64 << 20
	// MaxEvent bounds one server-sent event of a stream (4 MiB).
	MaxEvent = 4 << 20
)

// Limits are read bounds in bytes; a zero field takes its default
// (MaxResponse, MaxStream, MaxEvent). Tests set small ones.
type Limits struct {
	// Response bounds a body that is not an event stream.
	Response int64
	// Stream bounds a text/event-stream body in all.
	Stream int64
	// Event bounds one event of an event stream (the bytes up to and
	// including the blank line that ends it).
	Event int64
}

// withDefaults fills zero fields with the defaults.
func (l Limits) withDefaults() Limits {
	if l.Response <= 0 {
		l.Response = MaxResponse
	}
	if l.Stream <= 0 {
		l.Stream = MaxStream
	}
	if l.Event <= 0 {
		l.Event = MaxEvent
	}
	return l
}

// OversizedError is a response that passed a read bound. It is what a
// bounded body returns from Read once the bound is passed; providers turn
// it into "answered with an oversized response" (exit 3), never into a
// timeout or a network failure, and never retry it.
type OversizedError struct {
	// What was too large: "response", "answer stream" or "event".
	What string
	// Limit is the bound passed, in bytes.
	Limit int64
	// Status is the HTTP status of the response.
	Status int
}

// Error says what passed which bound.
func (e *OversizedError) Error() string {
	switch e.What {
	case "event":
		return "one event of the answer stream passed " + readlimit.Size(e.Limit)
	case "answer stream":
		return "the answer stream passed " + readlimit.Size(e.Limit)
	}
	return "the response passed " + readlimit.Size(e.Limit)
}

// Client returns a copy of hc (a new client when hc is nil) whose
// transport bounds every response body by l: reading past a bound fails
// with an *OversizedError. hc itself is not changed.
func Client(hc *http.Client, l Limits) *http.Client {
	c := &http.Client{}
	if hc != nil {
		cp := *hc
		c = &cp
	}
	c.Transport = Transport(c.Transport, l)
	return c
}

// Transport wraps next (http.DefaultTransport when nil) so that every
// response body is bounded by l. Content-Type text/event-stream takes the
// stream and event bounds, any other body the response bound.
func Transport(next http.RoundTripper, l Limits) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return boundTransport{next: next, l: l.withDefaults()}
}

type boundTransport struct {
	next http.RoundTripper
	l    Limits
}

// RoundTrip sends req and bounds the response's body.
func (t boundTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.next.RoundTrip(req)
	if err != nil || res == nil || res.Body == nil {
		return res, err
	}
	b := &boundedBody{rc: res.Body, limit: t.l.Response, what: "response", status: res.StatusCode}
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(res.Header.Get("Content-Type"))), "text/event-stream") {
		b.limit, b.what, b.event = t.l.Stream, "answer stream", t.l.Event
	}
	if res.ContentLength > b.limit {
		// Announced too large: fail at the first read, without reading.
		b.err = &OversizedError{What: b.what, Limit: b.limit, Status: b.status}
	}
	res.Body = b
	return res, nil
}

// boundedBody reads at most limit bytes in all, and with event > 0 at
// most event bytes of one server-sent event; past either it returns an
// *OversizedError.
type boundedBody struct {
	rc    io.ReadCloser
	limit int64
	what  string
	event int64
	// status is the response's HTTP status, for the error.
	status int

	n       int64 // bytes read in all
	inEvent int64 // bytes of the current event
	lineLen int64 // bytes of the current line, line ends excluded
	err     error
}

// Read reads from the body and counts.
func (b *boundedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.rc.Read(p)
	if over := b.n + int64(n) - b.limit; over > 0 {
		n -= int(over)
		b.err = &OversizedError{What: b.what, Limit: b.limit, Status: b.status}
	}
	if b.event > 0 {
		for i, c := range p[:n] {
			b.inEvent++
			if b.inEvent > b.event {
				n = i
				b.err = &OversizedError{What: "event", Limit: b.event, Status: b.status}
				break
			}
			switch c {
			case '\n':
				if b.lineLen == 0 {
					b.inEvent = 0 // a blank line ends the event
				}
				b.lineLen = 0
			case '\r':
			default:
				b.lineLen++
			}
		}
	}
	b.n += int64(n)
	if b.err != nil {
		return n, b.err
	}
	return n, err
}

// Close closes the body.
func (b *boundedBody) Close() error { return b.rc.Close() }

// OversizedFailure is the provider error for a response that passed a
// read bound: who (the provider and where, "Cohere at https://…")
// "answered with an oversized response (HTTP 200): the response passed
// 64 MiB.", then fix (what to check). It is an invalid answer, so it
// matches retrieval.ErrUnavailable (exit 3), and its cause is oe.
func OversizedFailure(who, fix string, oe *OversizedError) *Error {
	return &Error{Status: oe.Status, Invalid: true, Err: oe,
		Msg: fmt.Sprintf("%s answered with an oversized response (HTTP %d): %s. %s", who, oe.Status, oe.Error(), fix)}
}
