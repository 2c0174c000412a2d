package cohere

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	cohereapi "github.com/cohere-ai/cohere-go/v2"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/embedx"
	"ragscope/retrieval/provider/netx"
)

// DefaultChatModel is the chat model used when ChatOptions.Model is empty.
const DefaultChatModel = "command-a-03-2025"

// docPrefix starts the id of the document that is [Source N]: "source-N".
const docPrefix = "source-"

// maxLine bounds one line of the event stream as the scanner reads it. It
// is above embedx.MaxEvent, so the client's transport (embedx.Client)
// reports an oversized event first; past maxLine it is oversized too.
const maxLine = embedx.MaxEvent + 64<<10

// ChatOptions configure a Chat (embedx.ClientOptions). Only APIKey is
// required.
type ChatOptions = embedx.ClientOptions

// Chat answers with Cohere's Chat v2 API, streamed. The prompt's sources
// go as documents with ids "source-N", and Cohere's native citations come
// back as spans mapped to [Source N]. It is safe for concurrent use.
type Chat struct {
	*conn
	model string
}

var _ retrieval.Generator = (*Chat)(nil)

// NewChat returns a Chat. A missing key or a malformed base URL is an
// error matching retrieval.ErrConfig.
func NewChat(opts ChatOptions) (*Chat, error) {
	if strings.TrimSpace(opts.APIKey) == "" {
		return nil, fmt.Errorf("%w: Cohere API key missing: set COHERE_API_KEY (or CO_API_KEY) to answer with Cohere", retrieval.ErrConfig)
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{} // no whole-request timeout: the idle timer bounds each wait of a stream
	}
	cn, err := newConn(opts.APIKey, opts.BaseURL, opts.Timeout, opts.MaxAttempts, hc, opts.Sleep, opts.Limits)
	if err != nil {
		return nil, err
	}
	c := &Chat{conn: cn, model: strings.TrimSpace(opts.Model)}
	if c.model == "" {
		c.model = DefaultChatModel
	}
	return c, nil
}

// Model returns the chat model's name.
func (c *Chat) Model() string { return c.model }

// Provider is "cohere".
func (c *Chat) Provider() string { return "cohere" }

// request is the Chat v2 request of p: the instruction as the system
// message, the question as the user message, each source a document.
func (c *Chat) request(p retrieval.Prompt) *cohereapi.V2ChatStreamRequest {
	docs := make([]*cohereapi.V2ChatStreamRequestDocumentsItem, 0, len(p.Sources))
	for _, s := range p.Sources {
		id := docPrefix + strconv.Itoa(s.N)
		data := map[string]any{"text": s.Text}
		if s.Title != "" {
			data["title"] = s.Title
		}
		if s.Section != "" {
			data["section"] = s.Section
		}
		if s.URL != "" {
			data["url"] = s.URL
		}
		docs = append(docs, &cohereapi.V2ChatStreamRequestDocumentsItem{Document: &cohereapi.Document{Id: &id, Data: data}})
	}
	req := &cohereapi.V2ChatStreamRequest{
		Model: c.model,
		Messages: cohereapi.ChatMessages{
			{Role: "system", System: &cohereapi.SystemMessageV2{Content: &cohereapi.SystemMessageV2Content{String: p.Instruction}}},
			{Role: "user", User: &cohereapi.UserMessageV2{Content: &cohereapi.UserMessageV2Content{String: p.Question}}},
		},
		Documents: docs,
	}
	if p.Schema != nil {
		// Structured output: Chat v2's response_format json_object with
		// the schema the answer must follow.
		req.ResponseFormat = &cohereapi.ResponseFormatV2{Type: "json_object", JsonObject: &cohereapi.JsonResponseFormatV2{JsonSchema: p.Schema.JSON}}
	}
	return req
}

// Stream sends p and emits the answer as it streams. Failures before the
// first event are retried like the embedder's; once text has been emitted
// an error ends the answer (a retry would repeat it).
func (c *Chat) Stream(ctx context.Context, p retrieval.Prompt, emit func(retrieval.Delta)) error {
	req := c.request(p)
	var (
		timedOut bool
		err      error
		se       *StatusError
	)
	attempts, stop, serr := retryPolicy(c.maxAttempts, c.timeout).Retry(ctx, c.sleep, func(int) (bool, time.Duration) {
		var started bool
		started, timedOut, err = c.attempt(ctx, req, emit)
		se = nil
		if err == nil || started || timedOut || ctx.Err() != nil {
			return false, 0
		}
		var oe *embedx.OversizedError
		if errors.As(err, &oe) {
			return false, 0
		}
		if errors.As(err, &se) {
			return !se.Invalid && embedx.Retryable(se.Status), se.RetryAfter
		}
		// No answer (a refused or reset connection) is retried; a stream
		// that broke off after its answer began is not.
		return !errors.Is(err, errStreamBroken), 0
	})
	switch {
	case err == nil:
		return nil
	case serr != nil:
		// The last answer stays the cause a message names.
		return c.wrap(ctx, errors.Join(serr, err), attempts, false)
	}
	if se != nil && stop != (netx.Step{}) {
		se.Stop = stop
	}
	return c.wrap(ctx, err, attempts, timedOut)
}

// errStreamBroken marks a stream that ended or broke before its end event.
var errStreamBroken = errors.New("the answer stream broke off")

// bodyKey is the context key of the slot that receives the event stream.
type bodyKey struct{}

// attempt makes one request and reads its events. started reports whether
// any event arrived; timedOut whether the idle timer ended it.
func (c *Chat) attempt(ctx context.Context, req *cohereapi.V2ChatStreamRequest, emit func(retrieval.Delta)) (started, timedOut bool, err error) {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	var idle atomic.Bool
	timer := time.AfterFunc(c.timeout, func() { idle.Store(true); cancel() })
	defer timer.Stop()

	// cohere-go's stream reader (core.Stream, v2.15.3) splits on the first
	// newline after "data: " and hands every other fragment, the blank line
	// that ends each event or half an event that arrived in two reads, to
	// json.Unmarshal: against a standard event stream every second Recv
	// fails with "unexpected end of JSON input" (a cohere-go bug,
	// https://github.com/cohere-ai/cohere-go/issues/103). The transport
	// hands the event stream here instead, and it is read as server-sent
	// events; cohere-go still builds the request and decodes each event
	// into its own types.
	slot := new(io.ReadCloser)
	stream, err := c.co.ChatStream(context.WithValue(actx, bodyKey{}, slot), req)
	if err != nil {
		return false, idle.Load(), err
	}
	_ = stream.Close()
	body := *slot
	if body == nil {
		return false, false, &StatusError{Status: http.StatusOK, Invalid: true, Message: "not an event stream"}
	}
	defer body.Close()
	done := false
	err = readEvents(body, func(data []byte) error {
		timer.Reset(c.timeout)
		started = true
		var ev cohereapi.V2ChatStreamResponse
		if err := json.Unmarshal(data, &ev); err != nil {
			return &StatusError{Status: http.StatusOK, Invalid: true, Message: embedx.Excerpt(data, c.key)}
		}
		d, end, err := c.delta(&ev)
		if err != nil {
			return err
		}
		if d.Text != "" || len(d.Citations) > 0 || d.Usage != nil || d.FinishReason != "" {
			emit(d)
		}
		if end {
			done = true
			return io.EOF
		}
		return nil
	})
	if err == nil && !done {
		err = errStreamBroken
	}
	if err != nil && actx.Err() != nil {
		return started, idle.Load(), errors.Join(actx.Err(), err)
	}
	return started, false, err
}

// delta turns one Cohere event into a Delta; end is true for message-end.
func (c *Chat) delta(ev *cohereapi.V2ChatStreamResponse) (d retrieval.Delta, end bool, err error) {
	switch {
	case ev.ContentDelta != nil:
		if m := ev.ContentDelta.GetDelta().GetMessage().GetContent(); m != nil && m.Text != nil {
			d.Text = *m.Text
		}
	case ev.CitationStart != nil:
		if ct := ev.CitationStart.GetDelta().GetMessage().GetCitations(); ct != nil {
			cite := retrieval.AnswerCitation{Sources: []int{}}
			if ct.Start != nil {
				cite.Start = *ct.Start
			}
			if ct.End != nil {
				cite.End = *ct.End
			}
			if ct.Text != nil {
				cite.Text = *ct.Text
			}
			for _, s := range ct.Sources {
				if s == nil || s.Document == nil {
					continue // a tool's output, not a document
				}
				n := 0
				if s.Document.Id != nil {
					n, _ = strconv.Atoi(strings.TrimPrefix(*s.Document.Id, docPrefix))
				}
				cite.Sources = append(cite.Sources, n)
			}
			if len(cite.Sources) > 0 {
				d.Citations = []retrieval.AnswerCitation{cite}
			}
		}
	case ev.MessageEnd != nil:
		end = true
		de := ev.MessageEnd.GetDelta()
		if de == nil {
			return d, end, nil
		}
		if de.FinishReason != nil {
			d.FinishReason = string(*de.FinishReason)
		}
		if u := de.Usage; u != nil {
			var in, out *float64
			if t := u.Tokens; t != nil {
				in, out = t.InputTokens, t.OutputTokens
			}
			if b := u.BilledUnits; b != nil && in == nil && out == nil {
				in, out = b.InputTokens, b.OutputTokens
			}
			d.Usage = &retrieval.Usage{}
			if in != nil {
				d.Usage.InputTokens = int(*in)
			}
			if out != nil {
				d.Usage.OutputTokens = int(*out)
			}
		}
		if de.Error != nil && *de.Error != "" {
			return d, end, &StatusError{Status: http.StatusOK, Message: embedx.Redact(*de.Error, c.key), Invalid: true}
		}
	}
	return d, end, nil
}

// readEvents reads server-sent events and calls fn with each event's
// data (its "data:" lines joined); "event:", "id:" and comment lines are
// skipped. A "[DONE]" event, or fn returning io.EOF, ends reading without
// error.
func readEvents(r io.Reader, fn func(data []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var data []byte
	has := false
	dispatch := func() error {
		defer func() { data, has = data[:0], false }()
		if bytes.Equal(data, []byte("[DONE]")) {
			return io.EOF
		}
		return fn(data)
	}
	for sc.Scan() {
		line := bytes.TrimSuffix(sc.Bytes(), []byte("\r"))
		if len(line) == 0 {
			if has {
				if err := dispatch(); err != nil {
					return ignoreEOF(err)
				}
			}
			continue
		}
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			if has {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(v, []byte(" "))...)
			has = true
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return &embedx.OversizedError{What: "event", Limit: maxLine, Status: http.StatusOK}
	} else if err != nil {
		return err
	}
	if has {
		return ignoreEOF(dispatch())
	}
	return nil
}

func ignoreEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// wrap turns a failed answer into an *embedx.Error: one classification
// (embedx.Error.Is) for every provider and call, a message to act on.
func (c *Chat) wrap(ctx context.Context, err error, attempts int, timedOut bool) error {
	ee := &embedx.Error{Err: err}
	var se *StatusError
	var oe *embedx.OversizedError
	var ne net.Error
	switch {
	case errors.As(err, &oe) && !errors.Is(err, context.Canceled) && !errors.Is(ctx.Err(), context.Canceled):
		return c.oversized(oe)
	case timedOut:
		ee.Err = errors.New("timeout")
		ee.Msg = fmt.Sprintf("Cohere did not answer within %s. Check your network or COHERE_BASE_URL, or raise --timeout.", c.timeout)
	case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		ee.Err = errors.Join(context.Canceled, err)
		ee.Msg = "answer cancelled"
	case errors.As(err, &se) && se.Invalid:
		ee.Status, ee.Invalid = se.Status, true
		ee.Msg = fmt.Sprintf("Cohere at %s answered with an invalid chat response (HTTP %d): %q. Check COHERE_BASE_URL points at Cohere's API.", embedx.SafeURL(c.baseURL), se.Status, se.Message)
	case errors.As(err, &se):
		// An answer came (the retries may have ended by the deadline
		// after it): it is the cause.
		ee.Status = se.Status
		ee.Msg = c.statusMessage(se, attempts)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		ee.Err = errors.Join(context.DeadlineExceeded, err)
		ee.Msg = "Cohere did not finish the answer in time. Raise --timeout or try again."
	case errors.Is(err, errStreamBroken):
		ee.Msg = fmt.Sprintf("Cohere's answer stream from %s broke off before its end. Try again.", embedx.SafeURL(c.baseURL))
	case errors.As(err, &ne) && ne.Timeout():
		ee.Err = errors.New("timeout")
		ee.Msg = fmt.Sprintf("Cohere did not answer within %s. Check your network or COHERE_BASE_URL.", c.timeout)
	default:
		ee.Err = errors.New(embedx.ShortCause(err, c.key))
		ee.Msg = fmt.Sprintf("Cannot reach Cohere at %s: %s. Check your network or COHERE_BASE_URL.", embedx.SafeURL(c.baseURL), embedx.ShortCause(err, c.key))
	}
	return ee
}

func (c *Chat) statusMessage(se *StatusError, attempts int) string {
	return statusMessage(se, attempts, c.baseURL, endpoint{name: "chat", verb: "answer", model: c.model, modelVar: "--chat-model (RAGSCOPE_CHAT_MODEL)"})
}
