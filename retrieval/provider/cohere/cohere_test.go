package cohere

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/provider/embedx/fakeapi"
)

const testKey = "co-test-key-SECRET-1234"

// sleepRecorder is an injected Sleep that records waits and returns at once.
type sleepRecorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleepRecorder) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleepRecorder) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

func newTest(t *testing.T, mod func(*Options)) (*Embedder, *coheretest.Server, *sleepRecorder) {
	t.Helper()
	srv := coheretest.NewServer(testKey)
	t.Cleanup(srv.Close)
	rec := &sleepRecorder{}
	// The default model's size, as its provider row hands it in.
	opts := Options{APIKey: testKey, BaseURL: srv.URL, Sleep: rec.sleep, Timeout: 5 * time.Second, ModelDim: 1024}
	if mod != nil {
		mod(&opts)
	}
	e, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e, srv, rec
}

func assertNoKey(t *testing.T, err error) {
	t.Helper()
	for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
		if strings.Contains(s, testKey) {
			t.Fatalf("error leaks the API key: %s", s)
		}
	}
}

func TestNewMissingKey(t *testing.T) {
	_, err := New(Options{APIKey: "  "})
	if !errors.Is(err, retrieval.ErrConfig) {
		t.Fatalf("err = %v, want ErrConfig", err)
	}
	if !strings.Contains(err.Error(), "COHERE_API_KEY") {
		t.Errorf("message %q does not say to set COHERE_API_KEY", err)
	}
}

func TestNewBadBaseURL(t *testing.T) {
	_, err := New(Options{APIKey: testKey, BaseURL: "ftp://user:pw@example"})
	if !errors.Is(err, retrieval.ErrConfig) || strings.Contains(err.Error(), "pw") {
		t.Fatalf("err = %v, want ErrConfig without the password", err)
	}
}

func TestEmbedRequestAndVector(t *testing.T) {
	e, srv, _ := newTest(t, nil)
	if e.Name() != DefaultModel || e.Dim() != 1024 {
		t.Fatalf("Name/Dim = %q/%d", e.Name(), e.Dim())
	}
	vecs, err := e.Embed(context.Background(), []string{"What is a ROS 2 topic?"})
	if err != nil {
		t.Fatal(err)
	}
	want := fakeapi.Vector("What is a ROS 2 topic?", 1024)
	if len(vecs) != 1 || len(vecs[0]) != 1024 {
		t.Fatalf("got %d vectors", len(vecs))
	}
	for i := range want {
		if vecs[0][i] != want[i] {
			t.Fatalf("dim %d: got %v want %v", i, vecs[0][i], want[i])
		}
	}
	req := srv.LastRequest()
	if req.Model != "embed-english-v3.0" || req.InputType != "search_query" ||
		len(req.EmbeddingTypes) != 1 || req.EmbeddingTypes[0] != "float" {
		t.Errorf("request = %+v", req)
	}
}

// A model of no row (ModelDim 0) has no size until the first answer,
// then the size seen.
func TestDimUnknownModelLearnedFromResponse(t *testing.T) {
	e, _, _ := newTest(t, func(o *Options) { o.Model, o.ModelDim = "embed-english-light-v3.0", 0 })
	if e.Dim() != 0 {
		t.Fatalf("Dim = %d before any answer, want 0", e.Dim())
	}
	if _, err := e.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if e.Dim() != 384 {
		t.Fatalf("Dim after response = %d, want 384", e.Dim())
	}
}

func TestCacheHitMakesNoCall(t *testing.T) {
	e, srv, _ := newTest(t, nil)
	ctx := context.Background()
	a, err := e.Embed(ctx, []string{"servo motors"})
	if err != nil {
		t.Fatal(err)
	}
	a[0][0] = 42 // callers may modify what they get
	before := srv.Requests()
	b, err := e.Embed(ctx, []string{"servo motors"})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Requests() != before {
		t.Fatalf("cached question made %d calls", srv.Requests()-before)
	}
	if b[0][0] == 42 {
		t.Fatal("cache returned a vector the caller modified")
	}
	// The cache is keyed by model too.
	e2, err := New(Options{APIKey: testKey, BaseURL: srv.URL, Model: "embed-multilingual-v3.0"})
	if err != nil {
		t.Fatal(err)
	}
	e2.cache = e.cache
	if _, err := e2.Embed(ctx, []string{"servo motors"}); err != nil {
		t.Fatal(err)
	}
	if srv.Requests() != before+1 {
		t.Fatal("another model reused the cached vector")
	}
}

func TestBatch200TextsMakesThreeCalls(t *testing.T) {
	e, srv, _ := newTest(t, nil)
	texts := make([]string, 200)
	for i := range texts {
		texts[i] = fmt.Sprintf("question number %d about humanoid robots", i)
	}
	texts[150] = texts[3] // a duplicate is fetched once
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.BatchSizes(); len(got) != 3 || got[0] != 96 || got[1] != 96 || got[2] != 7 {
		t.Fatalf("batch sizes = %v, want [96 96 7]", got)
	}
	for _, i := range []int{0, 3, 97, 150, 199} {
		want := fakeapi.Vector(texts[i], 1024)
		if vecs[i][7] != want[7] || vecs[i][500] != want[500] {
			t.Fatalf("vector %d out of order", i)
		}
	}
}

func TestAuthAndBadRequestFailAtOnce(t *testing.T) {
	for _, tc := range []struct {
		status int
		class  error
		want   string
	}{
		{401, retrieval.ErrAuth, "Cohere rejected the API key (401). Check COHERE_API_KEY."},
		{400, retrieval.ErrConfig, "Cohere rejected the request (400)"},
		{403, retrieval.ErrAuth, "Cohere refused access (403)"},
	} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			e, srv, rec := newTest(t, nil)
			srv.Fail(coheretest.Failure{Status: tc.status, Message: "echo " + testKey})
			_, err := e.Embed(context.Background(), []string{"q"})
			var ee *EmbedError
			if !errors.As(err, &ee) || ee.Status != tc.status {
				t.Fatalf("err = %#v", err)
			}
			if !errors.Is(err, tc.class) || errors.Is(err, retrieval.ErrUnavailable) {
				t.Errorf("class of %v wrong", err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("message %q, want prefix %q", err, tc.want)
			}
			if srv.Requests() != 1 || len(rec.got()) != 0 {
				t.Errorf("requests=%d sleeps=%v, want 1 and none", srv.Requests(), rec.got())
			}
			assertNoKey(t, err)
		})
	}
}

func TestWrongKeyFromServer(t *testing.T) {
	srv := coheretest.NewServer("the-right-key")
	defer srv.Close()
	e, err := New(Options{APIKey: testKey, BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Embed(context.Background(), []string{"q"})
	if !errors.Is(err, retrieval.ErrAuth) || err.Error() != "Cohere rejected the API key (401). Check COHERE_API_KEY." {
		t.Fatalf("err = %v", err)
	}
	assertNoKey(t, err)
}

func TestRetryAfterHonoured(t *testing.T) {
	e, srv, rec := newTest(t, nil)
	srv.Fail(coheretest.Failure{Status: 429, RetryAfter: "2"}, coheretest.Failure{Status: 503, RetryAfter: "1.5"})
	start := time.Now()
	vecs, err := e.Embed(context.Background(), []string{"q"})
	if err != nil || len(vecs) != 1 {
		t.Fatalf("Embed: %v", err)
	}
	if got := rec.got(); len(got) != 2 || got[0] != 2*time.Second || got[1] != 1500*time.Millisecond {
		t.Fatalf("waits = %v, want [2s 1.5s]", got)
	}
	if srv.Requests() != 3 {
		t.Fatalf("requests = %d, want 3", srv.Requests())
	}
	// The library must not sleep on its own (cohere-go sleeps ≥500 ms after
	// a retryable status when it handles retries).
	if d := time.Since(start); d > 400*time.Millisecond {
		t.Fatalf("took %v: a hidden sleep happened", d)
	}
}

func TestRetryExhaustion(t *testing.T) {
	e, srv, rec := newTest(t, nil)
	srv.Fail(coheretest.Failure{Status: 500}, coheretest.Failure{Status: 502}, coheretest.Failure{Status: 503}, coheretest.Failure{Status: 500})
	start := time.Now()
	_, err := e.Embed(context.Background(), []string{"q"})
	if !errors.Is(err, retrieval.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	var ee *EmbedError
	if !errors.As(err, &ee) || ee.Attempts != 3 || ee.Status != 503 {
		t.Fatalf("err = %#v", err)
	}
	if !strings.Contains(err.Error(), "Cohere is unavailable (503) after 3 attempts") {
		t.Errorf("message %q", err)
	}
	if srv.Requests() != 3 {
		t.Fatalf("requests = %d, want 3", srv.Requests())
	}
	waits := rec.got()
	if len(waits) != 2 {
		t.Fatalf("waits = %v, want 2 backoffs", waits)
	}
	// Exponential with equal jitter: 250–500 ms, then 500–1000 ms.
	if waits[0] < 250*time.Millisecond || waits[0] > 500*time.Millisecond ||
		waits[1] < 500*time.Millisecond || waits[1] > time.Second {
		t.Errorf("backoffs %v out of range", waits)
	}
	if d := time.Since(start); d > 400*time.Millisecond {
		t.Fatalf("took %v: a hidden sleep happened", d)
	}
}

func TestRateLimitWithOneAttemptHasNoHiddenSleep(t *testing.T) {
	e, srv, _ := newTest(t, func(o *Options) { o.MaxAttempts = 1; o.Sleep = nil })
	srv.Fail(coheretest.Failure{Status: 429, RetryAfter: "10"})
	start := time.Now()
	_, err := e.Embed(context.Background(), []string{"q"})
	if !errors.Is(err, retrieval.ErrUnavailable) || !strings.Contains(err.Error(), "(429)") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 300*time.Millisecond {
		t.Fatalf("took %v, want an immediate error", d)
	}
}

func TestCancelDuringRequest(t *testing.T) {
	e, srv, _ := newTest(t, nil)
	srv.SetLatency(5 * time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := e.Embed(ctx, []string{"q"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if errors.Is(err, retrieval.ErrUnavailable) {
		t.Error("a cancelled query is not an unavailable backend")
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("cancel took %v", d)
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	e, srv, _ := newTest(t, func(o *Options) { o.Sleep = nil }) // real, context-aware sleep
	srv.Fail(coheretest.Failure{Status: 429, RetryAfter: "4"})  // within the 5 s timeout: waited
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := e.Embed(ctx, []string{"q"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("cancel during backoff took %v", d)
	}
}

func TestDeadlineShorterThanRetryAfterFailsNow(t *testing.T) {
	e, srv, rec := newTest(t, nil)
	srv.Fail(coheretest.Failure{Status: 429, RetryAfter: "20"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := e.Embed(ctx, []string{"q"})
	if !strings.Contains(fmt.Sprint(err), "(429)") || len(rec.got()) != 0 {
		t.Fatalf("err = %v, waits = %v", err, rec.got())
	}
}

func TestTimeout(t *testing.T) {
	e, srv, _ := newTest(t, func(o *Options) { o.Timeout = 100 * time.Millisecond })
	srv.SetLatency(2 * time.Second)
	_, err := e.Embed(context.Background(), []string{"q"})
	if !errors.Is(err, retrieval.ErrUnavailable) || !strings.Contains(err.Error(), "did not answer within 100ms") {
		t.Fatalf("err = %v", err)
	}
}

func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	e, err := New(Options{APIKey: testKey, BaseURL: "http://" + addr, Sleep: (&sleepRecorder{}).sleep})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Embed(context.Background(), []string{"q"})
	if !errors.Is(err, retrieval.ErrUnavailable) || !strings.HasPrefix(err.Error(), "Cannot reach Cohere at http://"+addr) {
		t.Fatalf("err = %v", err)
	}
	assertNoKey(t, err)
}

func TestEmbedErrorClassesDistinct(t *testing.T) {
	cases := map[int]error{401: retrieval.ErrAuth, 400: retrieval.ErrConfig, 429: retrieval.ErrUnavailable, 500: retrieval.ErrUnavailable, 0: retrieval.ErrUnavailable}
	for status, class := range cases {
		err := &EmbedError{Status: status, Err: errors.New("x")}
		for _, other := range []error{retrieval.ErrAuth, retrieval.ErrConfig, retrieval.ErrUnavailable} {
			if errors.Is(err, other) != (other == class) {
				t.Errorf("status %d: Is(%v) = %v", status, other, errors.Is(err, other))
			}
		}
	}
	_ = http.StatusOK
}
