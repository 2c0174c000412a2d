package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/openai/openaitest"
)

const testKey = "sk-test-secret-1234567890"

func newTest(t *testing.T, opts Options) (*Embedder, *openaitest.Server) {
	t.Helper()
	srv := openaitest.NewServer(testKey)
	t.Cleanup(srv.Close)
	if opts.APIKey == "" {
		opts.APIKey = testKey
	}
	opts.BaseURL = srv.URL
	e, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return e, srv
}

func noKey(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.Contains(fmt.Sprintf("%v %+v", err, err), testKey) {
		t.Fatalf("key leaked: %v", err)
	}
}

func TestEmbedThroughSDK(t *testing.T) {
	e, srv := newTest(t, Options{})
	vecs, err := e.Embed(context.Background(), []string{"what is a humanoid robot", "servo motors"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 2 || len(vecs[0]) != 1536 || e.Dim() != 1536 {
		t.Fatalf("got %d vectors of %d, Dim %d", len(vecs), len(vecs[0]), e.Dim())
	}
	req := srv.LastRequest()
	if req.Model != DefaultModel || req.EncodingFormat != "float" || req.Dimensions != 0 {
		t.Fatalf("request %+v", req)
	}
	if got := srv.LastHeaders().Get("Authorization"); got != "Bearer "+testKey {
		t.Fatalf("Authorization = %q", got)
	}
}

func TestDimensionsAreSent(t *testing.T) {
	e, srv := newTest(t, Options{Dimensions: 1024})
	vecs, err := e.Embed(context.Background(), []string{"gait"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs[0]) != 1024 || srv.LastRequest().Dimensions != 1024 || e.Dim() != 1024 {
		t.Fatalf("size %d, sent %d", len(vecs[0]), srv.LastRequest().Dimensions)
	}
}

func TestBadOptionsAreConfigErrors(t *testing.T) {
	for name, o := range map[string]Options{
		"no key":         {},
		"cohere model":   {APIKey: "k", Model: "embed-english-v3.0"},
		"too large":      {APIKey: "k", Dimensions: 4096},
		"ada shortened":  {APIKey: "k", Model: "text-embedding-ada-002", Dimensions: 512},
		"not a base URL": {APIKey: "k", BaseURL: "api.openai.com"},
	} {
		if _, err := New(o); !errors.Is(err, retrieval.ErrConfig) {
			t.Errorf("%s: err = %v, want ErrConfig", name, err)
		}
	}
}

func TestCacheAndBatching(t *testing.T) {
	e, srv := newTest(t, Options{})
	texts := make([]string, MaxBatch+5)
	for i := range texts {
		texts[i] = fmt.Sprintf("question %d", i)
	}
	texts[MaxBatch+4] = texts[0] // a repeat is fetched once
	if _, err := e.Embed(context.Background(), texts); err != nil {
		t.Fatal(err)
	}
	if got := srv.BatchSizes(); len(got) != 2 || got[0] != MaxBatch || got[1] != 4 {
		t.Fatalf("batches %v", got)
	}
	n := srv.Requests()
	if _, err := e.Embed(context.Background(), []string{texts[MaxBatch+1]}); err != nil || srv.Requests() != n {
		t.Fatalf("cache hit made a call (%v)", err)
	}
}

func TestErrorsAreClassified(t *testing.T) {
	cases := []struct {
		name     string
		fail     []openaitest.Failure
		key      string
		model    string
		class    error
		requests int
		say      string
	}{
		{"401", nil, "sk-wrong", "", retrieval.ErrAuth, 1, "OPENAI_API_KEY"},
		{"unknown model", nil, "", "text-embedding-9", retrieval.ErrConfig, 1, "does not exist"},
		{"persistent 5xx", []openaitest.Failure{{Status: 503}, {Status: 503}, {Status: 503}}, "", "", retrieval.ErrUnavailable, 3, "unavailable (503)"},
		{"400 never retried", []openaitest.Failure{{Status: 400, Message: "bad"}}, "", "", retrieval.ErrConfig, 1, "refused the request (400)"},
		{"HTML with 200", []openaitest.Failure{{Raw: "<html><body>Welcome</body></html>", ContentType: "text/html"}}, "", "", retrieval.ErrUnavailable, 1, "invalid response"},
		{"truncated JSON", []openaitest.Failure{{Raw: `{"object":"list","data":[{"emb`, ContentType: "application/json"}}, "", "", retrieval.ErrUnavailable, 1, "truncated JSON"},
		{"wrong size", []openaitest.Failure{{Dim: 7}}, "", "", retrieval.ErrUnavailable, 1, "7-dimensional vectors, but text-embedding-3-small makes 1536"},
		{"out of range", []openaitest.Failure{{Raw: `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1e300]}],"model":"m"}`, ContentType: "application/json"}}, "", "", retrieval.ErrUnavailable, 1, "out of range"},
		{"HTML 404", []openaitest.Failure{{Status: 404, Raw: "<html>Not Found</html>", ContentType: "text/html"}}, "", "", retrieval.ErrConfig, 1, "404"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, srv := newTest(t, Options{APIKey: c.key, Model: c.model})
			srv.Fail(c.fail...)
			_, err := e.Embed(context.Background(), []string{"q"})
			if !errors.Is(err, c.class) {
				t.Fatalf("err = %v, want %v", err, c.class)
			}
			for _, other := range []error{retrieval.ErrAuth, retrieval.ErrConfig, retrieval.ErrUnavailable} {
				if other != c.class && errors.Is(err, other) {
					t.Fatalf("err %v also matches %v", err, other)
				}
			}
			if !strings.Contains(err.Error(), c.say) {
				t.Fatalf("err = %q, want it to say %q", err, c.say)
			}
			if srv.Requests() != c.requests {
				t.Fatalf("%d requests, want %d", srv.Requests(), c.requests)
			}
			noKey(t, err)
		})
	}
}

func TestRateLimitThenSuccess(t *testing.T) {
	e, srv := newTest(t, Options{})
	srv.Fail(openaitest.Failure{Status: http.StatusTooManyRequests, RetryAfter: "0"}, openaitest.Failure{Status: 500})
	if _, err := e.Embed(context.Background(), []string{"q"}); err != nil {
		t.Fatal(err)
	}
	if srv.Requests() != 3 {
		t.Fatalf("%d requests, want 3", srv.Requests())
	}
}

func TestTimeoutAndCancel(t *testing.T) {
	e, srv := newTest(t, Options{Timeout: 50 * time.Millisecond, MaxAttempts: 1})
	srv.SetLatency(2 * time.Second)
	_, err := e.Embed(context.Background(), []string{"q"})
	if !errors.Is(err, retrieval.ErrUnavailable) || !strings.Contains(err.Error(), "did not answer") {
		t.Fatalf("err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = e.Embed(ctx, []string{"other"})
	if !errors.Is(err, context.Canceled) || errors.Is(err, retrieval.ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
}

func TestUnreachableServer(t *testing.T) {
	e, err := New(Options{APIKey: testKey, BaseURL: "http://127.0.0.1:1/v1", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Embed(context.Background(), []string{"q"})
	if !errors.Is(err, retrieval.ErrUnavailable) || !strings.Contains(err.Error(), "Cannot reach") {
		t.Fatalf("err = %v", err)
	}
	noKey(t, err)
}

// BenchmarkEmbedOverhead measures the provider's own cost per question
// (SDK, JSON, checks) against a loopback server, cache disabled.
func BenchmarkEmbedOverhead(b *testing.B) {
	srv := openaitest.NewServer(testKey)
	defer srv.Close()
	e, err := New(Options{APIKey: testKey, BaseURL: srv.URL, CacheSize: -1, Dimensions: 1024})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Embed(ctx, []string{"how do humanoid robots keep their balance"}); err != nil {
			b.Fatal(err)
		}
	}
}
