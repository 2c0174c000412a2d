package local

import (
	"context"
	"math"
	"testing"

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
