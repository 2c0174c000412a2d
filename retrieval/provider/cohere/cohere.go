// Package cohere is ragscope's Embedder on Cohere's embed API
// (github.com/cohere-ai/cohere-go/v2, V2 Embed).
//
// Questions are embedded with input_type "search_query" and float
// embeddings (documents to index, Options.Documents, with
// "search_document"). Retries (429, 408, 5xx) are done here, not by the library,
// so that waiting honours the context; results are cached by model and text.
package cohere

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	cohereapi "github.com/cohere-ai/cohere-go/v2"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/embedx"
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
	// ModelDim is the model's vector size, from the provider's row of
	// models; every answer is checked against it. 0 is a model ragscope
	// does not know: its size is learnt from the first answer.
	ModelDim int
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
	// Limits bound the responses read (zero fields: embedx's defaults,
	// 64 MB a response); tests set small ones.
	Limits embedx.Limits
	// Documents embeds documents to index (input_type search_document)
	// rather than questions (search_query).
	Documents bool
}

// Embedder embeds texts with Cohere. It is safe for concurrent use.
type Embedder struct {
	*conn
	model     string
	inputType cohereapi.EmbedInputType
	cache     *embedx.Cache
	modelDim  int // Options.ModelDim
	dim       atomic.Int64
	tokens    atomic.Int64
}

var _ retrieval.Embedder = (*Embedder)(nil)

// New returns an Embedder. A missing API key is an error matching
// retrieval.ErrConfig.
func New(opts Options) (*Embedder, error) {
	c, err := newConn(opts.APIKey, opts.BaseURL, opts.Timeout, opts.MaxAttempts, opts.HTTPClient, opts.Sleep, opts.Limits)
	if err != nil {
		return nil, err
	}
	e := &Embedder{conn: c, model: opts.Model, modelDim: max(opts.ModelDim, 0), inputType: cohereapi.EmbedInputTypeSearchQuery}
	if opts.Documents {
		e.inputType = cohereapi.EmbedInputTypeSearchDocument
	}
	if e.model == "" {
		e.model = DefaultModel
	}
	size := opts.CacheSize
	if size == 0 {
		size = DefaultCacheSize
	}
	e.cache = embedx.NewCache(size)
	e.dim.Store(int64(e.modelDim))
	return e, nil
}

// Name returns the model name.
func (e *Embedder) Name() string { return e.model }

// Tokens is the input tokens Cohere billed for the calls so far.
func (e *Embedder) Tokens() int64 { return e.tokens.Load() }

// Dim returns the vector size: the model's (Options.ModelDim), otherwise 0
// until the first response, then the size seen.
func (e *Embedder) Dim() int { return int(e.dim.Load()) }

// Embed returns one vector per text, in order. Cached texts cost no call;
// the others are sent in batches of at most 96. A vector with a value
// that is not a finite number, or of all zeros, is an invalid answer
// (embedx.CheckVector).
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return embedx.Embed(ctx, e.cache, e.model+"\x00"+string(e.inputType), texts, MaxBatch, e.embedBatch, func(what string) error { return e.invalid(1, what) })
}

// embedBatch embeds at most MaxBatch texts, retrying retryable failures.
func (e *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	req := &cohereapi.V2EmbedRequest{
		Model:          e.model,
		InputType:      e.inputType,
		Texts:          texts,
		EmbeddingTypes: []cohereapi.EmbeddingType{cohereapi.EmbeddingTypeFloat},
		Truncate:       cohereapi.V2EmbedRequestTruncateEnd.Ptr(),
	}
	resp, attempts, err := retry(ctx, e.conn, func() (*cohereapi.EmbedByTypeResponse, error) { return e.co.Embed(ctx, req) })
	if err != nil {
		return nil, e.wrap(ctx, err, attempts)
	}
	if bu := resp.GetMeta().GetBilledUnits(); bu != nil && bu.InputTokens != nil {
		e.tokens.Add(int64(*bu.InputTokens))
	}
	return e.vectors(resp, len(texts), attempts)
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
		// A value beyond float32 becomes ±Inf here, which the shared
		// check refuses with NaN and all zeros (Embed runs it too; here
		// it comes before the size check, as the more precise cause).
		v := make([]float32, len(f))
		for j, x := range f {
			v[j] = float32(x)
		}
		if what := embedx.CheckVector(v); what != "" && len(v) > 0 {
			return nil, e.invalid(attempts, what)
		}
		if want := e.modelDim; want > 0 && len(v) != want {
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
	return e.embedError(e.invalidAnswer(what), attempts)
}

// wrap turns a failed call into an *EmbedError with a message to act on.
func (e *Embedder) wrap(ctx context.Context, err error, attempts int) error {
	return e.embedError(e.classify(ctx, err, attempts, endpoint{name: "embed", verb: "embedding", model: e.model, modelVar: "--model (RAGSCOPE_EMBED_MODEL)"}), attempts)
}

func (e *Embedder) embedError(f failure, attempts int) *EmbedError {
	return &EmbedError{Status: f.status, Invalid: f.invalid, Msg: f.msg, Err: f.cause, Attempts: attempts}
}

// isDecodeError reports whether err is a JSON decoding failure of a
// response body.
func isDecodeError(err error) bool {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	return errors.As(err, &te) || errors.As(err, &se)
}
