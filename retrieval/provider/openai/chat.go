package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/embedx"
)

// DefaultChatModel is the chat model used when ChatOptions.Model is empty.
const DefaultChatModel = "gpt-4o-mini"

// ChatOptions configure a Chat (embedx.ClientOptions; Sleep is not used:
// the SDK waits between attempts). On OpenAI's own API an APIKey is
// required; a local OpenAI-compatible server (Ollama, vLLM, LM Studio)
// needs only BaseURL.
type ChatOptions = embedx.ClientOptions

// Chat answers with an OpenAI-compatible chat completions API, streamed.
// The system message is the grounding instruction and the context exactly
// as the context pane shows them; citations are read from the [Source N]
// markers the answer writes. It is safe for concurrent use.
type Chat struct {
	// completions is the SDK's chat completions service alone (see
	// Embedder.embeddings).
	completions sdk.ChatCompletionService
	model       string
	baseURL     string
	key         string
	timeout     time.Duration
	attempts    int
}

var _ retrieval.Generator = (*Chat)(nil)

// NewChat returns a Chat. A missing key for OpenAI's own API or a
// malformed base URL is an error matching retrieval.ErrConfig.
func NewChat(opts ChatOptions) (*Chat, error) {
	key, base, err := endpoint(opts.APIKey, opts.BaseURL)
	if err != nil {
		return nil, err
	}
	c := &Chat{model: strings.TrimSpace(opts.Model), baseURL: base, key: key, timeout: opts.Timeout}
	if c.model == "" {
		c.model = DefaultChatModel
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	attempts := opts.MaxAttempts
	if attempts <= 0 {
		attempts = DefaultMaxAttempts
	}
	c.attempts = attempts
	// No whole-request timeout: the idle timer bounds each wait, the
	// limits what is read.
	hc := embedx.Client(opts.HTTPClient, opts.Limits)
	c.completions = sdk.NewChatCompletionService(clientOptions(key, base, hc, attempts, c.checkStream)...)
	return c, nil
}

// Model returns the chat model's name.
func (c *Chat) Model() string { return c.model }

// Provider is "openai".
func (c *Chat) Provider() string { return "openai" }

// SystemPrompt is the system message of p: the instruction, a blank line
// and the context, as the context pane shows them.
func SystemPrompt(p retrieval.Prompt) string {
	if p.Context == "" {
		return p.Instruction
	}
	return p.Instruction + "\n\n" + p.Context
}

// idleKey is the context key of a Stream call's idle timer.
type idleKey struct{}

// Stream sends p and emits the answer as it streams, with the citations
// its [Source N] markers make.
func (c *Chat) Stream(ctx context.Context, p retrieval.Prompt, emit func(retrieval.Delta)) error {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	var idle atomic.Bool
	timer := time.AfterFunc(c.timeout, func() { idle.Store(true); cancel() })
	defer timer.Stop()

	params := sdk.ChatCompletionNewParams{
		Model:         sdk.ChatModel(c.model),
		Messages:      []sdk.ChatCompletionMessageParamUnion{sdk.SystemMessage(SystemPrompt(p)), sdk.UserMessage(p.Question)},
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)},
	}
	if p.Schema != nil {
		// Structured output: response_format json_schema, strict.
		params.ResponseFormat = sdk.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &sdk.ResponseFormatJSONSchemaParam{
			JSONSchema: sdk.ResponseFormatJSONSchemaJSONSchemaParam{Name: p.Schema.Name, Schema: p.Schema.JSON, Strict: sdk.Bool(true)},
		}}
	}
	var call callState
	cctx, wait := call.begin(context.WithValue(actx, idleKey{}, timer), c.timeout)
	stream := c.completions.NewStreaming(cctx, params, wait)
	defer stream.Close()
	markers := retrieval.NewMarkerParser()
	finished, started := false, false
	for stream.Next() {
		timer.Reset(c.timeout)
		started = true
		chunk := stream.Current()
		var d retrieval.Delta
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			d.Text += ch.Delta.Content
			if ch.FinishReason != "" {
				d.FinishReason, finished = ch.FinishReason, true
			}
		}
		if chunk.Usage.PromptTokens > 0 || chunk.Usage.CompletionTokens > 0 {
			d.Usage = &retrieval.Usage{InputTokens: int(chunk.Usage.PromptTokens), OutputTokens: int(chunk.Usage.CompletionTokens)}
		}
		if d.Text != "" {
			d.Citations = markers.Feed(d.Text)
		}
		if d.Text != "" || d.Usage != nil || d.FinishReason != "" {
			emit(d)
		}
	}
	err := stream.Err()
	if err == nil && !finished {
		err = errStreamBroken
	}
	if err != nil {
		return c.wrap(ctx, err, idle.Load(), started, &call)
	}
	return nil
}

// errStreamBroken marks a stream that ended before a finish reason.
var errStreamBroken = errors.New("the answer stream broke off")

// checkStream is SDK middleware: it restarts the idle timer for each
// attempt, and a 2xx answer must be an event stream, else the call fails
// as "answered with an invalid response" with an excerpt.
func (c *Chat) checkStream(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	if t, ok := req.Context().Value(idleKey{}).(*time.Timer); ok {
		t.Reset(c.timeout)
	}
	res, err := next(req)
	if err != nil || res == nil || res.StatusCode < 200 || res.StatusCode > 299 {
		return res, err
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		_ = res.Body.Close()
		res.Body = io.NopCloser(bytes.NewReader(body))
		// With the response, the SDK fails at once instead of retrying.
		return res, &badBody{status: res.StatusCode, what: "Content-Type " + ct + ", not an event stream", excerpt: body}
	}
	return res, nil
}

// wrap turns a failed answer into an *embedx.Error: one classification
// (embedx.Error.Is) for every provider and call, a message to act on.
func (c *Chat) wrap(ctx context.Context, err error, timedOut, started bool, call *callState) error {
	ee := &embedx.Error{Err: err}
	var apiErr *sdk.Error
	var bad *badBody
	var oe *embedx.OversizedError
	var ne net.Error
	switch {
	case errors.As(err, &oe) && !errors.Is(err, context.Canceled) && !errors.Is(ctx.Err(), context.Canceled):
		return embedx.OversizedFailure("The chat server at "+embedx.SafeURL(c.baseURL), "Check OPENAI_BASE_URL points at an OpenAI-compatible /v1 API.", oe)
	case (timedOut || errors.Is(ctx.Err(), context.DeadlineExceeded)) && !started && call.lastAnswer() != 0:
		// The retries ran out of time after an answer: that answer is
		// the cause, not the network.
		ee.Status, ee.Err = call.lastAnswer(), fmt.Errorf("openai answered %d", call.lastAnswer())
		ee.Msg = c.statusMessage(&sdk.Error{StatusCode: call.lastAnswer()}, call.tries(c.attempts))
	case timedOut:
		ee.Err = errors.New("timeout")
		ee.Msg = fmt.Sprintf("The chat server did not answer within %s. Check your network or OPENAI_BASE_URL, or raise --timeout.", c.timeout)
	case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		ee.Err = context.Canceled
		ee.Msg = "answer cancelled"
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		ee.Err = context.DeadlineExceeded
		ee.Msg = "The chat server did not finish the answer in time. Raise --timeout or try again."
	case errors.Is(err, errStreamBroken):
		ee.Err = errStreamBroken
		ee.Msg = fmt.Sprintf("The chat server at %s ended the answer stream before it finished. Try again.", embedx.SafeURL(c.baseURL))
	case errors.As(err, &bad):
		ee.Status, ee.Invalid, ee.Err = bad.status, true, errors.New("invalid chat response")
		ee.Msg = fmt.Sprintf("The chat server at %s answered with an invalid response (HTTP %d, %s): %q. Check OPENAI_BASE_URL points at an OpenAI-compatible /v1 API.",
			embedx.SafeURL(c.baseURL), bad.status, bad.what, embedx.Excerpt(bad.excerpt, c.key))
	case errors.As(err, &apiErr):
		ee.Status = apiErr.StatusCode
		ee.Err = fmt.Errorf("openai answered %d", apiErr.StatusCode)
		ee.Msg = c.statusMessage(apiErr, call.tries(c.attempts))
	case errors.As(err, &ne) && ne.Timeout():
		ee.Err = errors.New("timeout")
		ee.Msg = fmt.Sprintf("The chat server did not answer within %s. Check your network or OPENAI_BASE_URL.", c.timeout)
	case started:
		ee.Err = errors.New(embedx.ShortCause(err, c.key))
		ee.Msg = fmt.Sprintf("The answer stream from %s broke off: %s. Try again.", embedx.SafeURL(c.baseURL), embedx.Excerpt([]byte(embedx.ShortCause(err, c.key)), c.key))
	default:
		ee.Err = errors.New(embedx.ShortCause(err, c.key))
		ee.Msg = fmt.Sprintf("Cannot reach the chat server at %s: %s. Check your network or OPENAI_BASE_URL (for Ollama: ollama serve, http://localhost:11434/v1).", embedx.SafeURL(c.baseURL), embedx.Excerpt([]byte(embedx.ShortCause(err, c.key)), c.key))
	}
	return ee
}

// statusMessage is the message for an error status; tries says how many
// requests were made and why they stopped (embedx.Tries).
func (c *Chat) statusMessage(ae *sdk.Error, tries string) string {
	detail := ""
	if m := embedx.Excerpt([]byte(ae.Message), c.key); m != "" {
		detail = " (" + m + ")"
	}
	switch s := ae.StatusCode; {
	case s == http.StatusUnauthorized:
		return "The chat server rejected the API key (401). Check OPENAI_API_KEY."
	case s == http.StatusForbidden:
		return fmt.Sprintf("The chat server refused access (403)%s. Check that OPENAI_API_KEY may use %s.", detail, c.model)
	case s == http.StatusNotFound:
		return fmt.Sprintf("The chat server refused the request (404)%s: the model %q or %s/chat/completions does not exist. Check --chat-model (for Ollama, a model you pulled) and OPENAI_BASE_URL (it must end in /v1).", detail, c.model, embedx.SafeURL(c.baseURL))
	case s == http.StatusTooManyRequests:
		return fmt.Sprintf("The chat server's rate limit or quota was reached (429)%s%s. Wait and retry, or check the account's quota.", tries, detail)
	case embedx.Retryable(s):
		return fmt.Sprintf("The chat server is unavailable (%d)%s. Try again later.", s, detail)
	default:
		return fmt.Sprintf("The chat server refused the request (%d)%s. Check --chat-model (%q).", s, detail, c.model)
	}
}
