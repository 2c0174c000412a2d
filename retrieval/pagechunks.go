package retrieval

import (
	"cmp"
	"context"
	"errors"
	"slices"
)

// MaxPageChunks bounds the chunks a PageChunker reads of one page: a page
// with more is an error wrapping ErrPageTooLarge, so a doc path that
// every point shares cannot fill the memory of the explorer.
const MaxPageChunks = 10000

// ErrPageTooLarge says a page has more chunks than MaxPageChunks.
var ErrPageTooLarge = errors.New("the page has more chunks than can be listed")

// PageChunker is implemented by stores that can list the chunks of one
// page (the explorer's page view).
type PageChunker interface {
	// PageChunks returns the chunks whose doc path is docPath, in reading
	// order (SortReadingOrder), read-only; none (and no error) when the
	// store has no such page. More than MaxPageChunks chunks is an error
	// wrapping ErrPageTooLarge.
	PageChunks(ctx context.Context, docPath string) ([]Chunk, error)
}

// SortReadingOrder sorts chunks in reading order: by chunk index, those
// without one last, ties (the same index stored twice) by id.
func SortReadingOrder(chunks []Chunk) {
	slices.SortStableFunc(chunks, func(a, b Chunk) int {
		ai, aok := a.Index()
		bi, bok := b.Index()
		switch {
		case aok && !bok:
			return -1
		case !aok && bok:
			return 1
		case aok && ai != bi:
			return cmp.Compare(ai, bi)
		}
		return cmp.Compare(a.ID, b.ID)
	})
}
