package local

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"ragscope/retrieval"
)

// providerFS is a docs folder of two pages.
func providerFS() fstest.MapFS {
	return fstest.MapFS{
		"docs/a.md": {Data: []byte("# Balance\n\n## Zero moment point\n\nThe zero moment point keeps a walking humanoid balanced.\n\n## Ankle torque\n\nAnkle torque shifts the center of pressure.\n")},
		"docs/b.md": {Data: []byte("# Vision\n\n## Cameras\n\nStereo cameras give depth to the perception stack.\n")},
	}
}

// stubDocs is a provider embedding made of the stub embedder, counting
// the texts it embeds.
func stubDocs(n *int) *DocEmbedding {
	return &DocEmbedding{Provider: "stubprov", Model: "stub-bow-v1", Dimensions: 64,
		Embed: func(ctx context.Context, texts []string, progress func(int)) ([][]float32, error) {
			*n += len(texts)
			progress(len(texts))
			return stubEmbedder{name: "stub-bow-v1", dim: 64}.Embed(ctx, texts)
		}}
}

func TestProviderIndexRoundTrip(t *testing.T) {
	ctx := context.Background()
	embedded := 0
	ix, c, err := Build(ctx, providerFS(), BuildOptions{Docs: stubDocs(&embedded), Chunk: ChunkOptions{MaxWords: 30, Overlap: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if embedded != ix.Len() || c.Embedder != nil {
		t.Fatalf("embedded %d of %d chunks; corpus embedder %v", embedded, ix.Len(), c.Embedder)
	}
	path := filepath.Join(t.TempDir(), "p.idx")
	if err := SaveIndex(ctx, path, ix, c); err != nil {
		t.Fatal(err)
	}
	// Without a query embedder for it, a provider's index is refused.
	if _, _, err := LoadIndex(ctx, path, LoadOptions{}); !errors.Is(err, ErrIncompatibleIndex) || !strings.Contains(err.Error(), "stubprov stub-bow-v1") {
		t.Fatalf("no query embedder: %v", err)
	}
	var asked IndexInfo
	got, gc, err := LoadIndex(ctx, path, LoadOptions{QueryEmbedder: func(_ context.Context, info IndexInfo) (retrieval.Embedder, error) {
		asked = info
		return stubEmbedder{name: "stub-bow-v1", dim: 64}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := Chunking{Split: SplitHeadings, Size: 30, Unit: UnitWords, Overlap: 3}
	if asked.Provider != "stubprov" || asked.Model != "stub-bow-v1" || asked.Dimensions != 64 || asked.Chunking != want || got.Info() != asked {
		t.Fatalf("info %+v, index %+v", asked, got.Info())
	}
	for _, mode := range SearchModes() {
		v, _ := got.WithMode(mode)
		q, _ := gc.Embedder.Embed(ctx, []string{"ankle torque"})
		hits, err := v.Search(ctx, retrieval.SearchRequest{Vector: q[0], Text: "ankle torque", Limit: 1})
		if err != nil || len(hits) != 1 || hits[0].Chunk.Section != "Ankle torque" {
			t.Errorf("%s: %v, %+v", mode, err, hits)
		}
	}
	// A query embedder of another size is refused.
	_, _, err = LoadIndex(ctx, path, LoadOptions{QueryEmbedder: func(context.Context, IndexInfo) (retrieval.Embedder, error) {
		return stubEmbedder{name: "stub-bow-v1", dim: 32}, nil
	}})
	if !errors.Is(err, ErrIncompatibleIndex) {
		t.Errorf("other size: %v", err)
	}
}

func TestOlderFormatAsksForRebuild(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v5.idx")
	writeIndexFile(t, path, &indexFile{Format: indexFormat, Version: indexVersion - 1})
	_, _, err := LoadIndex(context.Background(), path, LoadOptions{})
	if !errors.Is(err, ErrIncompatibleIndex) || !strings.Contains(err.Error(), "format version 5") || !strings.Contains(err.Error(), "rebuild it with") {
		t.Errorf("version 5: %v", err)
	}
}

func TestChunkingOptions(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Gait\n\n")
	for _, h := range []string{"Swing", "Stance"} {
		b.WriteString("## " + h + "\n\n")
		for range 4 {
			b.WriteString("one two three four five six seven eight nine ten.\n\n")
		}
	}
	src := []byte(b.String())
	words := func(opts ChunkOptions) []retrieval.Chunk {
		t.Helper()
		cs, err := ChunkMarkdown("docs/gait.md", src, opts)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	// 25 words: "## Swing" (2) leaves 23, two paragraphs of 10 a chunk.
	cs := words(ChunkOptions{MaxWords: 25})
	if len(cs) != 4 {
		t.Fatalf("%d chunks, want 4", len(cs))
	}
	for _, c := range cs {
		if n := wordCount(c.Text); n > 25 || !strings.HasPrefix(c.Text, "## "+c.Section) {
			t.Errorf("chunk of %d words: %q", n, c.Text)
		}
	}
	// Overlap: the second chunk of a section starts with the first's end.
	cs = words(ChunkOptions{MaxWords: 25, Overlap: 3})
	if !strings.HasPrefix(cs[1].Text, "## Swing\n\neight nine ten.\n\none") {
		t.Errorf("overlap: %q", cs[1].Text)
	}
	// By size: chunks run across headings and cite where they start.
	cs = words(ChunkOptions{MaxWords: 35, Split: SplitSize})
	if len(cs) != 3 || !strings.Contains(cs[1].Text, "## Stance") || cs[1].Section != "Swing" || cs[2].Section != "Stance" {
		for _, c := range cs {
			t.Logf("%s: %q", c.Section, c.Text)
		}
		t.Errorf("by size: %d chunks", len(cs))
	}
	if got := (ChunkOptions{MaxWords: 5, Split: "size"}).Chunking(); got != (Chunking{Split: SplitSize, Size: minMaxWords, Unit: UnitWords}) {
		t.Errorf("chunking %+v", got)
	}
	if got := (ChunkOptions{}).Chunking().String(); got != "split at headings, at most 1500 characters, no overlap" {
		t.Errorf("default chunking %q", got)
	}
}
