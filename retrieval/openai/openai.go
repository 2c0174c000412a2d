// Package openai is ragscope's Embedder on OpenAI's embeddings API, and on
// any OpenAI-compatible server (OPENAI_BASE_URL), through the official SDK
// github.com/openai/openai-go.
//
// Retries (408, 409, 429, 5xx, connection errors; Retry-After honoured) are
// the SDK's own, limited to DefaultMaxAttempts attempts in all, with backoff
// capped at 8 s, the budget the Cohere embedder documents too. Each attempt
// is bounded by Options.Timeout and every wait ends with the context.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"ragscope/retrieval"
	"ragscope/retrieval/embedx"
)

// Defaults.
const (
	// DefaultModel is the embedding model used when Options.Model is empty.
	DefaultModel = "text-embedding-3-small"
	// DefaultBaseURL is OpenAI's API root.
	DefaultBaseURL = "https://api.openai.com/v1"
	// DefaultTimeout bounds one HTTP attempt.
	DefaultTimeout = 20 * time.Second
	// DefaultMaxAttempts is the number of attempts for retryable failures.
	DefaultMaxAttempts = 3
	// DefaultCacheSize is the number of cached vectors.
	DefaultCacheSize = 1024
	// MaxBatch is the most inputs OpenAI embeds in one call.
	MaxBatch = 2048
	// maxBackoff caps the wait between attempts.
	maxBackoff = 8 * time.Second
	// maxBody bounds a response body read for checks.
	maxBody = 64 << 20
)

// model is what ragscope knows of a published OpenAI embedding model.
type model struct {
	dim       int  // native vector size
	shortable bool // accepts "dimensions" (1..dim)
}

// lookupModel returns what ragscope knows of a published model. (A
// switch, not a package-level map: a map literal is built at
// initialisation, in every ragscope process.)
func lookupModel(name string) (model, bool) {
	switch name {
	case "text-embedding-3-small":
		return model{dim: 1536, shortable: true}, true
	case "text-embedding-3-large":
		return model{dim: 3072, shortable: true}, true
	case "text-embedding-ada-002":
		return model{dim: 1536}, true
	}
	return model{}, false
}

// KnownDim returns the native vector size of a published OpenAI model, or 0.
func KnownDim(name string) int {
	m, _ := lookupModel(name)
	return m.dim
}

// Options configure an Embedder. Only APIKey is required.
type Options struct {
	// APIKey is the API key (OPENAI_API_KEY), sent as a bearer token.
	APIKey string
	// BaseURL is the API root including /v1 (OPENAI_BASE_URL); default
	// https://api.openai.com/v1.
	BaseURL string
	// Model is the embedding model; default text-embedding-3-small.
	Model string
	// Dimensions asks for vectors of this size (text-embedding-3 models
	// and compatible servers); 0 = the model's own size.
	Dimensions int
	// Timeout bounds each HTTP attempt; default 20 s.
	Timeout time.Duration
	// MaxAttempts is the number of attempts for retryable failures; default 3.
	MaxAttempts int
	// CacheSize is the number of vectors kept; default 1024, negative
	// disables the cache.
	CacheSize int
	// HTTPClient replaces the default client (proxies, tests).
	HTTPClient *http.Client
}

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
	cache      *embedx.Cache
	dims       atomic.Int64 // requested size, 0 = native
	dim        atomic.Int64 // size produced, 0 = unknown yet
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
	e := &Embedder{model: name, baseURL: base, key: key, timeout: opts.Timeout}
	if e.timeout <= 0 {
		e.timeout = DefaultTimeout
	}
	if opts.Dimensions > 0 {
		if err := e.SetDimensions(opts.Dimensions); err != nil {
			return nil, err
		}
	} else {
		e.dim.Store(int64(KnownDim(name)))
	}
	attempts := opts.MaxAttempts
	if attempts <= 0 {
		attempts = DefaultMaxAttempts
	}
	size := opts.CacheSize
	if size == 0 {
		size = DefaultCacheSize
	}
	e.cache = embedx.NewCache(size)
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	copts := []option.RequestOption{
		option.WithBaseURL(base + "/"),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(attempts - 1),
		option.WithMaxRetryDelay(maxBackoff),
		option.WithRequestTimeout(e.timeout),
		option.WithMiddleware(checkBody),
	}
	if key != "" {
		copts = append(copts, option.WithAPIKey(key))
	}
	// The options NewClient would give the service: the SDK's defaults
	// (OPENAI_* environment, production endpoint), then ragscope's.
	e.embeddings = sdk.NewEmbeddingService(append(sdk.DefaultClientOptions(), copts...)...)
	return e, nil
}

// SetDimensions asks for vectors of n dimensions from now on. It is an
// error matching retrieval.ErrConfig when a published model cannot
// produce that size.
func (e *Embedder) SetDimensions(n int) error {
	if m, ok := lookupModel(e.model); ok && n != m.dim {
		if !m.shortable {
			return fmt.Errorf("%w: %s only makes %d-dimensional vectors; --dimensions %d needs text-embedding-3-small (up to 1536) or text-embedding-3-large (up to 3072)", retrieval.ErrConfig, e.model, m.dim, n)
		}
		if n > m.dim {
			return fmt.Errorf("%w: %s makes at most %d dimensions, --dimensions %d is too large", retrieval.ErrConfig, e.model, m.dim, n)
		}
	}
	if m, ok := lookupModel(e.model); ok && n == m.dim && !m.shortable {
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
	if m, ok := lookupModel(e.model); ok && m.shortable {
		return m.dim
	}
	return 0
}

// Name returns the model name.
func (e *Embedder) Name() string { return e.model }

// Provider is "openai".
func (e *Embedder) Provider() string { return "openai" }

// Dim returns the vector size: known for OpenAI's models or when
// dimensions were asked for, otherwise 0 until the first response.
func (e *Embedder) Dim() int { return int(e.dim.Load()) }

// Embed returns one vector per text, in order. Cached texts cost no call;
// the others are sent in batches of at most 2048.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return embedx.Embed(ctx, e.cache, e.cacheModel(), texts, MaxBatch, e.embedBatch)
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
	resp, err := e.embeddings.New(ctx, params)
	if err != nil {
		return nil, e.wrap(ctx, err)
	}
	return e.vectors(resp, len(texts))
}

// vectors checks the response and converts it to float32, by index.
func (e *Embedder) vectors(resp *sdk.CreateEmbeddingResponse, n int) ([][]float32, error) {
	invalid := func(msg string) error {
		return &embedx.Error{Status: http.StatusOK, Invalid: true, Err: errors.New("invalid embeddings response"),
			Msg: fmt.Sprintf("The embedding server at %s answered with an invalid response (HTTP 200): %s. Check OPENAI_BASE_URL points at an OpenAI-compatible /v1 API.", embedx.SafeURL(e.baseURL), msg)}
	}
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
		v := make([]float32, len(d.Embedding))
		for j, x := range d.Embedding {
			if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > math.MaxFloat32 {
				return nil, invalid("a number out of range in an embedding")
			}
			v[j] = float32(x)
		}
		out[d.Index] = v
	}
	if want := e.Dim(); want > 0 && size != want && (e.dims.Load() > 0 || KnownDim(e.model) > 0) {
		// A size the model never produces: the server is at fault, not the
		// model choice.
		return nil, invalid(fmt.Sprintf("%d-dimensional vectors, but %s makes %d", size, e.model, want))
	}
	e.dim.Store(int64(size))
	return out, nil
}

// wrap turns a failed call into an *embedx.Error with a message to act on.
func (e *Embedder) wrap(ctx context.Context, err error) error {
	ee := &embedx.Error{Err: err}
	var apiErr *sdk.Error
	var bad *badBody
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		ee.Err = context.Canceled
		ee.Msg = "embedding cancelled"
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		ee.Err = context.DeadlineExceeded
		ee.Msg = "OpenAI did not answer in time. Check your network or OPENAI_BASE_URL, then try again."
	case errors.As(err, &bad):
		ee.Status, ee.Invalid, ee.Err = bad.status, true, errors.New("invalid embeddings response")
		ee.Msg = fmt.Sprintf("The embedding server at %s answered with an invalid response (HTTP %d, %s): %q. Check OPENAI_BASE_URL points at an OpenAI-compatible /v1 API.",
			embedx.SafeURL(e.baseURL), bad.status, bad.what, embedx.Excerpt(bad.excerpt, e.key))
	case errors.As(err, &apiErr):
		ee.Status = apiErr.StatusCode
		ee.Err = fmt.Errorf("openai answered %d", apiErr.StatusCode) // the SDK's own text holds the request
		ee.Msg = e.statusMessage(apiErr)
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		ee.Err = errors.New("timeout")
		ee.Msg = fmt.Sprintf("OpenAI did not answer within %s. Check your network or OPENAI_BASE_URL, then try again.", e.timeout)
	default:
		ee.Err = errors.New(embedx.ShortCause(err, e.key))
		ee.Msg = fmt.Sprintf("Cannot reach the embedding server at %s: %s. Check your network or OPENAI_BASE_URL.", embedx.SafeURL(e.baseURL), embedx.ShortCause(err, e.key))
	}
	return ee
}

func (e *Embedder) statusMessage(ae *sdk.Error) string {
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
		return fmt.Sprintf("OpenAI rate limit or quota reached (429) after %d attempts%s. Wait and retry, or check the account's quota.", DefaultMaxAttempts, detail)
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
	body, rerr := io.ReadAll(io.LimitReader(res.Body, maxBody))
	_ = res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(body))
	ct := res.Header.Get("Content-Type")
	switch {
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
