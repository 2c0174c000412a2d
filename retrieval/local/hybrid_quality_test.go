package local_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/eval"
	"ragscope/retrieval/local"
	"ragscope/retrieval/local/demo"
)

// paraphraseSet reads the demo's paraphrase golden set.
func paraphraseSet(tb testing.TB) *eval.Set {
	tb.Helper()
	b, err := os.ReadFile("testdata/paraphrase-demo.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	set, err := eval.Parse(b, "paraphrase-demo.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	return &set
}

// pageQuality is a run's first-relevant-page MRR (over the top 10) and
// hit@1.
type pageQuality struct {
	mrr, hit1 float64
}

func (q pageQuality) String() string { return fmt.Sprintf("MRR %.3f hit@1 %.3f", q.mrr, q.hit1) }

// askPages asks every case of set of ix in mode and scores the rank of
// the first hit on an expected page.
func askPages(tb testing.TB, ix *local.Index, c *local.Corpus, set *eval.Set, mode local.SearchMode) pageQuality {
	tb.Helper()
	if err := ix.SetMode(mode); err != nil {
		tb.Fatal(err)
	}
	defer ix.SetMode(local.ModeHybrid)
	p := &retrieval.Pipeline{Embedder: c.Embedder, Store: ix}
	var q pageQuality
	for _, gc := range set.Cases {
		res, err := p.Retrieve(context.Background(), retrieval.Query{Question: gc.Question, TopK: 10, NoDedup: true})
		if err != nil {
			tb.Fatal(err)
		}
		for k, h := range res.Hits {
			if slices.Contains(gc.Expect.DocPaths, h.Chunk.DocPath) {
				q.mrr += 1 / float64(k+1)
				if k == 0 {
					q.hit1++
				}
				break
			}
		}
	}
	q.mrr /= float64(len(set.Cases))
	q.hit1 /= float64(len(set.Cases))
	return q
}

// modeQualities runs set in every mode.
func modeQualities(tb testing.TB, ix *local.Index, c *local.Corpus, set *eval.Set) map[local.SearchMode]pageQuality {
	out := map[local.SearchMode]pageQuality{}
	for _, m := range local.SearchModes {
		out[m] = askPages(tb, ix, c, set, m)
	}
	return out
}

// checkHybridWins fails unless the hybrid's MRR beats both sides' and its
// hit@1 is at least theirs.
func checkHybridWins(t *testing.T, name string, q map[local.SearchMode]pageQuality) {
	t.Helper()
	h := q[local.ModeHybrid]
	t.Logf("%s: hybrid %s | bm25 %s | embedder %s", name, h, q[local.ModeBM25], q[local.ModeEmbedder])
	for _, m := range []local.SearchMode{local.ModeBM25, local.ModeEmbedder} {
		if h.mrr <= q[m].mrr || h.hit1 < q[m].hit1 {
			t.Errorf("%s: hybrid (%s) does not beat %s (%s)", name, h, m, q[m])
		}
	}
}

// TestHybridBeatsBothSides asks the paraphrase golden set of the demo
// textbook, on the demo and on the demo hidden among 200 generated pages
// (about 2,000 more chunks drawn from the demo's own words), with BM25
// alone, the embedder alone and the hybrid: the hybrid must rank the
// answering page better than either side.
func TestHybridBeatsBothSides(t *testing.T) {
	ctx := context.Background()
	set := paraphraseSet(t)
	ix, c, err := local.OpenDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkHybridWins(t, "demo", modeQualities(t, ix, c, set))
	if testing.Short() {
		return
	}
	fsys, _ := scaleCorpus(t, 200)
	big, bc, err := local.Build(ctx, fsys, local.BuildOptions{Chunk: local.ChunkOptions{DocsDir: demo.DocsDir}, BaseURL: demo.DocsBaseURL})
	if err != nil {
		t.Fatal(err)
	}
	checkHybridWins(t, fmt.Sprintf("demo among %d chunks", big.Len()), modeQualities(t, big, bc, set))
}

// TestTuneFusion reports the paraphrase set's quality for several blend
// weights (RAGSCOPE_TUNE=1, or the number of generated pages to add to
// the demo, 200 by default): how defaultFusion was chosen.
func TestTuneFusion(t *testing.T) {
	if os.Getenv("RAGSCOPE_TUNE") == "" {
		t.Skip("set RAGSCOPE_TUNE=1 to compare fusions")
	}
	ctx := context.Background()
	set := paraphraseSet(t)
	ix, c, err := local.OpenDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pages := 200
	if n, err := strconv.Atoi(os.Getenv("RAGSCOPE_TUNE")); err == nil && n > 1 {
		pages = n
	}
	fsys, _ := scaleCorpus(t, pages)
	big, bc, err := local.Build(ctx, fsys, local.BuildOptions{Chunk: local.ChunkOptions{DocsDir: demo.DocsDir}, BaseURL: demo.DocsBaseURL})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []local.SearchMode{local.ModeBM25, local.ModeEmbedder} {
		t.Logf("%s alone: demo %s | %d chunks %s", m, askPages(t, ix, c, set, m), big.Len(), askPages(t, big, bc, set, m))
	}
	for _, w := range []float64{0.6, 0.7, 0.75, 0.8, 0.9} {
		local.SetBlend(ix, w)
		local.SetBlend(big, w)
		t.Logf("cosine weight %.2f: demo %s | %d chunks %s", w, askPages(t, ix, c, set, local.ModeHybrid), big.Len(), askPages(t, big, bc, set, local.ModeHybrid))
	}
}

// BenchmarkHybridSearch10k measures one search of the local index per
// mode over about 10,000 chunks (the demo among 1,000 generated pages),
// the question already embedded (budget: hybrid under 5 ms per query), and
// reports the paraphrase set's first-relevant-page MRR and hit@1 there.
func BenchmarkHybridSearch10k(b *testing.B) {
	ctx := context.Background()
	set := paraphraseSet(b)
	fsys, _ := scaleCorpus(b, 1000)
	ix, c, err := local.Build(ctx, fsys, local.BuildOptions{Chunk: local.ChunkOptions{DocsDir: demo.DocsDir}, BaseURL: demo.DocsBaseURL})
	if err != nil {
		b.Fatal(err)
	}
	reqs := make([]retrieval.SearchRequest, len(set.Cases))
	for i, gc := range set.Cases {
		v, err := c.Embedder.Embed(ctx, []string{gc.Question})
		if err != nil {
			b.Fatal(err)
		}
		reqs[i] = retrieval.SearchRequest{Vector: v[0], Text: gc.Question, Limit: 10}
	}
	for _, m := range local.SearchModes {
		b.Run(string(m), func(b *testing.B) {
			q := askPages(b, ix, c, set, m)
			if err := ix.SetMode(m); err != nil {
				b.Fatal(err)
			}
			defer ix.SetMode(local.ModeHybrid)
			i := 0
			for b.Loop() {
				if _, err := ix.Search(ctx, reqs[i%len(reqs)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(ix.Len()), "chunks")
			b.ReportMetric(q.mrr, "MRR")
			b.ReportMetric(q.hit1, "hit@1")
		})
	}
}
