package eval_test

import (
	"context"
	"fmt"
	"math"
	"sort"
	"testing"
	"time"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
	"ragscope/retrieval/provider/cohere"
	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/provider/embedx/fakeapi"
)

// eval's budget: 100 cases with 300 ms embedding latency and 50 ms
// search latency under 1.5 s (serially: about 100 x 350 ms = 35 s).
const (
	embedLatency  = 300 * time.Millisecond
	searchLatency = 50 * time.Millisecond
	budget        = 1500 * time.Millisecond
)

// vectorStore is an exact cosine index over chunks embedded with
// coheretest.Vector (the function the fake Cohere server serves), with a
// simulated search latency. It stands in for the in-process Qdrant server,
// which is not written yet.
type vectorStore struct {
	chunks  []retrieval.Chunk
	vecs    [][]float32
	latency time.Duration
}

func newVectorStore(chunks []retrieval.Chunk, latency time.Duration) *vectorStore {
	s := &vectorStore{chunks: chunks, latency: latency}
	for _, c := range chunks {
		s.vecs = append(s.vecs, fakeapi.Vector(c.Text, coheretest.Dim))
	}
	return s
}

func (s *vectorStore) Stats(context.Context) (retrieval.Stats, error) {
	return retrieval.Stats{Status: retrieval.StatusReady, Points: int64(len(s.chunks))}, nil
}

func (s *vectorStore) Search(ctx context.Context, req retrieval.SearchRequest) ([]retrieval.ScoredChunk, error) {
	t := time.NewTimer(s.latency)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var out []retrieval.ScoredChunk
	for i, v := range s.vecs {
		if !req.Filters.Match(&s.chunks[i]) {
			continue
		}
		var dot float64
		for j := range v {
			dot += float64(v[j]) * float64(req.Vector[j])
		}
		if dot >= req.Threshold {
			out = append(out, retrieval.ScoredChunk{Chunk: s.chunks[i], Score: math.Round(dot*1e6) / 1e6})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if len(out) > req.Limit {
		out = out[:req.Limit]
	}
	return out, nil
}

// topics are distinct words so that question i shares its content words
// only with chunk i.
var topics = []string{"actuator", "balance", "camera", "docking", "encoder", "friction", "gripper", "humanoid", "inertia", "joint"}

func serverWorld(t testing.TB, n int) (*retrieval.Pipeline, eval.Set, *coheretest.Server) {
	t.Helper()
	srv := coheretest.NewServer("test-key")
	t.Cleanup(srv.Close)
	srv.SetLatency(embedLatency)
	emb, err := cohere.New(cohere.Options{APIKey: "test-key", BaseURL: srv.URL, CacheSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	var chunks []retrieval.Chunk
	set := eval.Set{Name: "servers", Thresholds: eval.Thresholds{MinHitAtK: ptr(0.95), MaxP95MS: ptr(float64(budget.Milliseconds()))}}
	for i := 0; i < n; i++ {
		a, b := topics[i%len(topics)], topics[(i/len(topics))%len(topics)]
		word := fmt.Sprintf("widget%03d", i)
		doc := fmt.Sprintf("docs/module-%d/%02d-%s.md", i%4+1, i, word)
		chunks = append(chunks, retrieval.Chunk{
			ID: fmt.Sprintf("c%03d", i), DocPath: doc, Title: word, Section: a, Module: fmt.Sprintf("module-%d", i%4+1), Chapter: word,
			Text: fmt.Sprintf("The %s %s pairs the %s with the %s.", word, a, a, b),
		})
		set.Cases = append(set.Cases, eval.Case{
			ID: fmt.Sprintf("q%03d", i), Category: fmt.Sprintf("module-%d", i%4+1),
			Question: fmt.Sprintf("How does the %s work?", word),
			Expect:   eval.Expect{DocPaths: []string{doc}, Keywords: []string{word}},
		})
	}
	p := &retrieval.Pipeline{Embedder: emb, Store: newVectorStore(chunks, searchLatency), Backend: "fake", Collection: "servers"}
	return p, set, srv
}

func ptr[T any](v T) *T { return &v }

// An end-to-end eval through the real Cohere client against the
// in-process Cohere server (300 ms a call) and a 50 ms store.
func TestEvalAgainstFakeServersWithinBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about a second of simulated latency")
	}
	p, set, srv := serverWorld(t, 100)
	// The p95 budget is the benchmark's to measure: on a loaded machine a
	// latency threshold would fail this test for the machine, not the code.
	set.Thresholds.MaxP95MS = nil
	start := time.Now()
	rep, err := eval.Run(context.Background(), p, set, eval.Options{LatencySample: -1})
	wall := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("100 cases: wall %v, %d embed requests %v, hit@k %.2f, MRR %.2f, p95 %.0f ms", wall, srv.Requests(), srv.BatchSizes(), rep.Summary.HitAtK, rep.Summary.MRR, rep.Summary.Latency.P95MS)
	// The wall time is reported, not asserted: BenchmarkEval100CasesFakeServers
	// measures it against the budget.
	if srv.Requests() != 2 || rep.Params.EmbedCalls != 2 {
		t.Errorf("%d embed requests (%v), want 2 (96 + 4)", srv.Requests(), srv.BatchSizes())
	}
	// The fake's hashed bag-of-words vectors collide now and then.
	if !rep.Passed || rep.Summary.HitAtK < 0.95 || rep.Summary.MRR < 0.95 {
		t.Errorf("passed %v reasons %v summary %+v", rep.Passed, rep.Reasons, rep.Summary)
	}
	for _, c := range rep.Cases {
		if c.Latency.EmbedCallMS < float64(embedLatency.Milliseconds()) || c.Latency.SearchMS < float64(searchLatency.Milliseconds()) {
			t.Fatalf("%s latency %+v does not show the simulated latency", c.ID, c.Latency)
		}
	}
}

// BenchmarkEval100CasesFakeServers measures the budget scenario of the README
// (report: the ms/run figure; the budget is 1500 ms).
func BenchmarkEval100CasesFakeServers(b *testing.B) {
	p, set, _ := serverWorld(b, 100)
	b.ResetTimer()
	for b.Loop() {
		rep, err := eval.Run(context.Background(), p, set, eval.Options{})
		if err != nil || !rep.Passed {
			b.Fatalf("run: %v %v", err, rep.Reasons)
		}
	}
}
