package embedx

import (
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
}

// WithDefaults is o with an unset Timeout, MaxAttempts and CacheSize
// given their defaults.
func (o Options) WithDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.CacheSize == 0 {
		o.CacheSize = DefaultCacheSize
	}
	return o
}
