package local

import (
	"context"
	"math"
	"path/filepath"
	"testing"
	"testing/fstest"

	"ragscope/retrieval"
	"ragscope/retrieval/store/local/demo"
	"ragscope/retrieval/store/local/internal/gencorpus"
)

// TestCompactIndexSearchesAsBuilt saves an index past the projection's
// limit (its vectors' lexical parts hashed), which is stored compact, and
// checks that the loaded index answers exactly as the built one.
func TestCompactIndexSearchesAsBuilt(t *testing.T) {
	ctx := context.Background()
	words, err := gencorpus.Vocabulary(demo.Site(), demo.DocsDir)
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	if err := gencorpus.Generate(words, 60, 7, "docs", func(name string, data []byte) error {
		fsys[name] = &fstest.MapFile{Data: data}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	built, c, err := Build(ctx, fsys, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if built.Len() < 500 || built.lex == nil || built.lex.LexicalInVectors() {
		t.Fatalf("%d chunks: want a corpus past the projection's limit, scored with postings", built.Len())
	}
	path := filepath.Join(t.TempDir(), "book.idx")
	if err := SaveIndex(ctx, path, built, c); err != nil {
		t.Fatal(err)
	}
	loaded, lc, err := LoadIndex(ctx, path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !loaded.compact() || loaded.stride != 101 || loaded.Dim() != built.Dim() {
		t.Fatalf("loaded stride %d, dim %d: want a compact index of dimension %d", loaded.stride, loaded.Dim(), built.Dim())
	}
	for _, q := range []string{"how does the robot simulate sensors", "python launch node", "gazebo"} {
		vecs, err := lc.Embedder.Embed(ctx, []string{q})
		if err != nil {
			t.Fatal(err)
		}
		req := retrieval.SearchRequest{Vector: vecs[0], Text: q, Limit: 10}
		want, err := built.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := loaded.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d hits, want %d", q, len(got), len(want))
		}
		for k := range want {
			if got[k].Chunk.ID != want[k].Chunk.ID || math.Abs(got[k].Score-want[k].Score) > 1e-5 {
				t.Errorf("%q rank %d: %s %.6f, want %s %.6f", q, k+1, got[k].Chunk.ID, got[k].Score, want[k].Chunk.ID, want[k].Score)
			}
		}
		// Without the text a compact index scores the semantic part only.
		if hits, err := loaded.Search(ctx, retrieval.SearchRequest{Vector: vecs[0], Limit: 3}); err != nil || len(hits) != 3 {
			t.Errorf("%q without text: %d hits, %v", q, len(hits), err)
		}
	}
}
