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
		"too large":      {APIKey: "k", Dimensions: 4096, ModelDim: 1536, Shortens: true},
		"ada shortened":  {APIKey: "k", Model: "text-embedding-ada-002", Dimensions: 512, ModelDim: 1536},
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
			o := Options{APIKey: c.key, Model: c.model}
			if c.model == "" {
				o.ModelDim, o.Shortens = 1536, true // text-embedding-3-small's row
			}
			e, srv := newTest(t, o)
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

// What the embedder knows of its model comes from Options (the
// provider's row): the size it starts with, whether and how far it can
// be shortened, the models a refusal names. A model without those facts
// is bounded by nothing and learns its size from the first answer.
func TestModelFactsComeFromOptions(t *testing.T) {
	e, _ := newTest(t, Options{ModelDim: 1536, Shortens: true})
	if e.Dim() != 1536 || e.Shortable() != 1536 {
		t.Errorf("text-embedding-3-small: Dim %d, Shortable %d; want 1536, 1536", e.Dim(), e.Shortable())
	}
	if err := e.SetDimensions(1537); !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "makes at most 1536 dimensions, --dimensions 1537 is too large") {
		t.Errorf("SetDimensions(1537) = %v", err)
	}

	// ada-002 makes one size: asking for it sends no "dimensions" (the
	// API refuses the parameter), asking for another names the models
	// that can.
	ada, srv := newTest(t, Options{Model: "text-embedding-ada-002", ModelDim: 1536, Dimensions: 1536})
	if _, err := ada.Embed(context.Background(), []string{"q"}); err != nil || srv.LastRequest().Dimensions != 0 || ada.Shortable() != 0 {
		t.Errorf("ada-002 at its own size: %v, sent dimensions %d, Shortable %d", err, srv.LastRequest().Dimensions, ada.Shortable())
	}
	for shorteners, want := range map[string]string{
		"m-1 (up to 8)": "text-embedding-ada-002 only makes 1536-dimensional vectors; --dimensions 512 needs m-1 (up to 8)",
		"":              "--dimensions 512 needs a model that can shorten its vectors",
	} {
		_, err := New(Options{APIKey: "k", Model: "text-embedding-ada-002", ModelDim: 1536, Dimensions: 512, Shorteners: shorteners})
		if !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), want) {
			t.Errorf("ada-002 shortened, shorteners %q: %v; want %q", shorteners, err, want)
		}
	}

	// Without facts (a local server's model), nothing is bounded and the
	// size comes from the answer.
	local, _ := newTest(t, Options{Model: "text-embedding-3-small", Dimensions: 0})
	if local.Dim() != 0 || local.Shortable() != 0 {
		t.Errorf("no facts: Dim %d, Shortable %d; want 0, 0", local.Dim(), local.Shortable())
	}
	if _, err := local.Embed(context.Background(), []string{"q"}); err != nil || local.Dim() != 1536 {
		t.Errorf("no facts, after an answer: %v, Dim %d; want 1536", err, local.Dim())
	}
	if err := local.SetDimensions(4000); err != nil {
		t.Errorf("no facts, SetDimensions(4000) = %v; want no bound", err)
	}
}
