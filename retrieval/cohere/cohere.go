// Package cohere is ragscope's Embedder on Cohere's embed API
// (github.com/cohere-ai/cohere-go/v2, V2 Embed).
//
// Questions are embedded with input_type "search_query" and float
// embeddings. Retries (429, 408, 5xx) are done here, not by the library,
// so that waiting honours the context; results are cached by model and text.
package cohere

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	cohereapi "github.com/cohere-ai/cohere-go/v2"
	"github.com/cohere-ai/cohere-go/v2/option"
	cov2 "github.com/cohere-ai/cohere-go/v2/v2"

	"ragscope/retrieval"
	"ragscope/retrieval/embedx"
	"ragscope/retrieval/netx"
)

// Defaults.
const (
	// DefaultModel is the embedding model used when Options.Model is empty.
	DefaultModel = "embed-english-v3.0"
	// DefaultBaseURL is Cohere's API root.
	DefaultBaseURL = "https://api.cohere.com"
	// DefaultTimeout bounds one HTTP attempt.
	DefaultTimeout = 20 * time.Second
	// DefaultMaxAttempts is the number of attempts for retryable failures.
	DefaultMaxAttempts = 3
	// DefaultCacheSize is the number of cached vectors.
	DefaultCacheSize = 1024
	// MaxBatch is the most texts Cohere embeds in one call.
	MaxBatch = 96
)

// backoff bounds.
const (
	baseBackoff = 500 * time.Millisecond
	maxBackoff  = 8 * time.Second
)

// knownDims are the vector sizes of Cohere's published embedding models.
var knownDims = map[string]int{
	"embed-english-v3.0":            1024,
	"embed-multilingual-v3.0":       1024,
	"embed-english-light-v3.0":      384,
	"embed-multilingual-light-v3.0": 384,
}

// KnownDim returns the vector size of a known Cohere model, or 0.
func KnownDim(model string) int { return knownDims[model] }

// Options configure an Embedder. Only APIKey is required.
type Options struct {
	// APIKey is the Cohere API key (COHERE_API_KEY or CO_API_KEY).
	APIKey string
	// BaseURL is the API root without /v2 (COHERE_BASE_URL); default
	// https://api.cohere.com.
	BaseURL string
	// Model is the embedding model (RAGSCOPE_EMBED_MODEL); default
	// embed-english-v3.0.
	Model string
	// Timeout bounds each HTTP attempt; default 20 s. Ignored when
	// HTTPClient is set (its own Timeout applies).
	Timeout time.Duration
	// MaxAttempts is the number of attempts for 429, 408 and 5xx; default 3.
	MaxAttempts int
	// CacheSize is the number of vectors kept; default 1024, negative
	// disables the cache.
	CacheSize int
	// HTTPClient replaces the default client (proxies, tests).
	HTTPClient *http.Client
	// Sleep waits d or until ctx ends; tests inject a fast one. The default
	// uses a timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Embedder embeds texts with Cohere. It is safe for concurrent use.
type Embedder struct {
	co          *cov2.Client
	model       string
	baseURL     string
	key         string
	timeout     time.Duration
	maxAttempts int
	cache       *embedx.Cache
	sleep       func(ctx context.Context, d time.Duration) error
	dim         atomic.Int64
}

var _ retrieval.Embedder = (*Embedder)(nil)

// New returns an Embedder. A missing API key is an error matching
// retrieval.ErrConfig.
func New(opts Options) (*Embedder, error) {
	key := strings.TrimSpace(opts.APIKey)
	if key == "" {
		return nil, fmt.Errorf("%w: Cohere API key missing: set COHERE_API_KEY (or CO_API_KEY)", retrieval.ErrConfig)
	}
	base := strings.TrimRight(strings.TrimSpace(opts.BaseURL), "/")
	if base == "" {
		base = DefaultBaseURL
	}
	base = strings.TrimSuffix(base, "/v2")
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: COHERE_BASE_URL %q is not an http(s) URL", retrieval.ErrConfig, safeURL(base))
	}
	e := &Embedder{
		model:       opts.Model,
		baseURL:     base,
		key:         key,
		timeout:     opts.Timeout,
		maxAttempts: opts.MaxAttempts,
		sleep:       opts.Sleep,
	}
	if e.model == "" {
		e.model = DefaultModel
	}
	if e.timeout <= 0 {
		e.timeout = DefaultTimeout
	}
	if e.maxAttempts <= 0 {
		e.maxAttempts = DefaultMaxAttempts
	}
	if e.sleep == nil {
		e.sleep = sleepCtx
	}
	size := opts.CacheSize
	if size == 0 {
		size = DefaultCacheSize
	}
	e.cache = embedx.NewCache(size)
	e.dim.Store(int64(KnownDim(e.model)))

	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: e.timeout}
	}
	// The V2 sub-client is used directly: the root client package imports
	// the AWS SDK (for Bedrock), which ragscope does not need.
	e.co = cov2.NewClient(
		option.WithToken(key),
		option.WithBaseURL(base),
		option.WithHTTPClient(statusDoer{hc: hc, key: key}),
		// ragscope retries itself; see statusDoer.
		option.WithMaxAttempts(1),
	)
	return e, nil
}

// Name returns the model name.
func (e *Embedder) Name() string { return e.model }

// Dim returns the vector size: known for Cohere's v3 models, otherwise 0
// until the first response, then the size seen.
func (e *Embedder) Dim() int { return int(e.dim.Load()) }

// Embed returns one vector per text, in order. Cached texts cost no call;
// the others are sent in batches of at most 96.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return embedx.Embed(ctx, e.cache, e.model, texts, MaxBatch, e.embedBatch)
}

// embedBatch embeds at most MaxBatch texts, retrying retryable failures.
func (e *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	req := &cohereapi.V2EmbedRequest{
		Model:          e.model,
		InputType:      cohereapi.EmbedInputTypeSearchQuery,
		Texts:          texts,
		EmbeddingTypes: []cohereapi.EmbeddingType{cohereapi.EmbeddingTypeFloat},
		Truncate:       cohereapi.V2EmbedRequestTruncateEnd.Ptr(),
	}
	for attempt := 1; ; attempt++ {
		resp, err := e.co.Embed(ctx, req)
		if err == nil {
			return e.vectors(resp, len(texts), attempt)
		}
		var se *StatusError
		if ctx.Err() != nil || !errors.As(err, &se) || !embedx.Retryable(se.Status) || attempt >= e.maxAttempts {
			return nil, e.wrap(ctx, err, attempt)
		}
		wait := netx.Backoff(attempt, baseBackoff, maxBackoff)
		if se.RetryAfter > 0 {
			wait = min(se.RetryAfter, maxRetryAfter)
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			// Waiting would outlive the query: fail now with the real cause.
			return nil, e.wrap(ctx, err, attempt)
		}
		if serr := e.sleep(ctx, wait); serr != nil {
			return nil, e.wrap(ctx, serr, attempt)
		}
	}
}

// vectors converts the response's float64 embeddings to float32.
func (e *Embedder) vectors(resp *cohereapi.EmbedByTypeResponse, n, attempts int) ([][]float32, error) {
	var floats [][]float64
	if resp != nil && resp.Embeddings != nil {
		floats = resp.Embeddings.Float
	}
	if len(floats) != n {
		return nil, e.invalid(attempts, fmt.Sprintf("%d float embeddings for %d texts", len(floats), n))
	}
	out := make([][]float32, n)
	for i, f := range floats {
		v := make([]float32, len(f))
		for j, x := range f {
			if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > math.MaxFloat32 {
				return nil, e.invalid(attempts, "a number out of range in an embedding")
			}
			v[j] = float32(x)
		}
		if want := KnownDim(e.model); want > 0 && len(v) != want {
			// A size the model never makes: the server is at fault.
			return nil, e.invalid(attempts, fmt.Sprintf("%d-dimensional vectors, but %s makes %d", len(v), e.model, want))
		}
		if len(v) == 0 {
			return nil, e.invalid(attempts, "an empty embedding")
		}
		out[i] = v
	}
	if len(out) > 0 && len(out[0]) > 0 {
		e.dim.Store(int64(len(out[0])))
	}
	return out, nil
}

// invalid is an answer that is not a usable embed response.
func (e *Embedder) invalid(attempts int, what string) error {
	return &EmbedError{Status: http.StatusOK, Attempts: attempts, Invalid: true, Err: errors.New("invalid embed response"),
		Msg: fmt.Sprintf("Cohere at %s answered with an invalid response (HTTP 200): %s. Check COHERE_BASE_URL points at Cohere's API.", safeURL(e.baseURL), what)}
}

// wrap turns a failed call into an *EmbedError with a message to act on.
func (e *Embedder) wrap(ctx context.Context, err error, attempts int) error {
	ee := &EmbedError{Err: err, Attempts: attempts}
	var se *StatusError
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		ee.Err = errors.Join(context.Canceled, err)
		ee.Msg = "embedding cancelled"
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		ee.Err = errors.Join(context.DeadlineExceeded, err)
		ee.Msg = "Cohere did not answer in time. Check your network or COHERE_BASE_URL, then try again."
	case errors.As(err, &se) && se.Invalid:
		ee.Status, ee.Invalid = se.Status, true
		ee.Msg = fmt.Sprintf("Cohere at %s answered with an invalid response (HTTP %d): %q. Check COHERE_BASE_URL points at Cohere's API.", safeURL(e.baseURL), se.Status, se.Message)
	case errors.As(err, &se):
		ee.Status = se.Status
		ee.Msg = e.statusMessage(se, attempts)
	case isDecodeError(err):
		// The transport passed a 2xx JSON body that cohere-go cannot
		// decode into an embed response (a string for a number, a number
		// beyond float64): the server is at fault, not the network.
		ee.Status, ee.Invalid = http.StatusOK, true
		ee.Msg = fmt.Sprintf("Cohere at %s answered with an invalid response (HTTP 200): the embeddings do not decode (a value of the wrong type or out of range). Check COHERE_BASE_URL points at Cohere's API.", safeURL(e.baseURL))
	case errors.As(err, &ne) && ne.Timeout():
		// The per-attempt http.Client timeout, not the caller's deadline.
		ee.Msg = fmt.Sprintf("Cohere did not answer within %s. Check your network or COHERE_BASE_URL, then try again.", e.timeout)
	default:
		ee.Msg = fmt.Sprintf("Cannot reach Cohere at %s: %s. Check your network or COHERE_BASE_URL.", safeURL(e.baseURL), shortCause(err, e.key))
	}
	return ee
}

func (e *Embedder) statusMessage(se *StatusError, attempts int) string {
	detail := ""
	if se.Message != "" {
		detail = " (" + se.Message + ")"
	}
	tries := ""
	if attempts > 1 {
		tries = fmt.Sprintf(" after %d attempts", attempts)
	}
	switch s := se.Status; {
	case s == http.StatusUnauthorized:
		return "Cohere rejected the API key (401). Check COHERE_API_KEY."
	case s == http.StatusForbidden:
		return fmt.Sprintf("Cohere refused access (403)%s. Check that COHERE_API_KEY may use %s.", detail, e.model)
	case s == http.StatusNotFound && strings.Contains(strings.ToLower(se.Message), "model"):
		// Cohere answers an unknown model with 404 "model … not found":
		// the model is wrong, not the base URL.
		return fmt.Sprintf("Cohere refused the request (404)%s: the model %q does not exist. Check --model (RAGSCOPE_EMBED_MODEL).", detail, e.model)
	case s == http.StatusNotFound:
		return fmt.Sprintf("Cohere's embed endpoint was not found (404) at %s/v2/embed. Check COHERE_BASE_URL.", safeURL(e.baseURL))
	case s == http.StatusTooManyRequests:
		return fmt.Sprintf("Cohere rate limit reached (429)%s. Wait a minute and retry; trial keys are limited.", tries)
	case s == http.StatusRequestTimeout:
		return fmt.Sprintf("Cohere timed out (408)%s. Try again.", tries)
	case s >= 500:
		return fmt.Sprintf("Cohere is unavailable (%d)%s. Try again later.", s, tries)
	default:
		return fmt.Sprintf("Cohere rejected the request (%d)%s. Check RAGSCOPE_EMBED_MODEL (%q).", s, detail, e.model)
	}
}

// isDecodeError reports whether err is a JSON decoding failure of a
// response body.
func isDecodeError(err error) bool {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	return errors.As(err, &te) || errors.As(err, &se)
}

// shortCause renders a transport error without URLs' user info or the key.
func shortCause(err error, key string) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return redact(err.Error(), key)
}

// safeURL drops user info from a URL for messages.
func safeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(invalid URL)"
	}
	return u.Redacted()
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
