package cohere

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/cohere/coheretest"
)

// listStore returns its chunks with falling scores, in the order given.
type listStore struct{ chunks []retrieval.Chunk }

func (l listStore) Search(_ context.Context, req retrieval.SearchRequest) ([]retrieval.ScoredChunk, error) {
	var out []retrieval.ScoredChunk
	for i, c := range l.chunks {
		if i == req.Limit {
			break
		}
		out = append(out, retrieval.ScoredChunk{Chunk: c, Score: 0.9 - float64(i)*0.01})
	}
	return out, nil
}
func (listStore) Stats(context.Context) (retrieval.Stats, error) { return retrieval.Stats{}, nil }

// oneVector embeds without a network.
type oneVector struct{}

func (oneVector) Embed(_ context.Context, t []string) ([][]float32, error) {
	return [][]float32{{1, 0}}, nil
}
func (oneVector) Name() string { return "one" }
func (oneVector) Dim() int     { return 2 }

// rerankCorpus: in vector order c0..c7; for the question "ros2 node topic"
// the fake scores c5 (3 words) > c2 (2) > c0, c6 (1 each; tie) > others.
// The fake answers ties in reverse order, so with top_n 3 it picks c6.
var rerankCorpus = []string{
	"a node is a process", "unrelated gazebo worlds", "a node publishes on a topic", "urdf links and joints",
	"lidar sensors", "ros2 node topic graph", "topic names", "physics engines",
}

func rerankPipeline(t *testing.T, mod func(*RerankOptions)) (*retrieval.Pipeline, *coheretest.Server, *sleepRecorder) {
	t.Helper()
	srv := coheretest.NewServer(testKey)
	t.Cleanup(srv.Close)
	rec := &sleepRecorder{}
	opts := RerankOptions{APIKey: testKey, BaseURL: srv.URL, Model: "rerank-v3.5", Sleep: rec.sleep, Timeout: 5 * time.Second}
	if mod != nil {
		mod(&opts)
	}
	rr, err := NewReranker(opts)
	if err != nil {
		t.Fatal(err)
	}
	var chunks []retrieval.Chunk
	for i, text := range rerankCorpus {
		chunks = append(chunks, retrieval.Chunk{ID: fmt.Sprintf("c%d", i), Text: text})
	}
	return &retrieval.Pipeline{Embedder: oneVector{}, Store: listStore{chunks}, Reranker: rr}, srv, rec
}

func rerankQuery(topK int) retrieval.Query {
	return retrieval.Query{Question: "ros2 node topic", TopK: topK, Rerank: retrieval.RerankOptions{On: true, Candidates: 4}}
}

func hitIDs(hs []retrieval.Hit) string {
	var s []string
	for _, h := range hs {
		s = append(s, h.Chunk.ID)
	}
	return strings.Join(s, " ")
}

func TestRerankThroughSDK(t *testing.T) {
	p, srv, _ := rerankPipeline(t, nil)
	res, err := p.Retrieve(context.Background(), rerankQuery(3))
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Reranks()
	if len(reqs) != 1 {
		t.Fatalf("%d rerank calls, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Model != "rerank-v3.5" || r.Query != "ros2 node topic" || r.TopN == nil || *r.TopN != 3 || len(r.Documents) != 8 {
		t.Fatalf("request %+v: want rerank-v3.5, the question, top_n 3, 8 documents (3×4 capped by the store's 8)", r)
	}
	if got := hitIDs(res.Hits); got != "c5 c2 c6" {
		t.Fatalf("hits %q, want c5 c2 c6", got)
	}
	var mv []string
	for _, m := range res.Movements() {
		mv = append(mv, m.String())
	}
	if got := strings.Join(mv, " "); got != "new ↑1 new" {
		t.Errorf("movement %q, want \"new ↑1 new\"", got)
	}
	if got := hitIDs(res.Rerank.FellOut); got != "c0 c1" {
		t.Errorf("fell out %q, want c0 c1", got)
	}
	h := res.Hits[0]
	if h.VectorRank != 6 || *h.RerankScore != 1 || h.Score != 1 {
		t.Errorf("c5: vector rank %d, rerank %v, score %v", h.VectorRank, *h.RerankScore, h.Score)
	}
	if res.Timings.Rerank <= 0 || res.Rerank.Err != nil {
		t.Errorf("rerank timing %v err %v", res.Timings.Rerank, res.Rerank.Err)
	}
}

func TestRerankTiesFollowVectorOrder(t *testing.T) {
	p, _, _ := rerankPipeline(t, nil)
	// c0 and c6 both score 1/3; the server answers ties in reverse order.
	res, err := p.Retrieve(context.Background(), rerankQuery(4))
	if err != nil {
		t.Fatal(err)
	}
	if got := hitIDs(res.Hits); got != "c5 c2 c0 c6" {
		t.Fatalf("hits %q, want c5 c2 c0 c6 (tie c0/c6 broken by vector rank)", got)
	}
}

func TestRerankFewerResultsThanAsked(t *testing.T) {
	p, srv, _ := rerankPipeline(t, nil)
	srv.ShortRerank(1)
	res, err := p.Retrieve(context.Background(), rerankQuery(3))
	if err != nil {
		t.Fatal(err)
	}
	if hitIDs(res.Hits) != "c5" || res.Rerank.Returned != 1 || hitIDs(res.Rerank.FellOut) != "c0 c1 c2" {
		t.Fatalf("hits %q returned %d fell out %q", hitIDs(res.Hits), res.Rerank.Returned, hitIDs(res.Rerank.FellOut))
	}
}

func TestRerank401KeepsVectorResults(t *testing.T) {
	p, _, _ := rerankPipeline(t, func(o *RerankOptions) { o.APIKey = "wrong-key-SECRET" })
	res, err := p.Retrieve(context.Background(), rerankQuery(3))
	if err != nil {
		t.Fatalf("a refused rerank failed the query: %v", err)
	}
	if hitIDs(res.Hits) != "c0 c1 c2" {
		t.Fatalf("hits %q, want the vector order", hitIDs(res.Hits))
	}
	rerr := res.Rerank.Err
	if !errors.Is(rerr, retrieval.ErrAuth) || !strings.Contains(res.Rerank.Error, "COHERE_API_KEY") {
		t.Fatalf("rerank error %v", rerr)
	}
	for _, s := range []string{res.Rerank.Error, fmt.Sprintf("%+v", rerr)} {
		if strings.Contains(s, "wrong-key-SECRET") {
			t.Fatalf("error leaks the key: %s", s)
		}
	}
}

func TestRerank429ThenSuccess(t *testing.T) {
	p, srv, rec := rerankPipeline(t, nil)
	srv.Fail(coheretest.Failure{Status: 429, RetryAfter: "2"})
	res, err := p.Retrieve(context.Background(), rerankQuery(3))
	if err != nil || res.Rerank.Err != nil {
		t.Fatalf("err %v rerank %v", err, res.Rerank.Err)
	}
	if srv.Requests() != 2 || len(srv.Reranks()) != 1 {
		t.Fatalf("%d requests, want 2 (one 429, one success)", srv.Requests())
	}
	if w := rec.got(); len(w) != 1 || w[0] != 2*time.Second {
		t.Fatalf("waits %v, want [2s] from Retry-After", w)
	}
	if hitIDs(res.Hits) != "c5 c2 c6" {
		t.Fatalf("hits %q", hitIDs(res.Hits))
	}
}

func TestRerankTimeoutKeepsVectorResults(t *testing.T) {
	p, srv, _ := rerankPipeline(t, func(o *RerankOptions) { o.Timeout = 100 * time.Millisecond; o.MaxAttempts = 1 })
	srv.SetLatency(3 * time.Second)
	res, err := p.Retrieve(context.Background(), rerankQuery(3))
	if err != nil {
		t.Fatalf("a slow reranker failed the query: %v", err)
	}
	if hitIDs(res.Hits) != "c0 c1 c2" || !errors.Is(res.Rerank.Err, retrieval.ErrUnavailable) ||
		!strings.Contains(res.Rerank.Error, "did not answer within 100ms") {
		t.Fatalf("hits %q error %q", hitIDs(res.Hits), res.Rerank.Error)
	}
}

func TestRerankErrorsClassified(t *testing.T) {
	srv := coheretest.NewServer(testKey)
	defer srv.Close()
	rr, err := NewReranker(RerankOptions{APIKey: testKey, BaseURL: srv.URL, Model: "embed-english-v3.0", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = rr.Rerank(context.Background(), "q", []string{"a"}, 1)
	if !errors.Is(err, retrieval.ErrConfig) || !strings.Contains(err.Error(), "RAGSCOPE_RERANK_MODEL") {
		t.Fatalf("unknown model: %v, want ErrConfig naming RAGSCOPE_RERANK_MODEL", err)
	}
	srv.Fail(coheretest.Failure{Status: 404})
	if _, err = rr.Rerank(context.Background(), "q", []string{"a"}, 1); !strings.Contains(err.Error(), "/v2/rerank") {
		t.Fatalf("404: %v, want the rerank path", err)
	}
	if _, err := NewReranker(RerankOptions{}); !errors.Is(err, retrieval.ErrConfig) {
		t.Fatalf("no key: %v", err)
	}
	if out, err := rr.Rerank(context.Background(), "q", nil, 3); err != nil || out != nil || srv.Requests() != 2 {
		t.Fatalf("no documents must cost no call: %v %v", out, err)
	}
}

// BenchmarkRerankCall100 is one Cohere rerank call of 100 chunk-sized
// documents through the SDK to the in-process server: request encoding,
// the loopback round trip, the fake's scoring and the response decoding.
// It bounds from above what ragscope and the SDK add to Cohere's own time.
func BenchmarkRerankCall100(b *testing.B) {
	srv := coheretest.NewServer(testKey)
	defer srv.Close()
	rr, err := NewReranker(RerankOptions{APIKey: testKey, BaseURL: srv.URL})
	if err != nil {
		b.Fatal(err)
	}
	docs := make([]string, 100)
	for i := range docs {
		docs[i] = fmt.Sprintf("Page %d - Section\n\n%s", i, strings.Repeat("robots publish sensor data on ros2 topics and nodes subscribe ", 20))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := rr.Rerank(context.Background(), "how do ros2 nodes exchange data?", docs, 5); err != nil {
			b.Fatal(err)
		}
	}
}

func TestRerankScoresOutsideZeroToOneAreInvalid(t *testing.T) {
	for _, bad := range []float64{1e39, -0.5, 1.0001} {
		p, srv, _ := rerankPipeline(t, nil)
		srv.TamperRerank(func(i int, s float64) float64 {
			if i == 5 {
				return bad
			}
			return s
		})
		res, err := p.Retrieve(context.Background(), rerankQuery(3))
		if err != nil {
			t.Fatalf("%g: a bad rerank answer failed the query: %v", bad, err)
		}
		if !errors.Is(res.Rerank.Err, retrieval.ErrUnavailable) || !strings.Contains(res.Rerank.Error, "Cohere at") ||
			!strings.Contains(res.Rerank.Error, "answered with an invalid response (HTTP 200): relevance score") || !strings.Contains(res.Rerank.Error, "outside 0..1") {
			t.Fatalf("%g: rerank error %q", bad, res.Rerank.Error)
		}
		if got := hitIDs(res.Hits); got != "c0 c1 c2" {
			t.Fatalf("%g: hits %q, want the vector order c0 c1 c2", bad, got)
		}
		for _, h := range res.Hits {
			if h.RerankScore != nil {
				t.Fatalf("%g: hit %s shows a rerank score %v", bad, h.Chunk.ID, *h.RerankScore)
			}
		}
		if srv.Requests() != 1 {
			t.Fatalf("%g: %d requests: an invalid answer is not retried", bad, srv.Requests())
		}
	}
	// 0 and 1 themselves are relevances.
	p, srv, _ := rerankPipeline(t, nil)
	srv.TamperRerank(func(i int, s float64) float64 { return float64(i % 2) })
	if res, err := p.Retrieve(context.Background(), rerankQuery(3)); err != nil || res.Rerank.Err != nil {
		t.Fatalf("scores 0 and 1: %v %v", err, res.Rerank.Err)
	}
}

// A rerank is bound by the rule every call follows: a Retry-After past
// the per-call timeout is not waited; the vector order is kept.
func TestRerankRetryAfterPastTheTimeoutIsNotWaited(t *testing.T) {
	p, srv, rec := rerankPipeline(t, nil)
	srv.Fail(coheretest.Failure{Status: 429, RetryAfter: "3600"}, coheretest.Failure{Status: 429, RetryAfter: "3600"}, coheretest.Failure{Status: 429, RetryAfter: "3600"})
	res, err := p.Retrieve(context.Background(), rerankQuery(3))
	if err != nil {
		t.Fatal(err)
	}
	if srv.Requests() != 1 || len(rec.got()) != 0 {
		t.Fatalf("%d requests, waits %v: want 1 request and no wait", srv.Requests(), rec.got())
	}
	if res.Rerank.Err == nil || !strings.Contains(res.Rerank.Err.Error(), "asked to wait 1 h, past the 5 s timeout; not retried") {
		t.Fatalf("rerank error %v", res.Rerank.Err)
	}
}
