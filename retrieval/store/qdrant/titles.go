package qdrant

import (
	"context"
	"strings"

	qc "github.com/qdrant/go-client/qdrant"
)

// PageTitle implements retrieval.PageTitler: the title in the payload of
// one point whose doc path is docPath (a scroll of one point with a keyword
// match on the collection's doc path key). Any failure, a collection
// without doc paths included, is "not known": the caller falls back to the
// page's slug, and the retrieval's own calls report real errors.
func (s *Store) PageTitle(ctx context.Context, docPath string) (string, bool) {
	docPath = strings.TrimSpace(docPath)
	if docPath == "" {
		return "", false
	}
	det, err := s.detection(ctx)
	if err != nil {
		return "", false
	}
	filter := &qc.Filter{Must: []*qc.Condition{qc.NewMatchKeyword(s.filterKey(det, FieldDocPath), docPath)}}
	pts, _, err := s.scrollPage(ctx, filter, nil, 1)
	if err != nil || len(pts) == 0 {
		return "", false
	}
	c := s.mapping.Decode(pointID(pts[0].GetId()), pts[0].GetPayload())
	return c.Title, c.Title != ""
}
