package local

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"testing/fstest"

	"ragscope/retrieval"
	"ragscope/retrieval/store/local/embed"
)

// The parts of a score add up to the score the search gave, in each
// ranking that has parts, so the breakdown is the scorer's own.
func TestExplainScoreAddsUpToTheSearchScore(t *testing.T) {
	ctx := context.Background()
	demo, _, err := OpenDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	question := "How do ROS 2 nodes talk to each other?"
	vecs, err := embed.New(nil).Embed(ctx, []string{question})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []SearchMode{ModeBM25, ModeHybrid, ModeEmbedder} {
		ix, err := demo.WithMode(mode)
		if err != nil {
			t.Fatal(err)
		}
		req := retrieval.SearchRequest{Vector: vecs[0], Text: question, Limit: 5}
		got, err := ix.Search(ctx, req)
		if err != nil || len(got) == 0 {
			t.Fatalf("%s: search: %v %v", mode, got, err)
		}
		for _, h := range got {
			b, err := ix.ExplainScore(ctx, req, h.Chunk.ID)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(b.Score-h.Score) > 1e-6 {
				t.Errorf("%s %s: parts add up to %.6f, the search scored %.6f", mode, h.Chunk.ID, b.Score, h.Score)
			}
			if mode != ModeEmbedder && len(b.Terms) == 0 {
				t.Errorf("%s: no term parts", mode)
			}
			if mode != ModeBM25 && b.Cosine == nil {
				t.Errorf("%s: no cosine", mode)
			}
		}
	}
}

// A chunk scored from outside the index (a what-if) with the text of a
// chunk the index holds scores as that chunk does: the same statistics,
// the same formula.
func TestScoreChunkMatchesTheIndexedChunk(t *testing.T) {
	ctx := context.Background()
	ix, _, err := OpenDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	question := "what does a launch file start for a beginner course?"
	req := retrieval.SearchRequest{Text: question, Vector: make([]float32, ix.Dim()), Limit: 3}
	got, err := ix.Search(ctx, req)
	if err != nil || len(got) == 0 {
		t.Fatalf("search: %v %v", got, err)
	}
	c := got[0].Chunk
	c.ID = "what-if"
	b, err := ix.ScoreChunk(ctx, req, c)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(b.Score-got[0].Score) > 1e-4 {
		t.Fatalf("the same text scored %.6f from outside, %.6f inside", b.Score, got[0].Score)
	}
	var lengths []float64
	for _, p := range b.Terms {
		if p.Count > 0 {
			lengths = append(lengths, p.LengthNorm)
		}
	}
	inside, _ := ix.ExplainScore(ctx, req, got[0].Chunk.ID)
	for _, p := range inside.Terms {
		if p.Count > 0 && math.Abs(p.LengthNorm-lengths[0]) > 1e-3 {
			t.Fatalf("length norm read from the postings %.4f, computed %.4f", p.LengthNorm, lengths[0])
		}
	}
	lacks := ""
	for _, p := range b.Terms {
		if p.Count == 0 {
			lacks += " " + p.Term
		}
	}
	if lacks == "" {
		t.Fatalf("the top chunk has every term of %q: pick a question it lacks a word of", question)
	}
	c.Text += lacks
	more, _ := ix.ScoreChunk(ctx, req, c)
	if more.Score <= b.Score {
		t.Fatalf("adding the question's word did not raise the score: %.4f -> %.4f", b.Score, more.Score)
	}
	if _, err := ix.WithMode(ModeHybrid); err == nil {
		h, _ := ix.WithMode(ModeHybrid)
		if _, err := h.ScoreChunk(ctx, req, c); err == nil {
			t.Fatal("a hybrid what-if was not refused")
		}
	}
}

// An index of a provider's vectors fuses by reciprocal rank (and the
// tuning fusions rescale their sides): the explanation takes apart the
// score that search computed, each side's rank and part as an arm, the
// terms adding up to the BM25 side's own score, and names the fusion.
func TestExplainScoreOfARankFusion(t *testing.T) {
	ctx := context.Background()
	fsys := providerFS()
	for n, body := range []string{
		"Ankle torque and hip torque keep the robot upright while walking.",
		"A walking humanoid shifts its weight over the support foot.",
		"Torque sensors in the ankle measure the ground reaction.",
		"Balance controllers read the center of pressure from the feet.",
	} {
		fsys[fmt.Sprintf("docs/more%d.md", n)] = &fstest.MapFile{Data: []byte(fmt.Sprintf("# Page %d\n\n## Part\n\n%s\n", n, body))}
	}
	embedded := 0
	built, _, err := Build(ctx, fsys, BuildOptions{Docs: stubDocs(&embedded), Chunk: ChunkOptions{MaxWords: 30, Overlap: 3}})
	if err != nil {
		t.Fatal(err)
	}
	question := "ankle torque walking balance"
	qv, err := stubEmbedder{name: "stub-bow-v1", dim: 64}.Embed(ctx, []string{question})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		fusion  *fusion
		filters retrieval.Filters
		want    string
	}{
		{name: "provider", want: "hybrid RRF (k 60) of cosine and BM25 + title match"},
		{name: "provider, one page", filters: retrieval.Filters{DocPaths: []string{"docs/a.md", "docs/more2.md"}}, want: "RRF (k 60)"},
		{name: "rrf heading", fusion: &fusion{method: fuseRRF, rrfK: 10, vec: 0.3, title: 0.2, candidates: 100, heading: 0.5}, want: "RRF (k 10) of cosine and BM25 with its heading field ×0.5"},
		{name: "min-max", fusion: &fusion{method: fuseMinMax, vec: 0.6, title: 0.2, candidates: 100}, want: "min-max"},
		{name: "blend heading", fusion: &fusion{vec: 0.8, title: 0.2, candidates: 100, heading: 0.5}, want: "heading field"},
	}
	for _, tc := range cases {
		ix, err := built.WithMode(ModeHybrid)
		if err != nil {
			t.Fatal(err)
		}
		ix.fusion = tc.fusion
		req := retrieval.SearchRequest{Vector: qv[0], Text: question, Limit: 5, Filters: tc.filters}
		hits, err := ix.Search(ctx, req)
		if err != nil || len(hits) < 2 {
			t.Fatalf("%s: search: %v %v", tc.name, hits, err)
		}
		for _, h := range hits {
			b, err := ix.ExplainScore(ctx, req, h.Chunk.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.Fusion, tc.want) {
				t.Errorf("%s: fusion %q, want %q", tc.name, b.Fusion, tc.want)
			}
			if len(b.Arms) != 2 {
				t.Fatalf("%s %s: arms %+v", tc.name, h.Chunk.ID, b.Arms)
			}
			sum := b.TitleContribution
			for _, a := range b.Arms {
				sum += *a.Part
			}
			if math.Abs(b.Score-h.Score) > 1e-9 || math.Abs(sum-h.Score) > 1e-9 {
				t.Errorf("%s %s: parts add up to %.6f (score %.6f), the search scored %.6f", tc.name, h.Chunk.ID, sum, b.Score, h.Score)
			}
			dense, bm25 := b.Arms[0], b.Arms[1]
			if dense.Rank != h.Parts.CosineRank || bm25.Rank != h.Parts.BM25Rank && tc.fusion == nil {
				t.Errorf("%s %s: ranks dense %d bm25 %d, the search's %d %d", tc.name, h.Chunk.ID, dense.Rank, bm25.Rank, h.Parts.CosineRank, h.Parts.BM25Rank)
			}
			terms := 0.0
			for _, p := range b.Terms {
				terms += p.Contribution
			}
			if math.Abs(terms-h.Parts.BM25) > 1e-6 || bm25.Rank > 0 && math.Abs(bm25.Score-h.Parts.BM25) > 1e-9 {
				t.Errorf("%s %s: the terms add up to %.6f, the BM25 side %.6f (arm %.6f)", tc.name, h.Chunk.ID, terms, h.Parts.BM25, bm25.Score)
			}
			if tc.fusion == nil && bm25.Rank > 0 {
				k := 60.0
				want := 0.5 * (k + 1) / (k + float64(bm25.Rank)) / 1.2
				if math.Abs(*bm25.Part-want) > 1e-12 {
					t.Errorf("%s: bm25 rank %d part %.6f, want %.6f", tc.name, bm25.Rank, *bm25.Part, want)
				}
			}
		}
	}
}
