package local

import (
	"bytes"
	"context"
	_ "embed" // for the prebuilt demo index
	"fmt"

	"ragscope/retrieval/store/local/demo"
)

// demoIndex is the demo textbook's index, built ahead of time so that a
// demo query loads it in milliseconds instead of chunking and fitting the
// book at every start. TestDemoIndexIsFresh fails when it no longer matches
// the demo's docs or the embedder; regenerate it with
//
//	go test ./retrieval/store/local -run TestDemoIndexIsFresh -update
//
//go:embed demo.idx
var demoIndex []byte

// OpenDemo opens the index of the embedded demo textbook, with citation
// URLs pointing at where the demo site would be published.
func OpenDemo(ctx context.Context) (*Index, *Corpus, error) {
	ix, c, err := loadIndexBytes(ctx, "(embedded demo)", demoIndex, LoadOptions{BaseURL: demo.DocsBaseURL})
	if err != nil {
		return nil, nil, fmt.Errorf("open demo: %w", err)
	}
	return ix, c, nil
}

// buildDemo builds the demo index from the demo's docs, as demo.idx was.
func buildDemo(ctx context.Context) (*Index, *Corpus, error) {
	return Build(ctx, demo.Site(), BuildOptions{
		Chunk:   ChunkOptions{DocsDir: demo.DocsDir},
		BaseURL: demo.DocsBaseURL,
		Backend: BackendDemo,
		Name:    demo.Name,
	})
}

// encodeDemo returns the bytes of the demo index file.
func encodeDemo(ctx context.Context) ([]byte, error) {
	ix, c, err := buildDemo(ctx)
	if err != nil {
		return nil, err
	}
	f, err := newIndexFile(ix, c)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := f.encode(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
