package local

import (
	"context"
	"fmt"
	"strings"

	"ragscope/retrieval"
)

// PageChunks implements retrieval.PageChunker: the chunks whose doc path
// is docPath, copied, in reading order.
func (ix *Index) PageChunks(ctx context.Context, docPath string) ([]retrieval.Chunk, error) {
	docPath = strings.TrimSpace(docPath)
	if docPath == "" {
		return nil, nil
	}
	var out []retrieval.Chunk
	for i := range ix.chunks {
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("page chunks: %w", err)
			}
		}
		if ix.chunks[i].DocPath != docPath {
			continue
		}
		if len(out) == retrieval.MaxPageChunks {
			return nil, fmt.Errorf("page %s: %w (over %d)", docPath, retrieval.ErrPageTooLarge, retrieval.MaxPageChunks)
		}
		out = append(out, cloneChunk(&ix.chunks[i]))
	}
	retrieval.SortReadingOrder(out)
	return out, nil
}
