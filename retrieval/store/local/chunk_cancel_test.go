package local

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"ragscope/retrieval/store/local/demo"
	"ragscope/retrieval/store/local/internal/gencorpus"
)

// openHookFS is a file system that calls hook with the number of pages
// opened so far each time a page is opened.
type openHookFS struct {
	fs.FS
	opened atomic.Int64
	hook   func(n int64)
}

func (f *openHookFS) Open(name string) (fs.File, error) {
	if strings.HasSuffix(name, ".md") {
		f.hook(f.opened.Add(1))
	}
	return f.FS.Open(name)
}

// TestChunkDocsStopsWhenCancelled cancels the context when the first
// page of a 1,000-page book is opened: ChunkDocs returns the context's
// error and no chunks, having opened only the pages already in flight
// (one per CPU at most), not the whole book.
func TestChunkDocsStopsWhenCancelled(t *testing.T) {
	words, err := gencorpus.Vocabulary(demo.Site(), demo.DocsDir)
	if err != nil {
		t.Fatal(err)
	}
	book := fstest.MapFS{}
	const pages = 1000
	if err := gencorpus.Generate(words, pages, 3, "docs", func(name string, data []byte) error {
		book[name] = &fstest.MapFile{Data: data}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	fsys := &openHookFS{FS: book, hook: func(int64) { cancel() }}
	chunks, _, err := ChunkDocs(ctx, fsys, ChunkOptions{})
	if !errors.Is(err, context.Canceled) || chunks != nil {
		t.Fatalf("got %d chunks, error %v; want none and context.Canceled", len(chunks), err)
	}
	if n := fsys.opened.Load(); n >= pages/2 {
		t.Fatalf("%d of %d pages opened after the cancel", n, pages)
	}
}
