package embedx

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// serve answers every request with body as ctype, chunked unless length.
func serve(t *testing.T, ctype, body string, length bool) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		if !length {
			w.(http.Flusher).Flush() // no Content-Length: the body must be counted
		}
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func read(t *testing.T, url string, l Limits) ([]byte, error) {
	t.Helper()
	res, err := Client(nil, l).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	return io.ReadAll(res.Body)
}

func TestClientBoundsEveryBody(t *testing.T) {
	l := Limits{Response: 1 << 10, Stream: 4 << 10, Event: 512}
	var oe *OversizedError
	// A response at the bound is read whole; one byte more is oversized,
	// announced (Content-Length) or not.
	if b, err := read(t, serve(t, "application/json", strings.Repeat("x", 1<<10), false), l); err != nil || len(b) != 1<<10 {
		t.Fatalf("a body at the bound: %d bytes, %v", len(b), err)
	}
	for _, length := range []bool{false, true} {
		b, err := read(t, serve(t, "application/json", strings.Repeat("x", 1<<10+1), length), l)
		if !errors.As(err, &oe) || oe.What != "response" || oe.Limit != 1<<10 || oe.Status != 200 || len(b) > 1<<10 {
			t.Fatalf("Content-Length %v: read %d bytes, err %v", length, len(b), err)
		}
		if err.Error() != "the response passed 1 KiB" {
			t.Errorf("message %q", err)
		}
	}
	// A stream of small events may pass the response bound, not its own.
	ev := "data: " + strings.Repeat("y", 100) + "\n\n"
	if b, err := read(t, serve(t, "text/event-stream", strings.Repeat(ev, 30), false), l); err != nil || len(b) != 30*len(ev) {
		t.Fatalf("a stream under its bound: %d bytes, %v", len(b), err)
	}
	_, err := read(t, serve(t, "text/event-stream", strings.Repeat(ev, 50), false), l)
	if !errors.As(err, &oe) || oe.What != "answer stream" || err.Error() != "the answer stream passed 4 KiB" {
		t.Fatalf("a stream past its bound: %v", err)
	}
	// One event of many data lines (no blank line between them).
	_, err = read(t, serve(t, "text/event-stream; charset=utf-8", "data: a\r\n\r\n"+strings.Repeat("data: zzzzzzzzzz\r\n", 40)+"\r\n", false), l)
	if !errors.As(err, &oe) || oe.What != "event" || err.Error() != "one event of the answer stream passed 512 bytes" {
		t.Fatalf("an event past its bound: %v", err)
	}
}

func TestOversizedFailureIsAnInvalidAnswer(t *testing.T) {
	oe := &OversizedError{What: "response", Limit: MaxResponse, Status: 200}
	err := OversizedFailure("Gemini at http://h", "Check GEMINI_BASE_URL.", oe)
	if err.Error() != "Gemini at http://h answered with an oversized response (HTTP 200): the response passed 64 MiB. Check GEMINI_BASE_URL." {
		t.Fatalf("message %q", err)
	}
	var got *OversizedError
	if !errors.As(err, &got) || !err.Invalid {
		t.Fatal("the cause is lost or the class is wrong")
	}
}
