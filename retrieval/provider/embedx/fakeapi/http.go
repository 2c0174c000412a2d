package fakeapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// Receive starts answering r: it counts the request, takes the failure
// queued for it (nil: none), reads its body (at most limit bytes; readErr
// says why not) and waits out the latency. The body is read first:
// net/http only notices a client that went away (and cancels r.Context)
// once the body has been consumed. ok is false when the client went away
// during the wait: there is no one to answer.
func (c *Calls[F, Req]) Receive(r *http.Request, limit int64) (body []byte, fail *F, ok bool, readErr error) {
	latency, fail := c.Begin()
	body, readErr = io.ReadAll(io.LimitReader(r.Body, limit))
	return body, fail, Wait(r.Context(), latency), readErr
}

// WriteJSON answers with status and v as JSON.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// WriteRaw answers with status (200 when 0) and body verbatim, as
// contentType when it is not "": a proxy's HTML page, truncated JSON.
func WriteRaw(w http.ResponseWriter, status int, contentType, body string) {
	if contentType != "" {
		w.Header().Set("Content-Type", contentType)
	}
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// Stream is a streamed answer of server-sent events, written one event
// per write and flushed, as a server flushing each event does.
type Stream struct {
	w http.ResponseWriter
	r *http.Request
}

// OpenStream answers r with status 200 and an event stream.
func OpenStream(w http.ResponseWriter, r *http.Request) *Stream {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &Stream{w: w, r: r}
}

// Send writes one event whose data is v as JSON, named by an "event:"
// line when name is not "". It reports whether the client is still
// there.
func (s *Stream) Send(name string, v any) bool {
	b, _ := json.Marshal(v)
	return s.Data(name, string(b))
}

// Data writes one event whose data is data, named as by Send.
func (s *Stream) Data(name, data string) bool {
	var err error
	if name != "" {
		_, err = fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, data)
	} else {
		_, err = fmt.Fprintf(s.w, "data: %s\n\n", data)
	}
	if err != nil {
		return false
	}
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
	return s.r.Context().Err() == nil
}
