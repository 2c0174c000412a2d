package qdrant

import (
	"context"
	"fmt"
	"slices"
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
	type page struct {
		pts  []*qc.RetrievedPoint
		next *qc.PointId
		err  error
	}
	fetch := func(ctx context.Context, offset *qc.PointId, payload *qc.WithPayloadSelector) page {
		var p page
		p.err = s.call(ctx, "scroll", func(ctx context.Context) (err error) {
			p.pts, p.next, err = s.client.ScrollAndOffset(ctx, &qc.ScrollPoints{
				CollectionName: s.collection,
				Offset:         offset,
				Limit:          qc.PtrOf(uint32(ScrollPage)),
				WithPayload:    payload,
				WithVectors:    qc.NewWithVectors(false),
			})
			return err
		})
		return p
	}
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
	cur := fetch(ctx, nil, qc.NewWithPayload(true))
	cnt := <-countc
	if cur.err != nil {
		return s.withCollections(ctx, cur.err)
	}
	if cnt.err != nil {
		return s.withCollections(ctx, cnt.err)
	}
	payloads := make([]map[string]*qc.Value, len(cur.pts))
	for i, p := range cur.pts {
		payloads[i] = p.GetPayload()
	}
	det := s.mapping.Detect(payloads)
	if len(cur.pts) > 0 {
		for _, f := range required {
			if det.Fields[f] == "" {
				return &MissingFieldError{Field: f, Tried: s.mapping.Candidates(f), PayloadKeys: det.PayloadKeys}
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
	include := qc.NewWithPayloadInclude(keys...)
	total := int(cnt.n)
	for {
		if cur.err != nil {
			return cur.err
		}
		var pending chan page
		if cur.next != nil && len(cur.pts) > 0 {
			pending = make(chan page, 1)
			go func(off *qc.PointId) { pending <- fetch(ctx, off, include) }(cur.next)
		}
		if len(cur.pts) > 0 {
			chunks := make([]retrieval.Chunk, len(cur.pts))
			for i, p := range cur.pts {
				chunks[i] = s.mapping.Decode(pointID(p.GetId()), p.GetPayload())
			}
			if err := fn(chunks, total); err != nil {
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
