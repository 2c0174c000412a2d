// Package gemini is ragscope's Embedder on Google's Gemini API
// (models/{model}:batchEmbedContents, x-goog-api-key) through the official
// SDK google.golang.org/genai.
//
// Retries are ragscope's (netx.Policy, the rule every provider shares):
// 408, 409, 429, 5xx and refused connections, DefaultMaxAttempts attempts
// in all, backoff from 0.5 s capped at 8 s or the server's Retry-After; a
// wait past the time left is not made. Each attempt is bounded by
// Options.Timeout.
package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/genai"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/embedx"
	"ragscope/retrieval/provider/netx"
)

// Defaults.
const (
	// DefaultModel is the embedding model used when Options.Model is empty.
	DefaultModel = "gemini-embedding-001"
	// DefaultTimeout bounds one HTTP attempt.
	DefaultTimeout = embedx.DefaultTimeout
	// DefaultMaxAttempts is the number of attempts for retryable failures.
	DefaultMaxAttempts = embedx.DefaultMaxAttempts
	// DefaultCacheSize is the number of cached vectors.
	DefaultCacheSize = embedx.DefaultCacheSize
	// MaxBatch is the most requests one batchEmbedContents call takes.
	MaxBatch = 100
)

// Options configure an Embedder (embedx.Options). Only APIKey is
// required.
type Options = embedx.Options

// Embedder embeds texts with Gemini. It is safe for concurrent use.
type Embedder struct {
	client  *genai.Client
	model   string
	baseURL string
	key     string
	timeout time.Duration
	// attempts is the number of requests a call may make; sleep waits
	// between them (netx.Sleep; tests count the waits).
	attempts int
	sleep    func(context.Context, time.Duration) error
	cache    *embedx.Cache
	// modelDim is the model's native size (Options.ModelDim, 0 =
	// unknown): the most outputDimensionality may ask for. (Every Gemini
	// embedding model accepts a smaller one: Options.Shortens is not read.)
	modelDim int
	dims     atomic.Int64
	dim      atomic.Int64
	// task is the embedding task type: RETRIEVAL_QUERY for questions,
	// RETRIEVAL_DOCUMENT for documents to index (Options.Documents).
	task string
}

var _ retrieval.Embedder = (*Embedder)(nil)

// New returns an Embedder. A missing key, a malformed base URL or an
// outputDimensionality the model cannot make matches retrieval.ErrConfig.
func New(ctx context.Context, opts Options) (*Embedder, error) {
	key := strings.TrimSpace(opts.APIKey)
	if key == "" {
		return nil, fmt.Errorf("%w: Gemini API key missing: set GEMINI_API_KEY (or GOOGLE_API_KEY)", retrieval.ErrConfig)
	}
	base := strings.TrimSpace(opts.BaseURL)
	if base != "" {
		u, err := url.Parse(base)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%w: GEMINI_BASE_URL %q is not an http(s) URL", retrieval.ErrConfig, embedx.SafeURL(base))
		}
		base = strings.TrimRight(base, "/") + "/"
	}
	name := strings.TrimPrefix(strings.TrimSpace(opts.Model), "models/")
	if name == "" {
		name = DefaultModel
	}
	if strings.HasPrefix(name, "embed-") || strings.HasPrefix(name, "text-embedding-3") || name == "text-embedding-ada-002" {
		return nil, fmt.Errorf("%w: %q is not a Gemini model: pass --model %s, or the --embedder the model belongs to", retrieval.ErrConfig, name, DefaultModel)
	}
	if max := opts.ModelDim; max > 0 && opts.Dimensions > max {
		return nil, fmt.Errorf("%w: %s makes at most %d dimensions, --dimensions (outputDimensionality) %d is too large", retrieval.ErrConfig, name, max, opts.Dimensions)
	}
	if opts.Dimensions < 0 {
		return nil, fmt.Errorf("%w: --dimensions must be 0 or positive, got %d", retrieval.ErrConfig, opts.Dimensions)
	}
	opts = opts.WithDefaults()
	e := &Embedder{model: name, baseURL: base, key: key, timeout: opts.Timeout, attempts: opts.MaxAttempts, sleep: netx.Sleep, cache: embedx.NewCache(opts.CacheSize), task: "RETRIEVAL_QUERY",
		modelDim: max(opts.ModelDim, 0)}
	if opts.Documents {
		e.task = "RETRIEVAL_DOCUMENT"
	}
	e.dims.Store(int64(opts.Dimensions))
	if opts.Dimensions > 0 {
		e.dim.Store(int64(opts.Dimensions))
	} else {
		e.dim.Store(int64(e.modelDim))
	}
	hc := embedx.Client(opts.HTTPClient, opts.Limits)
	hc.Transport = statusRecorder{next: hc.Transport}
	c, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:     key,
		Backend:    genai.BackendGeminiAPI,
		HTTPClient: hc,
		HTTPOptions: genai.HTTPOptions{
			BaseURL: base,
			// One attempt each: the retries are embedBatch's.
			Timeout: &e.timeout,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("%w: Gemini client: %s", retrieval.ErrConfig, embedx.Redact(err.Error(), key))
	}
	e.client = c
	return e, nil
}

// SetDimensions asks for n-dimensional vectors (outputDimensionality).
func (e *Embedder) SetDimensions(n int) error {
	if e.modelDim > 0 && n > e.modelDim {
		return fmt.Errorf("%w: %s makes at most %d dimensions, %d is too large", retrieval.ErrConfig, e.model, e.modelDim, n)
	}
	e.dims.Store(int64(n))
	if n > 0 {
		e.dim.Store(int64(n))
	}
	return nil
}

// Shortable is the largest size the model can be asked for (0 = unknown).
func (e *Embedder) Shortable() int { return e.modelDim }

// Name returns the model name.
func (e *Embedder) Name() string { return e.model }

// Dim returns the vector size, or 0 until known.
func (e *Embedder) Dim() int { return int(e.dim.Load()) }

// Embed returns one vector per text, in order, in batches of at most 100.
// A vector with a value that is not a finite number, or of all zeros, is
// an invalid answer (embedx.CheckVector).
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return embedx.Embed(ctx, e.cache, fmt.Sprintf("gemini:%s:%s:%d:%s", e.baseURL, e.model, e.dims.Load(), e.task), texts, MaxBatch, e.embedBatch, invalid)
}

// invalid is a 200 answer that is not a usable embeddings response.
func invalid(what string) error {
	return &embedx.Error{Status: http.StatusOK, Invalid: true, Err: errors.New("invalid embeddings response"),
		Msg: fmt.Sprintf("Gemini answered with an invalid response (HTTP 200): %s. Check GEMINI_BASE_URL.", what)}
}

func (e *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	contents := make([]*genai.Content, len(texts))
	for i, t := range texts {
		contents[i] = genai.NewContentFromText(t, genai.RoleUser)
	}
	cfg := &genai.EmbedContentConfig{TaskType: e.task}
	if n := int32(e.dims.Load()); n > 0 {
		cfg.OutputDimensionality = &n
	}
	resp, err := e.call(ctx, contents, cfg)
	if err != nil {
		return nil, err
	}
	if resp == nil || len(resp.Embeddings) != len(texts) {
		got := 0
		if resp != nil {
			got = len(resp.Embeddings)
		}
		return nil, invalid(fmt.Sprintf("%d embeddings for %d texts", got, len(texts)))
	}
	out := make([][]float32, len(texts))
	for i, ce := range resp.Embeddings {
		if ce == nil || len(ce.Values) == 0 {
			return nil, invalid("an empty embedding")
		}
		if what := embedx.CheckVector(ce.Values); what != "" {
			// The shared check (Embed runs it too; here it comes before
			// the size check, as the more precise cause).
			return nil, invalid(what)
		}
		if want := e.Dim(); want > 0 && len(ce.Values) != want {
			return nil, invalid(fmt.Sprintf("%d-dimensional vectors, but %s makes %d", len(ce.Values), e.model, want))
		}
		out[i] = ce.Values
	}
	e.dim.Store(int64(len(out[0])))
	return out, nil
}

// policy is the retry rule of every Gemini call (netx.Policy).
func (e *Embedder) policy() netx.Policy {
	return netx.Policy{Attempts: e.attempts, Base: 500 * time.Millisecond, Max: 8 * time.Second, Timeout: e.timeout, MaxWait: netx.MaxWait}
}

// call makes one batchEmbedContents call with the retries of the policy:
// 408, 409, 429 and 5xx answers and refused connections are retried; a
// timeout, an oversized or invalid answer and a refusal are not.
func (e *Embedder) call(ctx context.Context, contents []*genai.Content, cfg *genai.EmbedContentConfig) (*genai.EmbedContentResponse, error) {
	var (
		resp *genai.EmbedContentResponse
		err  error
		call *callState
	)
	attempts, stop, serr := e.policy().Retry(ctx, e.sleep, func(int) (bool, time.Duration) {
		call = new(callState)
		resp, err = e.client.Models.EmbedContent(context.WithValue(ctx, statusKey{}, call), e.model, contents, cfg)
		if err == nil {
			return false, 0
		}
		var apiErr genai.APIError
		if errors.As(err, &apiErr) && apiErr.Code == 0 {
			// An error body without Gemini's "code" (a proxy, another API):
			// the status comes from the HTTP response.
			apiErr.Code = int(call.status.Load())
			err = apiErr
		}
		return retryable(err, call), time.Duration(call.retryAfter.Load())
	})
	switch {
	case err == nil:
		return resp, nil
	case serr != nil:
		// The last answer stays the cause a message names.
		return nil, e.wrap(ctx, errors.Join(serr, err), call, attempts, netx.Step{})
	}
	return nil, e.wrap(ctx, err, call, attempts, stop)
}

// retryable reports whether a failed attempt may be retried: an answer
// of a retryable status (embedx.Retryable: 408, 409, 429, 5xx), or no
// answer at all from a refused or reset connection; not a timeout, an
// oversized or invalid answer, nor any other status.
func retryable(err error, call *callState) bool {
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		return embedx.Retryable(apiErr.Code)
	}
	var oe *embedx.OversizedError
	return call.status.Load() == 0 && call.transportErr() != nil && !isTimeout(call.transportErr()) && !errors.As(err, &oe)
}

// wrap turns a failed call, after attempts requests ended by stop, into
// an *embedx.Error with a message to act on.
func (e *Embedder) wrap(ctx context.Context, err error, call *callState, attempts int, stop netx.Step) error {
	ee := &embedx.Error{Err: err}
	status := int(call.status.Load())
	lastErr := call.transportErr()
	var apiErr genai.APIError
	var syn *json.SyntaxError
	var oe *embedx.OversizedError
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		ee.Err, ee.Msg = context.Canceled, "embedding cancelled"
	case errors.As(err, &oe):
		// Before the deadline: a huge body that took long to read is
		// still oversized, not slow. (The SDK's error text holds what was
		// read; the cause is oe alone.)
		return embedx.OversizedFailure("Gemini at "+e.endpoint(), "Check GEMINI_BASE_URL.", oe)
	case errors.As(err, &apiErr):
		// An answer came (the retries may have ended by the deadline
		// after it): it is the cause.
		ee.Status, ee.Err = apiErr.Code, fmt.Errorf("gemini answered %d", apiErr.Code)
		if apiErr.Code == http.StatusBadRequest && strings.Contains(strings.ToLower(apiErr.Message), "api key") {
			ee.Status = http.StatusUnauthorized // Gemini's 400 API_KEY_INVALID is a refused key
		}
		ee.Msg = e.statusMessage(apiErr, embedx.Tries(attempts, stop))
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		// The caller's deadline is --timeout as the attempt's is: which of
		// the two fires first is a race, so both say the same.
		ee.Err, ee.Msg = context.DeadlineExceeded, fmt.Sprintf("Gemini did not answer within %s. Check your network or GEMINI_BASE_URL, then try again.", e.timeout)
	case errors.As(err, &syn):
		body := err.Error()
		if i := strings.IndexByte(body, '\n'); i >= 0 {
			body = body[i+1:]
		}
		ee.Status, ee.Invalid, ee.Err = http.StatusOK, true, errors.New("invalid embeddings response")
		ee.Msg = fmt.Sprintf("Gemini answered with an invalid response (HTTP 200, not JSON): %q. Check GEMINI_BASE_URL.", embedx.Excerpt([]byte(body), e.key))
	case status >= 200 && status < 300:
		// The server answered, and the SDK could not decode the answer (a
		// string for a number, a number out of range): the server is at
		// fault, not the network.
		ee.Status, ee.Invalid, ee.Err = status, true, errors.New("invalid embeddings response")
		ee.Msg = fmt.Sprintf("Gemini answered with an invalid response (HTTP %d): the embeddings do not decode (a value of the wrong type or out of range). Check GEMINI_BASE_URL.", status)
	case status == 0 && lastErr != nil && !isTimeout(lastErr):
		// The SDK retried a refused connection until its timeout: say why
		// it never got an answer.
		ee.Err = errors.New(embedx.Redact(lastErr.Error(), e.key))
		ee.Msg = fmt.Sprintf("Cannot reach Gemini at %s: %s. Check your network or GEMINI_BASE_URL.", e.endpoint(), embedx.Excerpt([]byte(embedx.ShortCause(lastErr, "")), e.key))
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		ee.Err = errors.New("timeout")
		ee.Msg = fmt.Sprintf("Gemini did not answer within %s. Check your network or GEMINI_BASE_URL, then try again.", e.timeout)
	default:
		ee.Err = errors.New(embedx.Redact(err.Error(), e.key))
		ee.Msg = fmt.Sprintf("Cannot reach Gemini: %s. Check your network or GEMINI_BASE_URL.", embedx.Excerpt([]byte(err.Error()), e.key))
	}
	return ee
}

// statusMessage is the message for an error answer; tries says how many
// requests were made and why they stopped (embedx.Tries).
func (e *Embedder) statusMessage(ae genai.APIError, tries string) string {
	detail := ""
	if m := embedx.Excerpt([]byte(ae.Message), e.key); m != "" {
		detail = " (" + m + ")"
	}
	switch s := ae.Code; {
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		return fmt.Sprintf("Gemini rejected the API key (%d)%s. Check GEMINI_API_KEY.", s, detail)
	case s == http.StatusBadRequest && strings.Contains(strings.ToLower(ae.Message), "api key"):
		// Gemini answers a bad key with 400 API_KEY_INVALID.
		return fmt.Sprintf("Gemini rejected the API key (400)%s. Check GEMINI_API_KEY.", detail)
	case s == http.StatusNotFound && strings.Contains(strings.ToLower(detail), "model"):
		return fmt.Sprintf("Gemini refused the request (404)%s: the model %q does not exist or does not embed. Check --model (RAGSCOPE_EMBED_MODEL).", detail, e.model)
	case s == http.StatusNotFound:
		return fmt.Sprintf("Gemini refused the request (404)%s: %s has no Gemini embedding API. Check GEMINI_BASE_URL.", detail, e.endpoint())
	case s == http.StatusTooManyRequests:
		return fmt.Sprintf("Gemini rate limit or quota reached (429)%s%s. Wait and retry.", tries, detail)
	case embedx.Retryable(s):
		return fmt.Sprintf("Gemini is unavailable (%d)%s%s. Try again later.", s, tries, detail)
	default:
		return fmt.Sprintf("Gemini refused the request (%d)%s. Check --model (%q) and --dimensions.", s, detail, e.model)
	}
}

// statusKey carries a call's *callState that statusRecorder fills.
type statusKey struct{}

// callState is what the transport saw of one attempt: the response's
// HTTP status and Retry-After, and the transport error.
type callState struct {
	status     atomic.Int32
	retryAfter atomic.Int64
	mu         sync.Mutex
	err        error
}

func (c *callState) transportErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || (errors.As(err, &ne) && ne.Timeout())
}

// endpoint is the API root messages name.
func (e *Embedder) endpoint() string {
	if e.baseURL == "" {
		return "https://generativelanguage.googleapis.com"
	}
	return strings.TrimRight(embedx.SafeURL(e.baseURL), "/")
}

// statusRecorder notes each response's HTTP status in the call's context.
type statusRecorder struct{ next http.RoundTripper }

// RoundTrip sends req and records the status.
func (r statusRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	next := r.next
	if next == nil {
		next = http.DefaultTransport
	}
	res, err := next.RoundTrip(req)
	if p, ok := req.Context().Value(statusKey{}).(*callState); ok {
		if res != nil {
			p.status.Store(int32(res.StatusCode))
			p.retryAfter.Store(int64(netx.RetryAfter(res.Header.Get("Retry-After"), time.Now())))
		}
		if err != nil {
			p.mu.Lock()
			p.err = err
			p.mu.Unlock()
		}
	}
	return res, err
}
