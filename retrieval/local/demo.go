package local

import (
	"context"
	"fmt"

	"ragscope/retrieval/local/demo"
)

// OpenDemo builds the index of the embedded demo textbook, with citation
// URLs pointing at where the demo site would be published.
func OpenDemo(ctx context.Context) (*Index, *Corpus, error) {
	ix, c, err := Build(ctx, demo.Site(), BuildOptions{
		Chunk:   ChunkOptions{DocsDir: demo.DocsDir},
		BaseURL: demo.DocsBaseURL,
		Backend: BackendDemo,
		Name:    demo.Name,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("open demo: %w", err)
	}
	return ix, c, nil
}
