package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ragscope/config"
	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/provider/embedcache"
)

// Ctrl+C half-way through a provider build: the old index stays, and the
// vectors embedded so far stay cached.
func TestIndexInterruptedKeepsCacheAndOldIndex(t *testing.T) {
	co := coheretest.NewServer("co-key")
	defer co.Close()
	root := t.TempDir()
	docs := filepath.Join(root, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for s := range 200 {
		fmt.Fprintf(&b, "## Step %d\n\nJoint %d turns by %d degrees.\n\n", s, s, s)
	}
	if err := os.WriteFile(filepath.Join(docs, "steps.md"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "book.idx")
	if err := os.WriteFile(out, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg = cfg.WithKey("cohere", "co-key").WithBaseURL("cohere", co.URL)
	cache := filepath.Join(root, "cache")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := BuildIndex(ctx, IndexJob{
		Docs: docs, Out: out, Settings: cfg, Embedder: "cohere", Concurrency: 1, CacheDir: cache,
		Progress: func(stage string, done, total int) {
			if done >= coheretest.MaxTexts && done < total {
				cancel() // Ctrl+C once the first batch is in
			}
		},
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if raw, _ := os.ReadFile(out); string(raw) != "old" {
		t.Error("the old index was replaced")
	}
	store := embedcache.Open(cache, embedcache.Key{Provider: "cohere", Model: "embed-english-v3.0", InputType: "search_document"})
	if n := store.Len(); n != coheretest.MaxTexts || res.Embedded != coheretest.MaxTexts {
		t.Errorf("cached %d, embedded %d, want %d", n, res.Embedded, coheretest.MaxTexts)
	}
}
