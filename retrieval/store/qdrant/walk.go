package qdrant

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	qc "github.com/qdrant/go-client/qdrant"

	"ragscope/retrieval"
)

// ScrollPage is the number of points one WalkFields scroll call reads.
const ScrollPage = 1000

// MissingFieldError says that no payload key of the collection feeds a
// chunk field a command needs, and which keys the points have, so the
// person can map one ([mapping] in ragscope.toml).
type MissingFieldError struct {
	// Field is the chunk field (FieldText, …).
	Field string
	// Tried are the payload keys the mapping looked for.
	Tried []string
	// PayloadKeys are the keys the sampled points have.
	PayloadKeys []string
}

func (e *MissingFieldError) Error() string {
	have := "none"
	if len(e.PayloadKeys) > 0 {
		have = strings.Join(e.PayloadKeys, ", ")
	}
	hint := "KEY"
	if len(e.PayloadKeys) > 0 {
		hint = e.PayloadKeys[0]
	}
	return fmt.Sprintf("no payload field holds the chunk %s (looked for %s); the points have: %s: map the one that does in ragscope.toml, e.g. [mapping] %s = [%q]",
		e.Field, strings.Join(e.Tried, ", "), have, e.Field, hint)
}

// Unwrap classifies the error as a configuration error.
func (e *MissingFieldError) Unwrap() error { return retrieval.ErrConfig }

// WalkFields scrolls the whole collection like Walk, read-only, reading
// only the payload keys that feed the given chunk fields (as detected on
// the first page, or every key the mapping tries for a field it lacked),
// ScrollPage points per call. The next page is requested while fn handles
// the current one, so the scan costs about one round trip per page. A
// field in required that no sampled point has is a *MissingFieldError.
func (s *Store) WalkFields(ctx context.Context, fields, required []string, fn func(page []retrieval.Chunk, total int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The point count (for progress) is asked beside the first page, which
	// is read whole: the mapping is detected on it, and the following
	// pages carry only the keys that feed the fields.
	type counted struct {
		n   int64
		err error
	}
	countc := make(chan counted, 1)
	go func() {
		n, err := s.count(ctx)
		countc <- counted{n, err}
	}()
	cur := s.scroll(ctx, nil, nil, ScrollPage, qc.NewWithPayload(true))
	cnt := <-countc
	if cur.err != nil {
		return s.withCollections(ctx, cur.err)
	}
	if cnt.err != nil {
		return s.withCollections(ctx, cnt.err)
	}
	keys, err := s.fieldKeys(cur.pts, fields, required)
	if err != nil {
		return err
	}
	include := qc.NewWithPayloadInclude(keys...)
	total := int(cnt.n)
	for {
		if cur.err != nil {
			return cur.err
		}
		var pending chan scrolled
		if cur.next != nil && len(cur.pts) > 0 {
			pending = make(chan scrolled, 1)
			go func(off *qc.PointId) { pending <- s.scroll(ctx, nil, off, ScrollPage, include) }(cur.next)
		}
		if len(cur.pts) > 0 {
			if err := fn(s.decodePoints(cur.pts), total); err != nil {
				if pending != nil {
					cancel()
					<-pending
				}
				return err
			}
		}
		if pending == nil {
			return ctx.Err()
		}
		cur = <-pending
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// fieldKeys detects the mapping on the first page's points and returns
// the top-level payload keys that feed fields: the detected key of each,
// or every key the mapping tries for one the page lacked. A field in
// required that no point of a non-empty page has is a *MissingFieldError.
func (s *Store) fieldKeys(first []*qc.RetrievedPoint, fields, required []string) ([]string, error) {
	payloads := make([]map[string]*qc.Value, len(first))
	for i, p := range first {
		payloads[i] = p.GetPayload()
	}
	det := s.mapping.Detect(payloads)
	if len(first) > 0 {
		for _, f := range required {
			if det.Fields[f] == "" {
				return nil, &MissingFieldError{Field: f, Tried: s.mapping.Candidates(f), PayloadKeys: det.PayloadKeys}
			}
		}
	}
	var keys []string
	for _, f := range fields {
		paths := []string{det.Fields[f]}
		if paths[0] == "" {
			paths = s.mapping.Candidates(f)
		}
		for _, p := range paths {
			top, _, _ := strings.Cut(p, ".")
			if top != "" && !slices.Contains(keys, top) {
				keys = append(keys, top)
			}
		}
	}
	return keys, nil
}

// Walk scrolls the whole collection in pages, read-only, calling fn with
// each page and the point count (for progress).
func (s *Store) Walk(ctx context.Context, fn func(page []retrieval.Chunk, total int) error) error {
	n, err := s.count(ctx)
	if err != nil {
		return s.withCollections(ctx, err)
	}
	total := int(n)
	var offset *qc.PointId
	for {
		pts, next, err := s.scrollPage(ctx, nil, offset, walkPage)
		if err != nil {
			return err
		}
		if len(pts) > 0 {
			if err := fn(s.decodePoints(pts), total); err != nil {
				return err
			}
		}
		if next == nil || len(pts) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		offset = next
	}
}

// decodePoints decodes a page of points to chunks.
func (s *Store) decodePoints(pts []*qc.RetrievedPoint) []retrieval.Chunk {
	chunks := make([]retrieval.Chunk, len(pts))
	for i, p := range pts {
		chunks[i] = s.mapping.Decode(pointID(p.GetId()), p.GetPayload())
	}
	return chunks
}

// pointID renders a point id (number or UUID) as text.
func pointID(id *qc.PointId) string {
	switch v := id.GetPointIdOptions().(type) {
	case *qc.PointId_Num:
		return strconv.FormatUint(v.Num, 10)
	case *qc.PointId_Uuid:
		return v.Uuid
	}
	return ""
}

// scrollPage reads one page of payloads (no vectors) from offset, of the
// points filter matches (all of them when filter is nil).
func (s *Store) scrollPage(ctx context.Context, filter *qc.Filter, offset *qc.PointId, limit int) ([]*qc.RetrievedPoint, *qc.PointId, error) {
	p := s.scroll(ctx, filter, offset, limit, qc.NewWithPayload(true))
	return p.pts, p.next, p.err
}

// scrolled is one page of a scroll: its points and the next page's
// offset (nil after the last page).
type scrolled struct {
	pts  []*qc.RetrievedPoint
	next *qc.PointId
	err  error
}

// scroll reads up to limit points from offset (nil: the first) of those
// filter matches (all when it is nil), with the payload that payload
// selects and no vectors.
func (s *Store) scroll(ctx context.Context, filter *qc.Filter, offset *qc.PointId, limit int, payload *qc.WithPayloadSelector) scrolled {
	var p scrolled
	p.err = s.call(ctx, "scroll", func(ctx context.Context) (err error) {
		p.pts, p.next, err = s.client.ScrollAndOffset(ctx, &qc.ScrollPoints{
			CollectionName: s.collection,
			Filter:         filter,
			Offset:         offset,
			Limit:          qc.PtrOf(uint32(limit)),
			WithPayload:    payload,
			WithVectors:    qc.NewWithVectors(false),
		})
		return err
	})
	return p
}
