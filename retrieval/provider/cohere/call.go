package cohere

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cohere-ai/cohere-go/v2/option"
	cov2 "github.com/cohere-ai/cohere-go/v2/v2"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/embedx"
	"ragscope/retrieval/provider/netx"
)

// conn is what every Cohere endpoint ragscope calls (embed, rerank)
// shares: the V2 client behind statusDoer, the key, the base URL, the
// per-attempt timeout and ragscope's own context-aware retries.
type conn struct {
	co          *cov2.Client
	baseURL     string
	key         string
	timeout     time.Duration
	maxAttempts int
	sleep       func(ctx context.Context, d time.Duration) error
}

// newConn checks the key and base URL and builds the client. timeout and
// maxAttempts of 0 take the package defaults; hc, when set, replaces the
// default HTTP client; sleep, when set, replaces the timer wait. Every
// response body is read within limits (embedx.Client; zero fields take
// the defaults).
func newConn(apiKey, baseURL string, timeout time.Duration, maxAttempts int, hc *http.Client, sleep func(context.Context, time.Duration) error, limits embedx.Limits) (*conn, error) {
	key := strings.TrimSpace(apiKey)
	if key == "" {
		return nil, fmt.Errorf("%w: Cohere API key missing: set COHERE_API_KEY (or CO_API_KEY)", retrieval.ErrConfig)
	}
	base := strings.TrimRight(strings.TrimSpace(baseURL), "/")
	if base == "" {
		base = DefaultBaseURL
	}
	base = strings.TrimSuffix(base, "/v2")
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: COHERE_BASE_URL %q is not an http(s) URL", retrieval.ErrConfig, embedx.SafeURL(base))
	}
	c := &conn{baseURL: base, key: key, timeout: timeout, maxAttempts: maxAttempts, sleep: sleep}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.maxAttempts <= 0 {
		c.maxAttempts = DefaultMaxAttempts
	}
	if c.sleep == nil {
		c.sleep = netx.Sleep
	}
	if hc == nil {
		hc = &http.Client{Timeout: c.timeout}
	}
	hc = embedx.Client(hc, limits)
	// The V2 sub-client is used directly: the root client package imports
	// the AWS SDK (for Bedrock), which ragscope does not need.
	c.co = cov2.NewClient(
		option.WithToken(key),
		option.WithBaseURL(base),
		option.WithHTTPClient(statusDoer{hc: hc, key: key}),
		// ragscope retries itself; see statusDoer.
		option.WithMaxAttempts(1),
	)
	return c, nil
}

// policy is the retry rule of every Cohere call (netx.Policy): 429, 408
// and 5xx are retried up to maxAttempts with backoff or the server's
// Retry-After, and a wait past the time left is not made.
func (c *conn) policy() netx.Policy {
	return retryPolicy(c.maxAttempts, c.timeout)
}

// retryPolicy is the netx.Policy of a Cohere client with these attempts
// and per-call timeout.
func retryPolicy(attempts int, timeout time.Duration) netx.Policy {
	return netx.Policy{Attempts: attempts, Base: baseBackoff, Max: maxBackoff, Timeout: timeout, MaxWait: netx.MaxWait}
}

// retry calls do until it succeeds, fails for good, or the policy ends
// the retries. It retries 429, 408 and 5xx (embedx.Retryable); a
// Retry-After past the time left ends them at once, noted in the
// StatusError (Stop). It returns the number of attempts made.
func retry[T any](ctx context.Context, c *conn, do func() (T, error)) (T, int, error) {
	var (
		v   T
		err error
		se  *StatusError
	)
	attempts, stop, serr := c.policy().Retry(ctx, c.sleep, func(int) (bool, time.Duration) {
		v, err = do()
		se = nil
		if err == nil || ctx.Err() != nil || !errors.As(err, &se) || !embedx.Retryable(se.Status) {
			return false, 0
		}
		return true, se.RetryAfter
	})
	if serr != nil {
		// The last answer stays the cause a message names.
		return v, attempts, errors.Join(serr, err)
	}
	if stop != (netx.Step{}) {
		se.Stop = stop
	}
	return v, attempts, err
}

// endpoint names a Cohere endpoint in messages.
type endpoint struct {
	// name is "embed" or "rerank"; verb what it does ("embedding").
	name, verb string
	// model is the model asked for, and modelVar the setting naming it.
	model, modelVar string
}

// failure is a failed call, classified: the HTTP status (0 when no answer
// came), whether the answer was invalid, the message a person can act on
// and the cause (joined with the context's error when ctx ended).
type failure struct {
	status  int
	invalid bool
	msg     string
	cause   error
}

// classify turns a failed call to ep into a failure with a message to act
// on. Neither the message nor the cause contains the API key.
func (c *conn) classify(ctx context.Context, err error, attempts int, ep endpoint) failure {
	f := failure{cause: err}
	var se *StatusError
	var oe *embedx.OversizedError
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		f.cause = errors.Join(context.Canceled, err)
		f.msg = ep.verb + " cancelled"
	case errors.As(err, &oe):
		// Before the deadline: a huge body that took long to read is
		// still oversized, not slow.
		ee := c.oversized(oe)
		f.status, f.invalid, f.msg, f.cause = ee.Status, true, ee.Msg, ee.Err
	case errors.As(err, &se) && se.Invalid:
		f.status, f.invalid = se.Status, true
		f.msg = fmt.Sprintf("Cohere at %s answered with an invalid response (HTTP %d): %q. Check COHERE_BASE_URL points at Cohere's API.", embedx.SafeURL(c.baseURL), se.Status, se.Message)
	case errors.As(err, &se):
		// An answer came (the retries may have ended by the deadline
		// after it): it is the cause.
		f.status = se.Status
		f.msg = c.statusMessage(se, attempts, ep)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		f.cause = errors.Join(context.DeadlineExceeded, err)
		// The caller's deadline is --timeout as the attempt's is: which of
		// the two fires first is a race, so both say the same.
		f.msg = fmt.Sprintf("Cohere did not answer within %s. Check your network or COHERE_BASE_URL, then try again.", c.timeout)
	case isDecodeError(err):
		// The transport passed a 2xx JSON body that cohere-go cannot
		// decode (a string for a number, a number beyond float64): the
		// server is at fault, not the network.
		f.status, f.invalid = http.StatusOK, true
		f.msg = fmt.Sprintf("Cohere at %s answered with an invalid response (HTTP 200): the %s answer does not decode (a value of the wrong type or out of range). Check COHERE_BASE_URL points at Cohere's API.", embedx.SafeURL(c.baseURL), ep.name)
	case errors.As(err, &ne) && ne.Timeout():
		// The per-attempt http.Client timeout, not the caller's deadline.
		f.msg = fmt.Sprintf("Cohere did not answer within %s. Check your network or COHERE_BASE_URL, then try again.", c.timeout)
	default:
		f.msg = fmt.Sprintf("Cannot reach Cohere at %s: %s. Check your network or COHERE_BASE_URL.", embedx.SafeURL(c.baseURL), embedx.ShortCause(err, c.key))
	}
	return f
}

// oversized is the error for an answer that passed a read bound.
func (c *conn) oversized(oe *embedx.OversizedError) *embedx.Error {
	return embedx.OversizedFailure("Cohere at "+embedx.SafeURL(c.baseURL), "Check COHERE_BASE_URL points at Cohere's API.", oe)
}

// invalidAnswer is a 200 answer from ep that is not usable.
func (c *conn) invalidAnswer(what string) failure {
	return failure{status: http.StatusOK, invalid: true, cause: errors.New("invalid response"),
		msg: fmt.Sprintf("Cohere at %s answered with an invalid response (HTTP 200): %s. Check COHERE_BASE_URL points at Cohere's API.", embedx.SafeURL(c.baseURL), what)}
}

func (c *conn) statusMessage(se *StatusError, attempts int, ep endpoint) string {
	return statusMessage(se, attempts, c.baseURL, ep)
}

// statusMessage is the message for an HTTP error status from Cohere's ep
// at baseURL, after attempts tries: what went wrong and what to set.
func statusMessage(se *StatusError, attempts int, baseURL string, ep endpoint) string {
	detail := ""
	if se.Message != "" {
		detail = " (" + se.Message + ")"
	}
	tries := embedx.Tries(attempts, se.Stop)
	switch s := se.Status; {
	case s == http.StatusUnauthorized:
		return "Cohere rejected the API key (401). Check COHERE_API_KEY."
	case s == http.StatusForbidden:
		return fmt.Sprintf("Cohere refused access (403)%s. Check that COHERE_API_KEY may use %s.", detail, ep.model)
	case s == http.StatusNotFound && strings.Contains(strings.ToLower(se.Message), "model"):
		// Cohere answers an unknown model with 404 "model … not found":
		// the model is wrong, not the base URL.
		return fmt.Sprintf("Cohere refused the request (404)%s: the model %q does not exist. Check %s.", detail, ep.model, ep.modelVar)
	case s == http.StatusNotFound:
		return fmt.Sprintf("Cohere's %s endpoint was not found (404) at %s/v2/%s. Check COHERE_BASE_URL.", ep.name, embedx.SafeURL(baseURL), ep.name)
	case s == http.StatusTooManyRequests:
		return fmt.Sprintf("Cohere rate limit reached (429)%s. Wait a minute and retry; trial keys are limited.", tries)
	case s == http.StatusRequestTimeout:
		return fmt.Sprintf("Cohere timed out (408)%s. Try again.", tries)
	case s >= 500:
		return fmt.Sprintf("Cohere is unavailable (%d)%s. Try again later.", s, tries)
	default:
		return fmt.Sprintf("Cohere rejected the request (%d)%s. Check %s (%q).", s, detail, ep.modelVar, ep.model)
	}
}
