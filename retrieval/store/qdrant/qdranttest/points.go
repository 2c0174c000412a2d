package qdranttest

// The points service: Count, Scroll, Query and QueryBatch over the
// collections held in memory.

import (
	"context"
	"math"
	"slices"
	"sort"

	qc "github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Count counts the points matching the filter.
func (ps pointsService) Count(_ context.Context, r *qc.CountPoints) (*qc.CountResponse, error) {
	s := ps.s
	if s.opts.RefuseCount {
		return nil, status.Error(codes.InvalidArgument, "Bad request: Count is disabled by strict mode")
	}
	c, err := s.collection(r.GetCollectionName())
	if err != nil {
		return nil, err
	}
	var n uint64
	for i := range c.Points {
		ok, err := matchFilter(r.GetFilter(), &c.Points[i])
		if err != nil {
			return nil, err
		}
		if ok {
			n++
		}
	}
	return &qc.CountResponse{Result: &qc.CountResult{Count: n}}, nil
}

// Scroll pages through the points in id order.
func (ps pointsService) Scroll(_ context.Context, r *qc.ScrollPoints) (*qc.ScrollResponse, error) {
	s := ps.s
	c, err := s.collection(r.GetCollectionName())
	if err != nil {
		return nil, err
	}
	s.recordScroll(r.GetWithPayload())
	pts := s.sortedPoints(r.GetCollectionName(), c)
	start := 0
	if off := r.GetOffset(); off != nil {
		key := idKey(off)
		start = sort.Search(len(pts), func(i int) bool { return idKeyOf(pts[i]) >= key })
	}
	limit := int(r.GetLimit())
	if r.Limit == nil {
		limit = 10
	}
	resp := &qc.ScrollResponse{}
	for i := start; i < len(pts); i++ {
		ok, err := matchFilter(r.GetFilter(), &pts[i])
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if len(resp.Result) == limit {
			resp.NextPageOffset = pointID(pts[i])
			break
		}
		resp.Result = append(resp.Result, &qc.RetrievedPoint{Id: pointID(pts[i]), Payload: selectPayload(r.GetWithPayload(), pts[i].Payload)})
	}
	return resp, nil
}

// Query runs a query: an exact nearest-neighbour search on a dense or
// sparse vector, or a fusion (RRF, DBSF) of prefetches; see query.go.
func (ps pointsService) Query(_ context.Context, r *qc.QueryPoints) (*qc.QueryResponse, error) {
	return ps.query(r.GetCollectionName(), r, nil)
}

// query answers r on the collection named coll (a batch's, for a batched
// query), reusing the batch's answers in m (nil: none).
func (ps pointsService) query(coll string, r *qc.QueryPoints, m memo) (*qc.QueryResponse, error) {
	s := ps.s
	c, err := s.collection(coll)
	if err != nil {
		return nil, err
	}
	if s.opts.StrictFilters {
		if key, ok := unindexedKey(r.GetFilter(), c.Indexed); ok {
			return nil, status.Errorf(codes.InvalidArgument, "Bad request: Index required but not found for %q of one of the following types: [keyword]. Help: Create an index for this key or use a different filter.", key)
		}
	}
	if s.opts.RefuseExact && r.GetParams().GetExact() {
		return nil, status.Error(codes.InvalidArgument, "Bad request: Exact search disabled by strict mode")
	}
	top := node{
		prefetch: r.GetPrefetch(), query: r.GetQuery(), using: r.GetUsing(), filter: r.GetFilter(),
		params: r.GetParams(), threshold: r.ScoreThreshold, limit: r.Limit,
	}
	hits, err := s.run(c, top, nil, m)
	if err != nil {
		return nil, err
	}
	off := int(r.GetOffset())
	if off > len(hits) {
		off = len(hits)
	}
	hits = hits[off:]
	resp := &qc.QueryResponse{Result: make([]*qc.ScoredPoint, len(hits))}
	for i, h := range hits {
		resp.Result[i] = &qc.ScoredPoint{Id: pointID(*h.p), Score: h.score, Payload: selectPayload(r.GetWithPayload(), h.p.Payload)}
	}
	return resp, nil
}

// QueryBatch runs each query against the batch's collection; like Qdrant,
// one invalid query fails the whole batch.
func (ps pointsService) QueryBatch(_ context.Context, r *qc.QueryBatchPoints) (*qc.QueryBatchResponse, error) {
	resp := &qc.QueryBatchResponse{Result: make([]*qc.BatchResult, len(r.GetQueryPoints()))}
	m := memo{}
	for i, q := range r.GetQueryPoints() {
		res, err := ps.query(r.GetCollectionName(), q, m)
		if err != nil {
			return nil, err
		}
		resp.Result[i] = &qc.BatchResult{Result: res.GetResult()}
	}
	return resp, nil
}

func score(d qc.Distance, a, b []float32) float32 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if d == qc.Distance_Dot {
		return float32(dot)
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return float32(dot / math.Sqrt(na*nb))
}

func selectPayload(sel *qc.WithPayloadSelector, p map[string]*qc.Value) map[string]*qc.Value {
	switch {
	case sel == nil || (sel.GetInclude() == nil && sel.GetExclude() == nil && !sel.GetEnable()):
		return nil
	case sel.GetInclude() != nil:
		out := map[string]*qc.Value{}
		for _, k := range sel.GetInclude().GetFields() {
			if v, ok := p[k]; ok {
				out[k] = v
			}
		}
		return out
	case sel.GetExclude() != nil:
		drop := sel.GetExclude().GetFields()
		out := make(map[string]*qc.Value, len(p))
		for k, v := range p {
			if !slices.Contains(drop, k) {
				out[k] = v
			}
		}
		return out
	}
	return p
}

// ScrollFields returns, for every Scroll received, the payload keys it
// asked for: nil for the whole payload, an empty list for none.
func (s *Server) ScrollFields() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]string(nil), s.scrollFields...)
}

func (s *Server) recordScroll(sel *qc.WithPayloadSelector) {
	var fields []string
	switch {
	case sel.GetInclude() != nil:
		fields = append([]string{}, sel.GetInclude().GetFields()...)
	case sel.GetExclude() != nil:
	case sel == nil || !sel.GetEnable():
		fields = []string{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scrollFields = append(s.scrollFields, fields)
}
