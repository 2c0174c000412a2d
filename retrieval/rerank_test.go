package retrieval

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// scriptedReranker answers with fixed scores per document text prefix
// (the chunk id on the first line is not sent: scores key on the text).
type scriptedReranker struct {
	scores map[string]float64 // chunk text -> relevance
	err    error
	extra  []Relevance // appended to the answer (to test bad answers)
	limit  int         // answer at most this many (0: topN)
	docs   []string
	topN   int
	calls  int
}

func (s *scriptedReranker) Rerank(_ context.Context, _ string, docs []string, topN int) ([]Relevance, error) {
	s.calls++
	s.docs, s.topN = docs, topN
	if s.err != nil {
		return nil, s.err
	}
	var out []Relevance
	for i := len(docs) - 1; i >= 0; i-- { // reversed: the pipeline must sort
		for text, score := range s.scores {
			if strings.HasSuffix(docs[i], "\n\n"+text) {
				out = append(out, Relevance{Index: i, Score: score})
			}
		}
	}
	n := topN
	if s.limit > 0 {
		n = s.limit
	}
	// keep the n best, as a reranker would
	best := append([]Relevance(nil), out...)
	for i := 0; i < len(best); i++ {
		for j := i + 1; j < len(best); j++ {
			if best[j].Score > best[i].Score {
				best[i], best[j] = best[j], best[i]
			}
		}
	}
	if len(best) > n {
		best = best[:n]
	}
	return append(best, s.extra...), nil
}

func (*scriptedReranker) Name() string { return "scripted" }

// eight chunks a..h with falling vector scores and distinct texts.
func rerankStore() *fakeStore {
	var hits []ScoredChunk
	for i, id := range strings.Split("a b c d e f g h", " ") {
		hits = append(hits, sc(id, 0.9-float64(i)*0.05, "text of chunk "+id+" about topic "+strings.Repeat(id, i+1)))
	}
	return &fakeStore{hits: hits}
}

func text(id string) string {
	i := strings.Index("abcdefgh", id)
	return "text of chunk " + id + " about topic " + strings.Repeat(id, i+1)
}

func ids(hs []Hit) string {
	var s []string
	for _, h := range hs {
		s = append(s, h.Chunk.ID)
	}
	return strings.Join(s, " ")
}

func TestRerankMovementAndCandidates(t *testing.T) {
	store := rerankStore()
	p, _ := newPipeline(store)
	rr := &scriptedReranker{scores: map[string]float64{text("e"): 0.9, text("b"): 0.8, text("a"): 0.7, text("f"): 0.1}}
	p.Reranker = rr
	res, err := p.Retrieve(context.Background(), Query{Question: "q", TopK: 3, Rerank: RerankOptions{On: true, Candidates: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if store.req.Limit != 6 || len(rr.docs) != 6 || rr.topN != 3 {
		t.Fatalf("searched %d, sent %d docs with top_n %d; want 6, 6, 3", store.req.Limit, len(rr.docs), rr.topN)
	}
	if !strings.HasPrefix(rr.docs[0], "T-a - S-a\n\n") {
		t.Errorf("document does not start with title and section: %q", rr.docs[0])
	}
	if got := ids(res.Hits); got != "e b a" {
		t.Fatalf("hits %q, want \"e b a\"", got)
	}
	for i, h := range res.Hits {
		if h.Rank != i+1 || h.RerankScore == nil || *h.RerankScore != h.Score {
			t.Errorf("hit %d: rank %d score %v rerank %v", i, h.Rank, h.Score, h.RerankScore)
		}
	}
	if e := res.Hits[0]; e.VectorRank != 5 || e.VectorScore != 0.7 {
		t.Errorf("e: vector rank %d score %v, want 5 and 0.7", e.VectorRank, e.VectorScore)
	}
	var mv []string
	for _, m := range res.Movements() {
		mv = append(mv, m.String())
	}
	if got := strings.Join(mv, " "); got != "new = ↓2" {
		t.Errorf("movements %q, want \"new = ↓2\"", got)
	}
	if got := ids(res.Rerank.FellOut); got != "c" {
		t.Errorf("fell out %q, want c", got)
	}
	if got := ids(res.Rerank.Vector); got != "a b c" {
		t.Errorf("vector result %q, want a b c", got)
	}
	if res.Rerank.Candidates != 6 || res.Rerank.Searched != 6 || res.Rerank.Returned != 3 || res.Rerank.Model != "scripted" {
		t.Errorf("info %+v", res.Rerank)
	}
	if !strings.Contains(res.Grounded.Context, "[Source 1: T-e - S-e]") {
		t.Errorf("context not grounded on the reranked order:\n%s", res.Grounded.Context)
	}
}

func TestRerankUpMovement(t *testing.T) {
	m := Result{Rerank: &RerankInfo{Vector: []Hit{{Rank: 1, Chunk: Chunk{ID: "a"}}, {Rank: 2, Chunk: Chunk{ID: "b"}}, {Rank: 3, Chunk: Chunk{ID: "c"}}}},
		Hits: []Hit{{Rank: 1, Chunk: Chunk{ID: "c"}}, {Rank: 2, Chunk: Chunk{ID: "a"}}}}.Movements()
	if m[0] != (Movement{Kind: MoveUp, By: 2, From: 3}) || m[1] != (Movement{Kind: MoveDown, By: 1, From: 1}) {
		t.Fatalf("movements %+v", m)
	}
	if (Result{}).Movements() != nil {
		t.Fatal("an unreranked result has movements")
	}
}

func TestRerankCandidateLimit(t *testing.T) {
	for _, c := range []struct{ topK, cands, want int }{{5, 0, 20}, {5, 4, 20}, {30, 4, 100}, {3, 1, 3}, {100, 2, 100}} {
		if got := CandidateLimit(Query{TopK: c.topK, Rerank: RerankOptions{On: true, Candidates: c.cands}}); got != c.want {
			t.Errorf("top_k %d × %d: %d, want %d", c.topK, c.cands, got, c.want)
		}
	}
	if got := CandidateLimit(Query{TopK: 7, Rerank: RerankOptions{Candidates: 4}}); got != 7 {
		t.Errorf("rerank off: %d, want 7", got)
	}
}

func TestRerankDeterministicTies(t *testing.T) {
	p, _ := newPipeline(rerankStore())
	p.Reranker = &scriptedReranker{scores: map[string]float64{text("d"): 0.5, text("b"): 0.5, text("f"): 0.5, text("a"): 0.2}}
	q := Query{Question: "q", TopK: 4, Rerank: RerankOptions{On: true}}
	first, err := p.Retrieve(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(first.Hits); got != "b d f a" {
		t.Fatalf("ties not broken by vector position: %q", got)
	}
	for i := 0; i < 5; i++ {
		again, _ := p.Retrieve(context.Background(), q)
		if ids(again.Hits) != ids(first.Hits) {
			t.Fatal("same query, different order")
		}
	}
}

func TestRerankFailureKeepsVectorResult(t *testing.T) {
	p, _ := newPipeline(rerankStore())
	boom := fmt.Errorf("%w: Cohere rejected the API key (401)", ErrAuth)
	p.Reranker = &scriptedReranker{err: boom}
	res, err := p.Retrieve(context.Background(), Query{Question: "q", TopK: 3, Rerank: RerankOptions{On: true}})
	if err != nil {
		t.Fatalf("a reranker failure failed the query: %v", err)
	}
	if got := ids(res.Hits); got != "a b c" {
		t.Fatalf("hits %q, want the vector result a b c", got)
	}
	if !errors.Is(res.Rerank.Err, ErrAuth) || !strings.Contains(res.Rerank.Error, "401") {
		t.Fatalf("rerank error %v / %q", res.Rerank.Err, res.Rerank.Error)
	}
	if res.Hits[1].VectorRank != 2 || res.Hits[1].RerankScore != nil || len(res.Rerank.FellOut) != 0 {
		t.Errorf("hit %+v fell %v", res.Hits[1], res.Rerank.FellOut)
	}
	for _, m := range res.Movements() {
		if m.Kind != MoveSame {
			t.Errorf("movement %v after a failed rerank", m)
		}
	}
}

func TestRerankInvalidAnswers(t *testing.T) {
	for name, extra := range map[string][]Relevance{
		"out of range": {{Index: 99, Score: 0.3}},
		"negative":     {{Index: -1, Score: 0.3}},
		"twice":        {{Index: 0, Score: 0.3}},
	} {
		p, _ := newPipeline(rerankStore())
		p.Reranker = &scriptedReranker{scores: map[string]float64{text("a"): 0.9}, extra: extra}
		res, err := p.Retrieve(context.Background(), Query{Question: "q", TopK: 3, Rerank: RerankOptions{On: true}})
		if err != nil || !errors.Is(res.Rerank.Err, ErrUnavailable) || ids(res.Hits) != "a b c" {
			t.Errorf("%s: err %v rerank %v hits %q", name, err, res.Rerank.Err, ids(res.Hits))
		}
	}
}

func TestRerankEmptyAnswerKeepsVectorResult(t *testing.T) {
	p, _ := newPipeline(rerankStore())
	p.Reranker = &scriptedReranker{scores: map[string]float64{}}
	res, err := p.Retrieve(context.Background(), Query{Question: "q", TopK: 3, Rerank: RerankOptions{On: true}})
	if err != nil || ids(res.Hits) != "a b c" || !errors.Is(res.Rerank.Err, ErrUnavailable) {
		t.Fatalf("err %v hits %q rerank %v", err, ids(res.Hits), res.Rerank.Err)
	}
}

func TestRerankFewerThanAsked(t *testing.T) {
	p, _ := newPipeline(rerankStore())
	p.Reranker = &scriptedReranker{scores: map[string]float64{text("g"): 0.6, text("c"): 0.4, text("a"): 0.3}, limit: 2}
	res, err := p.Retrieve(context.Background(), Query{Question: "q", TopK: 3, Rerank: RerankOptions{On: true}})
	if err != nil {
		t.Fatal(err)
	}
	if ids(res.Hits) != "g c" || res.Rerank.Returned != 2 {
		t.Fatalf("hits %q returned %d", ids(res.Hits), res.Rerank.Returned)
	}
	if got := ids(res.Rerank.FellOut); got != "a b" {
		t.Errorf("fell out %q, want a b", got)
	}
}

func TestRerankThresholdsAndDedupOrder(t *testing.T) {
	store := rerankStore()
	// f duplicates b's text: dedup must keep whichever ranks first after reranking.
	store.hits[5].Chunk.Text = store.hits[1].Chunk.Text
	p, _ := newPipeline(store)
	rr := &scriptedReranker{scores: map[string]float64{text("b"): 0.5, text("a"): 0.05, text("c"): 0.3}}
	rr.scores[text("b")] = 0.5 // b and f share a text, so both score 0.5
	p.Reranker = rr
	q := Query{Question: "q", TopK: 4, Threshold: 0.56, Rerank: RerankOptions{On: true, Candidates: 2, Threshold: 0.1}}
	res, err := p.Retrieve(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	// Threshold 0.56 keeps a..g (0.90..0.60) of the 8 searched: h (0.55) is not sent.
	if len(rr.docs) != 7 || res.Rerank.Candidates != 7 {
		t.Fatalf("sent %d documents, want 7 (the vector threshold cuts candidates)", len(rr.docs))
	}
	if got := ids(res.Hits); got != "b c" {
		t.Fatalf("hits %q, want b c", got)
	}
	reasons := map[string]string{}
	for _, d := range res.Dropped {
		reasons[d.Chunk.ID] = d.Reason
		if d.Reason == ReasonDuplicate && d.DuplicateOf != 1 {
			t.Errorf("f duplicates #%d, want #1", d.DuplicateOf)
		}
	}
	if reasons["f"] != ReasonDuplicate || reasons["a"] != ReasonBelowRerankThreshold {
		t.Errorf("drop reasons %v", reasons)
	}
}

func TestRerankValidation(t *testing.T) {
	p, _ := newPipeline(rerankStore())
	p.Reranker = &scriptedReranker{}
	for _, r := range []RerankOptions{{On: true, Candidates: 101}, {On: true, Candidates: -1}, {On: true, Threshold: 1.5}} {
		if _, err := p.Retrieve(context.Background(), Query{Question: "q", TopK: 3, Rerank: r}); !errors.Is(err, ErrInvalidQuery) {
			t.Errorf("%+v: err %v, want ErrInvalidQuery", r, err)
		}
	}
	p.Reranker = nil
	if _, err := p.Retrieve(context.Background(), Query{Question: "q", TopK: 3, Rerank: RerankOptions{On: true}}); !errors.Is(err, ErrConfig) {
		t.Errorf("no reranker: err %v, want ErrConfig", err)
	}
}

func TestRerankNotCalledWithoutCandidates(t *testing.T) {
	p, _ := newPipeline(rerankStore())
	rr := &scriptedReranker{}
	p.Reranker = rr
	res, err := p.Retrieve(context.Background(), Query{Question: "q", TopK: 3, Threshold: 0.95, Rerank: RerankOptions{On: true}})
	if err != nil || rr.calls != 0 || len(res.Hits) != 0 || res.Rerank == nil {
		t.Fatalf("err %v calls %d hits %d", err, rr.calls, len(res.Hits))
	}
}

// fixedReranker scores every document without I/O, so the benchmark
// measures ragscope's own work only.
type fixedReranker struct{ scores []float64 }

func (f fixedReranker) Rerank(_ context.Context, _ string, docs []string, topN int) ([]Relevance, error) {
	out := make([]Relevance, len(docs))
	for i := range docs {
		out[i] = Relevance{Index: i, Score: f.scores[i]}
	}
	return out, nil
}
func (fixedReranker) Name() string { return "fixed" }

// BenchmarkRerank100 measures what reranking adds in ragscope for 100
// candidates (top_k 25 × 4): the vector result, the documents, sorting,
// the rerank threshold, dedup, grounding and the fell-out list (budget:
// under 1 ms; the reranker's own call is not counted).
func BenchmarkRerank100(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	words := strings.Fields("robot joint link sensor camera lidar node topic service action launch param urdf xacro gazebo world physics isaac policy reward nav2 costmap slam odometry planner controller torque")
	scored := make([]ScoredChunk, 100)
	scores := make([]float64, 100)
	for i := range scored {
		var sb strings.Builder
		for w := 0; w < 180; w++ {
			sb.WriteString(words[rng.Intn(len(words))])
			sb.WriteByte(' ')
		}
		scored[i] = ScoredChunk{Score: rng.Float64(), Chunk: Chunk{
			ID: fmt.Sprintf("c%d", i), Text: sb.String(), DocPath: fmt.Sprintf("docs/module-%d/%02d-page.md", i%4, i%20),
			Title: "Page", Section: fmt.Sprintf("1.%d Section", i), ChunkIndex: IntPtr(i % 7),
		}}
		scores[i] = rng.Float64()
	}
	p := &Pipeline{Reranker: fixedReranker{scores}, URLs: URLBuilder{DocsBase: "https://me.github.io/book/docs/"}}
	q := Query{Question: "q", TopK: 25, Threshold: 0.01, Rerank: RerankOptions{On: true, Candidates: 4, Threshold: 0.05}}
	// vector: what the same query costs without reranking (the store
	// returns top_k); rerank: with it. The difference is what rerank adds.
	b.Run("vector", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var res Result
			PostProcess(scored[:25], q, p.URLs, &res)
		}
	})
	b.Run("rerank", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			res := Result{Question: "q"}
			p.rerank(context.Background(), q, scored, &res)
		}
	})
}

func TestRerankBatchMatchesSingle(t *testing.T) {
	store := rerankStore()
	p, _ := newPipeline(store)
	p.Reranker = &scriptedReranker{scores: map[string]float64{text("e"): 0.9, text("b"): 0.8, text("a"): 0.7}}
	q := Query{Question: "q", TopK: 3, Rerank: RerankOptions{On: true, Candidates: 2}}
	single, err := p.Retrieve(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	res, errs := p.RetrieveBatch(context.Background(), []Query{q, {Question: "q", TopK: 3}}, [][]float32{{1, 0}, {1, 0}}, make([]time.Duration, 2))
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	if ids(res[0].Hits) != ids(single.Hits) || res[0].Rerank == nil || ids(res[0].Rerank.Vector) != "a b c" {
		t.Fatalf("batch %q, single %q", ids(res[0].Hits), ids(single.Hits))
	}
	if res[1].Rerank != nil || ids(res[1].Hits) != "a b c" {
		t.Fatalf("the query without rerank was reranked: %q", ids(res[1].Hits))
	}
	if res[0].Timings.Total < res[0].Timings.Rerank {
		t.Fatal("total leaves out the rerank call")
	}
}

// A batched query's total is its own work (its embed share, the batch
// search, its post-processing), with or without rerank: not the time it
// waited while the batch's other queries were post-processed.
func TestBatchTotalIsTheQuerysOwn(t *testing.T) {
	p, _ := newPipeline(rerankStore())
	qs := make([]Query, 50)
	vecs := make([][]float32, len(qs))
	took := make([]time.Duration, len(qs))
	for i := range qs {
		qs[i] = Query{Question: "q", TopK: 3}
		vecs[i] = []float32{1, 0}
		took[i] = time.Duration(i) * time.Microsecond
	}
	res, errs := p.RetrieveBatch(context.Background(), qs, vecs, took)
	for i, r := range res {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if want := r.Timings.Embed + r.Timings.Search + r.Timings.Post; r.Timings.Total != want {
			t.Fatalf("query %d: total %v, want embed + search + post = %v", i, r.Timings.Total, want)
		}
	}
}

func TestRerankScoresOutsideZeroToOneKeepVectorResult(t *testing.T) {
	for _, bad := range []float64{1e39, -0.01, 1.5} {
		p, _ := newPipeline(rerankStore())
		p.Reranker = &scriptedReranker{scores: map[string]float64{text("a"): 0.9, text("d"): bad}}
		res, err := p.Retrieve(context.Background(), Query{Question: "q", TopK: 3, Rerank: RerankOptions{On: true, Threshold: 0.5}})
		if err != nil || !errors.Is(res.Rerank.Err, ErrUnavailable) || ids(res.Hits) != "a b c" {
			t.Fatalf("%g: err %v rerank %v hits %q", bad, err, res.Rerank.Err, ids(res.Hits))
		}
		if !strings.Contains(res.Rerank.Error, "outside 0..1") {
			t.Errorf("%g: rerank error %q", bad, res.Rerank.Error)
		}
		for _, h := range res.Hits {
			if h.RerankScore != nil {
				t.Errorf("%g: hit %s shows rerank score %v", bad, h.Chunk.ID, *h.RerankScore)
			}
		}
	}
}
