// Package openai is ragscope's Embedder on OpenAI's embeddings API, and on
// any OpenAI-compatible server (OPENAI_BASE_URL), through the official SDK
// github.com/openai/openai-go.
//
// Retries (408, 409, 429, 5xx, connection errors; Retry-After honoured) are
// the SDK's own, limited to DefaultMaxAttempts attempts in all, under the
// rule every provider shares (netx.Policy): no wait past the time left, so
// a longer Retry-After ends the retries at once. Each attempt is bounded
// by Options.Timeout and every wait ends with the context.
package openai

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/embedx"
	"ragscope/retrieval/provider/netx"
)

// Defaults.
const (
	// DefaultModel is the embedding model used when Options.Model is empty.
	DefaultModel = "text-embedding-3-small"
	// DefaultBaseURL is OpenAI's API root.
	DefaultBaseURL = "https://api.openai.com/v1"
	// DefaultTimeout bounds one HTTP attempt.
	DefaultTimeout = embedx.DefaultTimeout
	// DefaultMaxAttempts is the number of attempts for retryable failures.
	DefaultMaxAttempts = embedx.DefaultMaxAttempts
	// DefaultCacheSize is the number of cached vectors.
	DefaultCacheSize = embedx.DefaultCacheSize
	// MaxBatch is the most inputs OpenAI embeds in one call.
	MaxBatch = 2048
	// maxBackoff caps the wait between attempts of a call without a
	// bound of its own; every call sets its own (callState.begin).
	maxBackoff = 8 * time.Second
)

// Options configure an Embedder (embedx.Options). Only APIKey is
// required.
type Options = embedx.Options

// Embedder embeds texts with OpenAI. It is safe for concurrent use.
type Embedder struct {
	// embeddings is the SDK's embeddings service alone: the SDK's Client
	// holds every service of the API, and referring to it links all their
	// types and methods (22 MB of the binary, 1,300 of its interface
	// tables, paid at start-up by every process).
	embeddings sdk.EmbeddingService
	model      string
	baseURL    string
	key        string
	timeout    time.Duration
	attempts   int
	cache      *embedx.Cache
	// modelDim is the model's native size (Options.ModelDim, 0 =
	// unknown); shortens and shorteners are Options'.
	modelDim   int
	shortens   bool
	shorteners string
	dims       atomic.Int64 // requested size, 0 = native
	dim        atomic.Int64 // size produced, 0 = unknown yet
	tokens     atomic.Int64 // prompt tokens of the calls so far
}

var _ retrieval.Embedder = (*Embedder)(nil)

// endpoint checks an API key and base URL: OpenAI's own API (the default
// base URL) needs the key, a local OpenAI-compatible server (Ollama, vLLM,
// LM Studio) does not. It returns the trimmed key and the base URL without
// a trailing slash; an error matches retrieval.ErrConfig.
func endpoint(apiKey, baseURL string) (key, base string, err error) {
	key = strings.TrimSpace(apiKey)
	base = strings.TrimRight(strings.TrimSpace(baseURL), "/")
	if base == "" {
		base = DefaultBaseURL
	}
	if key == "" && strings.Contains(strings.ToLower(base), "://api.openai.com") {
		return "", "", fmt.Errorf("%w: OpenAI API key missing: set OPENAI_API_KEY (a local OpenAI-compatible server such as Ollama needs only OPENAI_BASE_URL)", retrieval.ErrConfig)
	}
	u, perr := url.Parse(base)
	if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", fmt.Errorf("%w: OPENAI_BASE_URL %q is not an http(s) URL (e.g. https://api.openai.com/v1, or http://localhost:11434/v1 for Ollama)", retrieval.ErrConfig, embedx.SafeURL(base))
	}
	return key, base, nil
}

// New returns an Embedder. A missing key, a malformed base URL, a Cohere
// model name or a size the model cannot produce is an error matching
// retrieval.ErrConfig.
func New(opts Options) (*Embedder, error) {
	key, base, err := endpoint(opts.APIKey, opts.BaseURL)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(opts.Model)
	if name == "" {
		name = DefaultModel
	}
	if strings.HasPrefix(name, "embed-") {
		return nil, fmt.Errorf("%w: %q is a Cohere model, not an OpenAI one: pass --model %s (or another OpenAI embedding model), or --embedder cohere", retrieval.ErrConfig, name, DefaultModel)
	}
	if opts.Dimensions < 0 {
		return nil, fmt.Errorf("%w: --dimensions must be 0 or positive, got %d", retrieval.ErrConfig, opts.Dimensions)
	}
	opts = opts.WithDefaults()
	attempts := opts.MaxAttempts
	e := &Embedder{model: name, baseURL: base, key: key, timeout: opts.Timeout, attempts: attempts, cache: embedx.NewCache(opts.CacheSize),
		modelDim: max(opts.ModelDim, 0), shortens: opts.Shortens, shorteners: opts.Shorteners}
	if opts.Dimensions > 0 {
		if err := e.SetDimensions(opts.Dimensions); err != nil {
			return nil, err
		}
	} else {
		e.dim.Store(int64(e.modelDim))
	}
	hc := embedx.Client(opts.HTTPClient, opts.Limits)
	e.embeddings = sdk.NewEmbeddingService(clientOptions(key, base, hc, attempts, checkBody, option.WithRequestTimeout(e.timeout))...)
	return e, nil
}

// clientOptions are the options NewClient would give a service: the
// SDK's defaults (OPENAI_* environment, production endpoint), then
// ragscope's: base, the HTTP client hc, attempts in all, the key when
// there is one, and the track and check middleware, then extra.
func clientOptions(key, base string, hc *http.Client, attempts int, check option.Middleware, extra ...option.RequestOption) []option.RequestOption {
	opts := append(sdk.DefaultClientOptions(),
		option.WithBaseURL(base+"/"),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(attempts-1),
		option.WithMaxRetryDelay(maxBackoff),
		option.WithMiddleware(track, check),
	)
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	return append(opts, extra...)
}

// SetDimensions asks for vectors of n dimensions from now on. It is an
// error matching retrieval.ErrConfig when a known model (Options.ModelDim)
// cannot produce that size.
func (e *Embedder) SetDimensions(n int) error {
	if e.modelDim > 0 && n != e.modelDim {
		if !e.shortens {
			return fmt.Errorf("%w: %s only makes %d-dimensional vectors; --dimensions %d needs %s", retrieval.ErrConfig, e.model, e.modelDim, n, cmp.Or(e.shorteners, "a model that can shorten its vectors"))
		}
		if n > e.modelDim {
			return fmt.Errorf("%w: %s makes at most %d dimensions, --dimensions %d is too large", retrieval.ErrConfig, e.model, e.modelDim, n)
		}
	}
	if e.modelDim > 0 && n == e.modelDim && !e.shortens {
		n = 0 // ada-002 refuses the parameter; its size is already n
	}
	e.dims.Store(int64(n))
	if n > 0 {
		e.dim.Store(int64(n))
	}
	return nil
}

// Shortable reports whether the model can be asked for fewer dimensions
// (up to the returned maximum; 0 when unknown or never).
func (e *Embedder) Shortable() int {
	if e.shortens {
		return e.modelDim
	}
	return 0
}

// Name returns the model name.
func (e *Embedder) Name() string { return e.model }

// Provider is "openai".
func (e *Embedder) Provider() string { return "openai" }

// Tokens is the prompt tokens the server counted for the calls so far.
func (e *Embedder) Tokens() int64 { return e.tokens.Load() }

// Dim returns the vector size: the model's (Options.ModelDim) or the one
// asked for, otherwise 0 until the first response.
func (e *Embedder) Dim() int { return int(e.dim.Load()) }

// Embed returns one vector per text, in order. Cached texts cost no call;
// the others are sent in batches of at most 2048. A vector with a value
// that is not a finite number, or of all zeros, is an invalid answer
// (embedx.CheckVector).
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return embedx.Embed(ctx, e.cache, e.cacheModel(), texts, MaxBatch, e.embedBatch, e.invalid)
}

// invalid is a 200 answer that is not a usable embeddings response.
func (e *Embedder) invalid(msg string) error {
	return &embedx.Error{Status: http.StatusOK, Invalid: true, Err: errors.New("invalid embeddings response"),
		Msg: fmt.Sprintf("The embedding server at %s answered with an invalid response (HTTP 200): %s. Check OPENAI_BASE_URL points at an OpenAI-compatible /v1 API.", embedx.SafeURL(e.baseURL), msg)}
}

func (e *Embedder) cacheModel() string {
	return fmt.Sprintf("openai:%s:%s:%d", e.baseURL, e.model, e.dims.Load())
}

func (e *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	params := sdk.EmbeddingNewParams{
		Model:          sdk.EmbeddingModel(e.model),
		Input:          sdk.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
		EncodingFormat: sdk.EmbeddingNewParamsEncodingFormatFloat,
	}
	if n := e.dims.Load(); n > 0 {
		params.Dimensions = sdk.Int(n)
	}
	var call callState
	cctx, wait := call.begin(ctx, e.timeout)
	resp, err := e.embeddings.New(cctx, params, wait)
	if err != nil {
		return nil, e.wrap(ctx, err, &call)
	}
	if resp != nil {
		e.tokens.Add(resp.Usage.PromptTokens)
	}
	return e.vectors(resp, len(texts))
}

// vectors checks the response and converts it to float32, by index.
func (e *Embedder) vectors(resp *sdk.CreateEmbeddingResponse, n int) ([][]float32, error) {
	invalid := e.invalid
	if resp == nil || len(resp.Data) != n {
		got := 0
		if resp != nil {
			got = len(resp.Data)
		}
		return nil, invalid(fmt.Sprintf("%d embeddings for %d texts", got, n))
	}
	out := make([][]float32, n)
	size := 0
	for _, d := range resp.Data {
		if d.Index < 0 || int(d.Index) >= n || out[d.Index] != nil {
			return nil, invalid(fmt.Sprintf("embedding index %d out of range", d.Index))
		}
		if len(d.Embedding) == 0 {
			return nil, invalid("an empty embedding")
		}
		if size == 0 {
			size = len(d.Embedding)
		} else if len(d.Embedding) != size {
			return nil, invalid(fmt.Sprintf("embeddings of %d and %d dimensions in one answer", size, len(d.Embedding)))
		}
		// A value beyond float32 becomes ±Inf here, which the shared
		// check refuses with NaN and all zeros (Embed runs it too; here
		// it comes before the size check, as the more precise cause).
		v := make([]float32, len(d.Embedding))
		for j, x := range d.Embedding {
			v[j] = float32(x)
		}
		if what := embedx.CheckVector(v); what != "" {
			return nil, invalid(what)
		}
		out[d.Index] = v
	}
	if want := e.Dim(); want > 0 && size != want && (e.dims.Load() > 0 || e.modelDim > 0) {
		// A size the model never produces: the server is at fault, not the
		// model choice.
		return nil, invalid(fmt.Sprintf("%d-dimensional vectors, but %s makes %d", size, e.model, want))
	}
	e.dim.Store(int64(size))
	return out, nil
}

// wrap turns a failed call into an *embedx.Error with a message to act on.
func (e *Embedder) wrap(ctx context.Context, err error, call *callState) error {
	ee := &embedx.Error{Err: err}
	var apiErr *sdk.Error
	var bad *badBody
	var oe *embedx.OversizedError
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		ee.Err = context.Canceled
		ee.Msg = "embedding cancelled"
	case errors.As(err, &oe):
		// Before the deadline: a huge body that took long to read is
		// still oversized, not slow.
		return embedx.OversizedFailure("The embedding server at "+embedx.SafeURL(e.baseURL), "Check OPENAI_BASE_URL points at an OpenAI-compatible /v1 API.", oe)
	case !errors.As(err, &apiErr) && call.lastAnswer() != 0 && (errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded)):
		// The retries ran out of time after an answer: that answer is
		// the cause, not the network.
		ee.Status, ee.Err = call.lastAnswer(), fmt.Errorf("openai answered %d", call.lastAnswer())
		ee.Msg = e.statusMessage(&sdk.Error{StatusCode: call.lastAnswer()}, call.tries(e.attempts))
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		ee.Err = context.DeadlineExceeded
		// The caller's deadline is --timeout as the attempt's is: which of
		// the two fires first is a race, so both say the same.
		ee.Msg = fmt.Sprintf("OpenAI did not answer within %s. Check your network or OPENAI_BASE_URL, then try again.", e.timeout)
	case errors.As(err, &bad):
		ee.Status, ee.Invalid, ee.Err = bad.status, true, errors.New("invalid embeddings response")
		ee.Msg = fmt.Sprintf("The embedding server at %s answered with an invalid response (HTTP %d, %s): %q. Check OPENAI_BASE_URL points at an OpenAI-compatible /v1 API.",
			embedx.SafeURL(e.baseURL), bad.status, bad.what, embedx.Excerpt(bad.excerpt, e.key))
	case errors.As(err, &apiErr):
		ee.Status = apiErr.StatusCode
		ee.Err = fmt.Errorf("openai answered %d", apiErr.StatusCode) // the SDK's own text holds the request
		ee.Msg = e.statusMessage(apiErr, call.tries(e.attempts))
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		ee.Err = errors.New("timeout")
		ee.Msg = fmt.Sprintf("OpenAI did not answer within %s. Check your network or OPENAI_BASE_URL, then try again.", e.timeout)
	default:
		ee.Err = errors.New(embedx.ShortCause(err, e.key))
		ee.Msg = fmt.Sprintf("Cannot reach the embedding server at %s: %s. Check your network or OPENAI_BASE_URL.", embedx.SafeURL(e.baseURL), embedx.ShortCause(err, e.key))
	}
	return ee
}

// statusMessage is the message for an error status; tries says how many
// requests were made and why they stopped (embedx.Tries).
func (e *Embedder) statusMessage(ae *sdk.Error, tries string) string {
	detail := ""
	if m := embedx.Excerpt([]byte(ae.Message), e.key); m != "" {
		detail = " (" + m + ")"
	} else if ae.Response != nil {
		// Not OpenAI's JSON error shape (an HTML 404 page, a proxy).
		if raw := ae.RawJSON(); raw != "" {
			detail = " (" + embedx.Excerpt([]byte(raw), e.key) + ")"
		}
	}
	switch s := ae.StatusCode; {
	case s == http.StatusUnauthorized:
		return "OpenAI rejected the API key (401). Check OPENAI_API_KEY."
	case s == http.StatusForbidden:
		return fmt.Sprintf("OpenAI refused access (403)%s. Check that OPENAI_API_KEY may use %s.", detail, e.model)
	case s == http.StatusNotFound && strings.Contains(strings.ToLower(detail), "model"):
		// "The model `x` does not exist": the model is wrong, not the URL.
		return fmt.Sprintf("The embedding server refused the request (404)%s: the model %q does not exist there. Check --model (RAGSCOPE_EMBED_MODEL).", detail, e.model)
	case s == http.StatusNotFound:
		return fmt.Sprintf("The embedding server refused the request (404)%s: %s/embeddings does not exist. Check OPENAI_BASE_URL (it must end in /v1).", detail, embedx.SafeURL(e.baseURL))
	case s == http.StatusTooManyRequests:
		return fmt.Sprintf("OpenAI rate limit or quota reached (429)%s%s. Wait and retry, or check the account's quota.", tries, detail)
	case embedx.Retryable(s):
		return fmt.Sprintf("The embedding server is unavailable (%d)%s. Try again later.", s, detail)
	default:
		return fmt.Sprintf("The embedding server refused the request (%d)%s. Check --model (%q) and --dimensions.", s, detail, e.model)
	}
}

// badBody is a 2xx answer that is not JSON (an HTML page, a truncated
// body). Its status is 2xx, so the SDK does not retry it.
type badBody struct {
	status  int
	what    string
	excerpt []byte
}

func (b *badBody) Error() string {
	return fmt.Sprintf("invalid response (HTTP %d, %s)", b.status, b.what)
}

// checkBody is SDK middleware: a 2xx answer must be JSON, else the call
// fails as "answered with an invalid response" with an excerpt.
func checkBody(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res == nil || res.StatusCode < 200 || res.StatusCode > 299 {
		return res, err
	}
	// The body is bounded by the client's transport (embedx.Client).
	body, rerr := io.ReadAll(res.Body)
	_ = res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(body))
	ct := res.Header.Get("Content-Type")
	var oe *embedx.OversizedError
	switch {
	case errors.As(rerr, &oe):
		// With the response, the SDK fails at once instead of retrying.
		return res, oe
	case rerr != nil:
		return res, &badBody{status: res.StatusCode, what: "truncated body", excerpt: body}
	case !json.Valid(body):
		what := "not JSON"
		if len(bytes.TrimSpace(body)) > 0 && bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
			what = "truncated JSON"
		} else if ct != "" {
			what = "Content-Type " + ct
		}
		return res, &badBody{status: res.StatusCode, what: what, excerpt: body}
	}
	return res, nil
}

// callKey is the context key of a call's *callState, which track fills.
type callKey struct{}

// callState is what the transport saw of one call: the requests made,
// the last answer's status and Retry-After, and the time left to wait in
// (netx.Policy.Left) when the call began.
type callState struct {
	attempts   atomic.Int32
	status     atomic.Int32
	retryAfter atomic.Int64
	left       time.Duration
	limit      string
}

// begin applies the retry rule every provider shares (netx.Policy) to a
// call with per-call timeout: the SDK waits no Retry-After, and no
// backoff, past the time left. It returns the call's context, which
// track fills, and the option that bounds the SDK's waits.
func (c *callState) begin(ctx context.Context, timeout time.Duration) (context.Context, option.RequestOption) {
	p := netx.Policy{Timeout: timeout, MaxWait: netx.MaxWait}
	left, limit, _ := p.Left(ctx, time.Now())
	// The SDK reads a delay of 0 as "its default": a call already out of
	// time waits at most a millisecond.
	c.left, c.limit = max(left, time.Millisecond), limit
	return context.WithValue(ctx, callKey{}, c), option.WithMaxRetryDelay(c.left)
}

// tries is what the message says of the attempts (embedx.Tries): the
// SDK does not wait a Retry-After past the time left, and stops.
func (c *callState) tries(maxAttempts int) string {
	n := int(c.attempts.Load())
	var stop netx.Step
	if ra := time.Duration(c.retryAfter.Load()); ra > c.left && n < maxAttempts {
		stop = netx.Step{Asked: ra, Limit: c.limit}
	}
	return embedx.Tries(n, stop)
}

// lastAnswer is the last answer's error status when the call ended by a
// deadline after it (0 when no answer came or the last one was not an
// error): the message names it rather than the deadline.
func (c *callState) lastAnswer() int {
	if s := int(c.status.Load()); s >= 400 {
		return s
	}
	return 0
}

// track is SDK middleware: it counts the requests of a call and notes
// the last answer's Retry-After (Retry-After-Ms first, as the SDK reads
// them), so a message says what happened.
func track(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if c, ok := req.Context().Value(callKey{}).(*callState); ok {
		c.attempts.Add(1)
		var ra time.Duration
		if res != nil {
			c.status.Store(int32(res.StatusCode))
			if ms, perr := strconv.ParseFloat(res.Header.Get("Retry-After-Ms"), 64); perr == nil && ms > 0 {
				ra = time.Duration(ms * float64(time.Millisecond))
			} else {
				ra = netx.RetryAfter(res.Header.Get("Retry-After"), time.Now())
			}
		}
		c.retryAfter.Store(int64(ra))
	}
	return res, err
}
