package qdrant

import (
	"context"
	"fmt"
	"strings"

	qc "github.com/qdrant/go-client/qdrant"

	"ragscope/retrieval"
)

// pageScroll is the number of points one PageChunks scroll call reads.
const pageScroll = 256

// PageChunks implements retrieval.PageChunker: a read-only scroll with a
// keyword match on the collection's doc path key (as detected, like
// PageTitle), pageScroll points per call, without vectors, sorted in
// reading order. More than retrieval.MaxPageChunks points is an error
// wrapping retrieval.ErrPageTooLarge.
func (s *Store) PageChunks(ctx context.Context, docPath string) ([]retrieval.Chunk, error) {
	docPath = strings.TrimSpace(docPath)
	if docPath == "" {
		return nil, nil
	}
	det, err := s.detection(ctx)
	if err != nil {
		return nil, s.withCollections(ctx, err)
	}
	filter := &qc.Filter{Must: []*qc.Condition{qc.NewMatchKeyword(s.filterKey(det, FieldDocPath), docPath)}}
	var (
		out    []retrieval.Chunk
		offset *qc.PointId
	)
	for {
		pts, next, err := s.scrollPage(ctx, filter, offset, pageScroll)
		if err != nil {
			return nil, s.withCollections(ctx, err)
		}
		if len(out)+len(pts) > retrieval.MaxPageChunks {
			return nil, fmt.Errorf("page %s: %w (over %d)", docPath, retrieval.ErrPageTooLarge, retrieval.MaxPageChunks)
		}
		for _, p := range pts {
			out = append(out, s.mapping.Decode(pointID(p.GetId()), p.GetPayload()))
		}
		if next == nil || len(pts) == 0 {
			break
		}
		offset = next
	}
	retrieval.SortReadingOrder(out)
	return out, nil
}
