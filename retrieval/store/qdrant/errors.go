package qdrant

import (
	"context"
	"errors"
	"fmt"
	"strings"

	qc "github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	urlredact "ragscope/internal/redact"
	"ragscope/retrieval"
)

// Error kinds, one per distinct failure a user can fix.
const (
	KindUnreachable = "unreachable"
	KindWrongPort   = "wrong_port"
	KindTLS         = "tls_mismatch"
	KindAuth        = "auth"
	KindNotFound    = "not_found"
	KindTimeout     = "timeout"
	KindRateLimit   = "rate_limited"
	KindBadRequest  = "bad_request"
	KindVectorSize  = "vector_size"
	KindCanceled    = "canceled"
	KindServer      = "server"
	// KindSparseModel: the collection's sparse vector is made by a model
	// ragscope cannot encode questions for.
	KindSparseModel = "sparse_model"
)

// Error is a Qdrant failure with a message a person can act on. It matches
// one retrieval error class with errors.Is (ErrUnavailable, ErrAuth,
// ErrNotFound or ErrConfig; a cancelled call matches context.Canceled
// instead) and unwraps to the gRPC cause. It never contains the API key.
type Error struct {
	// Kind is one of the Kind constants.
	Kind string
	// Op is the operation that failed ("search", "stats", …).
	Op string
	// Msg is the user-facing message.
	Msg string
	// Err is the cause.
	Err error
}

// Error returns the user-facing message.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is matches the retrieval error class of Kind.
func (e *Error) Is(target error) bool {
	switch target {
	case retrieval.ErrAuth:
		return e.Kind == KindAuth
	case retrieval.ErrNotFound:
		return e.Kind == KindNotFound
	case retrieval.ErrConfig:
		return e.Kind == KindVectorSize || e.Kind == KindBadRequest || e.Kind == KindSparseModel
	case retrieval.ErrUnavailable:
		switch e.Kind {
		case KindUnreachable, KindWrongPort, KindTLS, KindTimeout, KindRateLimit, KindServer:
			return true
		}
	}
	return false
}

// classify maps a go-client error to an *Error. ctx is the call's context,
// to tell a timeout from a cancellation.
func (s *Store) classify(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	ep := s.ep.String()
	e := &Error{Op: op, Err: err}
	st, _ := status.FromError(unwrapQdrant(err))
	msg := strings.ToLower(st.Message())
	var rl *qc.QdrantResourceExhaustedError
	switch {
	case errors.Is(ctx.Err(), context.Canceled) || st.Code() == codes.Canceled:
		e.Kind, e.Msg = KindCanceled, "Qdrant request cancelled"
		e.Err = errors.Join(context.Canceled, err)
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || st.Code() == codes.DeadlineExceeded:
		e.Kind = KindTimeout
		e.Msg = fmt.Sprintf("Qdrant at %s did not answer within %s (timeout). Check QDRANT_URL and your network; a cluster that is starting up can also be slow.", ep, s.timeout)
		e.Err = errors.Join(context.DeadlineExceeded, err)
	case st.Code() == codes.Unauthenticated || st.Code() == codes.PermissionDenied:
		e.Kind = KindAuth
		if s.hasKey {
			e.Msg = fmt.Sprintf("Qdrant rejected the API key (%s). Check QDRANT_API_KEY.", st.Code())
		} else {
			e.Msg = fmt.Sprintf("Qdrant at %s requires an API key (%s). Set QDRANT_API_KEY.", ep, st.Code())
		}
	case st.Code() == codes.NotFound:
		e.Kind = KindNotFound
		e.Msg = fmt.Sprintf("Collection %q not found in Qdrant at %s. Check QDRANT_COLLECTION, or run your ingestion first.", s.collection, ep)
	case strings.Contains(msg, "malformed header: missing http content-type") ||
		(st.Code() == codes.Unimplemented && (strings.Contains(msg, "404") || strings.Contains(msg, "464"))) ||
		strings.Contains(msg, "unexpected http status code") || strings.Contains(msg, "http2: frame too large"):
		e.Kind = KindWrongPort
		e.Msg = fmt.Sprintf("%s answered like Qdrant's REST API, not gRPC: ragscope speaks gRPC. Use the gRPC port %d in QDRANT_URL (https://host:6333 is mapped automatically).", ep, GRPCPort)
	case strings.Contains(msg, "first record does not look like a tls handshake") ||
		strings.Contains(msg, "tls: ") && (strings.Contains(msg, "record") || strings.Contains(msg, "oversized")):
		e.Kind = KindTLS
		e.Msg = fmt.Sprintf("TLS mismatch: %s does not speak TLS. Use http:// in QDRANT_URL for a server without TLS.", ep)
	case strings.Contains(msg, "x509") || strings.Contains(msg, "certificate") || strings.Contains(msg, "authentication handshake failed"):
		e.Kind = KindTLS
		e.Msg = fmt.Sprintf("TLS handshake with %s failed (certificate not trusted or not valid for this host). Check the host name in QDRANT_URL.", ep)
	case !s.ep.TLS && (strings.Contains(msg, "server preface") || strings.Contains(msg, "connection reset") ||
		strings.Contains(msg, "eof")):
		e.Kind = KindTLS
		e.Msg = fmt.Sprintf("TLS mismatch: %s closed a plaintext connection; it probably requires TLS. Use https:// in QDRANT_URL.", ep)
	case errors.As(err, &rl) || st.Code() == codes.ResourceExhausted:
		e.Kind = KindRateLimit
		e.Msg = "Qdrant is rate limiting requests (ResourceExhausted). Wait a moment and retry."
		if rl != nil && rl.RetryAfterS > 0 {
			e.Msg = fmt.Sprintf("Qdrant is rate limiting requests; retry after %d s.", rl.RetryAfterS)
		}
	case st.Code() == codes.Unavailable:
		e.Kind = KindUnreachable
		e.Msg = fmt.Sprintf("Cannot reach Qdrant at %s (%s). Check QDRANT_URL, that the server is running and that your network allows gRPC on port %d.", ep, shortReason(st.Message()), s.ep.Port)
	case st.Code() == codes.InvalidArgument || st.Code() == codes.FailedPrecondition:
		e.Kind = KindBadRequest
		e.Msg = fmt.Sprintf("Qdrant rejected the %s request: %s", op, shortReason(st.Message()))
	default:
		e.Kind = KindServer
		e.Msg = fmt.Sprintf("Qdrant %s failed (%s): %s", op, st.Code(), shortReason(st.Message()))
	}
	e.Msg = redact(e.Msg, s.apiKey)
	return e
}

// unwrapQdrant strips the go-client's *QdrantError so status.FromError sees
// the gRPC status.
func unwrapQdrant(err error) error {
	var qe *qc.QdrantError
	if errors.As(err, &qe) {
		return qe.Unwrap()
	}
	return err
}

// shortReason keeps the useful tail of a gRPC transport message.
func shortReason(m string) string {
	m = strings.TrimSpace(m)
	low := strings.ToLower(m)
	for _, known := range []struct{ in, out string }{
		{"connection refused", "connection refused"},
		{"no such host", "host not found"},
		{"i/o timeout", "connection timed out"},
		{"network is unreachable", "network unreachable"},
		{"connection reset", "connection reset"},
	} {
		if strings.Contains(low, known.in) {
			return known.out
		}
	}
	if i := strings.LastIndex(m, "desc = "); i >= 0 {
		m = strings.Trim(m[i+len("desc = "):], `"`)
	}
	if r := []rune(m); len(r) > 200 {
		m = string(r[:200]) + "…"
	}
	if m == "" {
		return "no details"
	}
	return m
}

// redact hides key and the credentials of every URL in s (redact.Text).
func redact(s, key string) string { return urlredact.Secrets(s, key) }

// VectorSizeError says the collection's vectors and the embedding model's
// differ. It matches retrieval.ErrConfig.
type VectorSizeError struct {
	Collection string
	// Have is the collection's vector size, Want the embedder's.
	Have, Want int
	// Models names the configured embedder's models that make Have-long
	// vectors (Options.ModelsOfSize), "" when none is known.
	Models string
}

// Error says what differs and what to do.
func (e *VectorSizeError) Error() string {
	return fmt.Sprintf("Collection %q holds %d-dimensional vectors but the embedding model makes %d. "+
		"Use the model the collection was built with (%s), "+
		"ask for --dimensions %d if the model can shorten its vectors (OpenAI text-embedding-3, Gemini), or point QDRANT_COLLECTION at the right collection.",
		e.Collection, e.Have, e.Want, e.ModelAdvice(), e.Have)
}

// ModelAdvice is what to set to embed with the collection's model:
// "--model, --embedder" and the models of its size, when known.
func (e *VectorSizeError) ModelAdvice() string {
	if e.Models == "" {
		return "--model, --embedder"
	}
	return fmt.Sprintf("--model, --embedder; %d dimensions: %s", e.Have, e.Models)
}

// Is matches retrieval.ErrConfig.
func (e *VectorSizeError) Is(target error) bool { return target == retrieval.ErrConfig }
