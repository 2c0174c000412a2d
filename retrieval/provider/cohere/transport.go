package cohere

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"ragscope/retrieval/provider/embedx"
	"ragscope/retrieval/provider/netx"
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// statusDoer is the HTTP client handed to cohere-go. It turns every non-2xx
// response into a *StatusError returned as a transport error.
//
// Why: cohere-go's retrier (v2.15.3, internal/retrier.go) sleeps with
// time.Sleep — not context-aware — after every retryable response, even the
// last one, so with WithMaxAttempts(1) a 429 or 5xx still costs at least
// 500 ms that a cancelled query cannot escape. A transport error makes the
// retrier return at once, and ragscope does its own context-aware retries.
type statusDoer struct {
	hc  *http.Client
	key string
}

// Do sends req and converts error statuses into *StatusError.
func (d statusDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if slot, ok := req.Context().Value(bodyKey{}).(*io.ReadCloser); ok && slot != nil && resp.StatusCode >= 200 && resp.StatusCode < 300 {
		// A streamed chat answer: its events are read by Chat (chat.go).
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
			_ = resp.Body.Close()
			return nil, &StatusError{Status: resp.StatusCode, Invalid: true, Message: "Content-Type " + ct + ": " + embedx.Excerpt(body, d.key)}
		}
		*slot = resp.Body
		resp.Body = io.NopCloser(strings.NewReader(""))
		return resp, nil
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		// A 2xx that is not JSON (an HTML page, a truncated body) is an
		// invalid answer, not a decoding puzzle for cohere-go. The body is
		// bounded by the client's transport (embedx.Client): past the
		// bound the read fails with an *embedx.OversizedError, returned
		// as is (never retried).
		body, rerr := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		var oe *embedx.OversizedError
		if errors.As(rerr, &oe) {
			return nil, oe
		}
		if rerr != nil || !json.Valid(body) {
			return nil, &StatusError{Status: resp.StatusCode, Invalid: true, Message: embedx.Excerpt(body, d.key)}
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return nil, &StatusError{
		Status:     resp.StatusCode,
		Message:    embedx.Redact(errorMessage(body), d.key),
		RetryAfter: netx.RetryAfter(resp.Header.Get("Retry-After"), time.Now()),
	}
}

// errorMessage extracts Cohere's {"message": "..."} or falls back to the
// raw body, shortened to one line.
func errorMessage(body []byte) string {
	var m struct {
		Message string `json:"message"`
	}
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &m) == nil && m.Message != "" {
		msg = m.Message
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if r := []rune(msg); len(r) > 300 {
		msg = string(r[:300]) + "…"
	}
	return msg
}
