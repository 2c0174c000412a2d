package gemini

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/gemini/geminitest"
)

const testKey = "gm-test-key-0987"

func newTest(t *testing.T, opts Options) (*Embedder, *geminitest.Server) {
	t.Helper()
	srv := geminitest.NewServer(testKey)
	t.Cleanup(srv.Close)
	if opts.APIKey == "" {
		opts.APIKey = testKey
	}
	opts.BaseURL = srv.URL
	e, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return e, srv
}

func TestEmbedThroughSDK(t *testing.T) {
	e, srv := newTest(t, Options{Dimensions: 1024})
	vecs, err := e.Embed(context.Background(), []string{"balance", "servo motors", "balance"})
	if err != nil {
		t.Fatal(err)
	}
	d, task := srv.LastDimensions()
	if len(vecs) != 3 || len(vecs[0]) != 1024 || d != 1024 || task != "RETRIEVAL_QUERY" {
		t.Fatalf("%d vectors of %d; sent dims %d task %q", len(vecs), len(vecs[0]), d, task)
	}
	if b := srv.BatchSizes(); len(b) != 1 || b[0] != 2 {
		t.Fatalf("batches %v, want one of 2 distinct texts", b)
	}
	n := srv.Requests()
	if _, err := e.Embed(context.Background(), []string{"servo motors"}); err != nil || srv.Requests() != n {
		t.Fatalf("cache hit made a call (%v)", err)
	}
}

func TestBatchesOfAHundred(t *testing.T) {
	e, srv := newTest(t, Options{})
	texts := make([]string, 250)
	for i := range texts {
		texts[i] = fmt.Sprintf("q%d", i)
	}
	if _, err := e.Embed(context.Background(), texts); err != nil {
		t.Fatal(err)
	}
	if b := srv.BatchSizes(); len(b) != 3 || b[0] != 100 || b[2] != 50 {
		t.Fatalf("batches %v", b)
	}
}

func TestBadOptions(t *testing.T) {
	for name, o := range map[string]Options{
		"no key":       {},
		"too large":    {APIKey: "k", Dimensions: 4000, ModelDim: 3072},
		"openai model": {APIKey: "k", Model: "text-embedding-3-small"},
		"bad URL":      {APIKey: "k", BaseURL: "localhost:9"},
	} {
		if _, err := New(context.Background(), o); !errors.Is(err, retrieval.ErrConfig) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestErrorsAreClassified(t *testing.T) {
	cases := []struct {
		name, key, model string
		fail             []geminitest.Failure
		class            error
		requests         int
		say              string
	}{
		{"bad key", "wrong", "", nil, retrieval.ErrAuth, 1, "rejected the API key"},
		{"unknown model", "", "gemini-nope", nil, retrieval.ErrConfig, 1, "does not exist"},
		{"503 then success", "", "", []geminitest.Failure{{Status: 503}}, nil, 2, ""},
		{"persistent 503", "", "", []geminitest.Failure{{Status: 503}, {Status: 503}, {Status: 503}}, retrieval.ErrUnavailable, 3, "unavailable (503)"},
		{"HTML 200", "", "", []geminitest.Failure{{Raw: "<html>proxy login</html>"}}, retrieval.ErrUnavailable, 1, "invalid response"},
		{"error without code", "", "", []geminitest.Failure{{Status: 404, Message: "no code", Raw: "{\"error\":{\"message\":\"Invalid URL\"}}"}}, retrieval.ErrConfig, 1, "refused the request (404)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, srv := newTest(t, Options{APIKey: c.key, Model: c.model})
			srv.Fail(c.fail...)
			_, err := e.Embed(context.Background(), []string{"q"})
			if c.class == nil {
				if err != nil {
					t.Fatal(err)
				}
			} else if !errors.Is(err, c.class) || !strings.Contains(err.Error(), c.say) {
				t.Fatalf("err = %v, want %v saying %q", err, c.class, c.say)
			}
			if srv.Requests() != c.requests {
				t.Fatalf("%d requests, want %d", srv.Requests(), c.requests)
			}
			if err != nil && strings.Contains(fmt.Sprintf("%v %+v", err, err), testKey) {
				t.Fatal("key leaked")
			}
		})
	}
}

// BenchmarkEmbedOverhead measures the provider's own cost per question
// (SDK, JSON, checks) against a loopback server, cache disabled.
func BenchmarkEmbedOverhead(b *testing.B) {
	srv := geminitest.NewServer(testKey)
	defer srv.Close()
	e, err := New(context.Background(), Options{APIKey: testKey, BaseURL: srv.URL, CacheSize: -1, Dimensions: 1024})
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

// The model's size comes from Options (the provider's row): the size
// the embedder starts with, the most outputDimensionality may ask for,
// and what every answer is checked against. Without it nothing is
// bounded and the size comes from the first answer.
func TestModelDimComesFromOptions(t *testing.T) {
	e, _ := newTest(t, Options{ModelDim: 3072})
	if e.Dim() != 3072 || e.Shortable() != 3072 {
		t.Errorf("Dim %d, Shortable %d; want 3072, 3072", e.Dim(), e.Shortable())
	}
	if err := e.SetDimensions(3073); !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "makes at most 3072 dimensions") {
		t.Errorf("SetDimensions(3073) = %v", err)
	}
	small, _ := newTest(t, Options{ModelDim: 100})
	if _, err := small.Embed(context.Background(), []string{"q"}); !errors.Is(err, retrieval.ErrUnavailable) || !strings.Contains(err.Error(), "but gemini-embedding-001 makes 100") {
		t.Errorf("an answer of another size than the row's: %v", err)
	}
	none, _ := newTest(t, Options{})
	if none.Dim() != 0 || none.Shortable() != 0 {
		t.Errorf("no size: Dim %d, Shortable %d; want 0, 0", none.Dim(), none.Shortable())
	}
	if _, err := none.Embed(context.Background(), []string{"q"}); err != nil || none.Dim() != 3072 {
		t.Errorf("no size, after an answer: %v, Dim %d; want 3072", err, none.Dim())
	}
	if unbounded, _ := newTest(t, Options{}); unbounded.SetDimensions(5000) != nil {
		t.Error("no size: SetDimensions(5000) refused; want no bound")
	}
}
