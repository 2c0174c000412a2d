package local

import (
	"context"
	"math"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
	"ragscope/retrieval/store/local/demo"
)

// TestExactLexicalMatchesDenseOnDemo checks the hybrid score on a corpus
// small enough for the dense vectors to be exact: a search with the
// question's text (exact lexical cosines) gives the same hits and scores as
// one with the vector alone.
func TestExactLexicalMatchesDenseOnDemo(t *testing.T) {
	ctx := context.Background()
	ix, c, err := OpenDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ix, err = ix.WithMode(ModeEmbedder); err != nil {
		t.Fatal(err)
	}
	if ix.lex == nil {
		t.Fatal("the demo index does not score lexical cosines exactly")
	}
	set, err := eval.Parse(demo.GoldenSet(), demo.GoldenSetName)
	if err != nil {
		t.Fatal(err)
	}
	for _, gc := range set.Cases {
		if gc.Mode == retrieval.ModeSelectedText {
			continue
		}
		vecs, err := c.Embedder.Embed(ctx, []string{gc.Question})
		if err != nil {
			t.Fatal(err)
		}
		dense, err := ix.Search(ctx, retrieval.SearchRequest{Vector: vecs[0], Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		exact, err := ix.Search(ctx, retrieval.SearchRequest{Vector: vecs[0], Text: gc.Question, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for k := range dense {
			if math.Abs(dense[k].Score-exact[k].Score) > 1e-4 {
				t.Fatalf("%q rank %d: dense %s %.5f, exact %s %.5f", gc.Question, k+1, dense[k].Chunk.ID, dense[k].Score, exact[k].Chunk.ID, exact[k].Score)
			}
		}
	}
}
