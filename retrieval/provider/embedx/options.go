package embedx

import (
	"cmp"
	"context"
	"net/http"
	"time"
)

// Defaults of a provider's embedder.
const (
	// DefaultTimeout bounds one HTTP attempt.
	DefaultTimeout = 20 * time.Second
	// DefaultMaxAttempts is the number of attempts for retryable failures.
	DefaultMaxAttempts = 3
	// DefaultCacheSize is the number of cached vectors.
	DefaultCacheSize = 1024
)

// Options configure a provider's query embedder; openai.Options and
// gemini.Options are this type. Only APIKey is required (and not even
// that by a local OpenAI-compatible server).
type Options struct {
	// APIKey is the provider's API key (OPENAI_API_KEY, GEMINI_API_KEY).
	APIKey string
	// BaseURL replaces the provider's API root (OPENAI_BASE_URL, with /v1;
	// GEMINI_BASE_URL): local servers, proxies, tests.
	BaseURL string
	// Model is the embedding model; "" is the provider's default.
	Model string
	// Dimensions asks for vectors of this size (OpenAI's dimensions,
	// Gemini's outputDimensionality); 0 = the model's own size.
	Dimensions int
	// ModelDim is the model's native vector size, from the provider's row
	// of models. 0 is a model ragscope does not know (a local server's):
	// Dimensions is then not bounded, and the size is learnt from the
	// first answer rather than checked against it.
	ModelDim int
	// Shortens reports that the model can be asked for fewer dimensions
	// than ModelDim (OpenAI's text-embedding-3 models; every Gemini model
	// can, and Gemini does not read it).
	Shortens bool
	// Shorteners names the provider's models that can be asked for fewer
	// dimensions, for the message when Model cannot
	// ("text-embedding-3-small (up to 1536) or text-embedding-3-large (up
	// to 3072)"); "" when the provider has none.
	Shorteners string
	// Timeout bounds each HTTP attempt; default 20 s.
	Timeout time.Duration
	// MaxAttempts is the number of attempts for retryable failures;
	// default 3.
	MaxAttempts int
	// CacheSize is the number of vectors kept; default 1024, negative
	// disables the cache.
	CacheSize int
	// HTTPClient replaces the default client (proxies, tests).
	HTTPClient *http.Client
	// Limits bound the responses read (zero fields: the defaults, 64 MB a
	// response); tests set small ones.
	Limits Limits
	// Documents embeds documents to index rather than questions: the
	// provider's document input type (Gemini RETRIEVAL_DOCUMENT; OpenAI
	// has none).
	Documents bool
}

// WithDefaults is o with an unset Timeout, MaxAttempts and CacheSize
// given their defaults.
func (o Options) WithDefaults() Options {
	o.Timeout = cmp.Or(max(o.Timeout, 0), DefaultTimeout)
	o.MaxAttempts = cmp.Or(max(o.MaxAttempts, 0), DefaultMaxAttempts)
	o.CacheSize = cmp.Or(o.CacheSize, DefaultCacheSize) // negative: no cache
	return o
}

// ClientOptions configure a provider's chat model or reranker
// (cohere.ChatOptions and cohere.RerankOptions, openai.ChatOptions). Only
// APIKey is required (and not by a local OpenAI-compatible server).
type ClientOptions struct {
	// APIKey is the provider's API key (COHERE_API_KEY or CO_API_KEY,
	// OPENAI_API_KEY), sent as a bearer token.
	APIKey string
	// BaseURL is the API root (COHERE_BASE_URL without /v2,
	// OPENAI_BASE_URL with /v1): any server that speaks the provider's API.
	BaseURL string
	// Model is the chat or rerank model (RAGSCOPE_CHAT_MODEL,
	// RAGSCOPE_RERANK_MODEL); "" is the provider's default.
	Model string
	// Timeout is 20 s by default. For a chat it bounds the wait for the
	// answer to start and then for each next piece (a long answer that
	// keeps streaming is not cut); for a reranker each HTTP attempt
	// (ignored when HTTPClient is set).
	Timeout time.Duration
	// MaxAttempts is the number of attempts for 408, 409, 429, 5xx and
	// connection errors (before a chat's answer starts); default 3.
	MaxAttempts int
	// HTTPClient replaces the default client (proxies, tests). Its own
	// Timeout, when set, bounds a whole answer.
	HTTPClient *http.Client
	// Sleep waits d or until ctx ends; tests inject a fast one. A provider
	// whose SDK waits between attempts itself (OpenAI) ignores it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Limits bound what is read: a response, or a chat's answer stream in
	// all and each of its events (zero fields: the defaults, 64 MB and
	// 4 MB).
	Limits Limits
}
