package qdranttest

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"strings"

	qc "github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"ragscope/retrieval/provider/bm25"
)

// DefaultRRFK is Qdrant's RRF constant when a query does not set k: a
// point at zero-based position p of a prefetch scores 1/(p + k).
const DefaultRRFK = 2

// inferenceSince is the first Qdrant version that runs qdrant/bm25
// inference for Document queries.
const inferenceSince = "1.15.2"

// SparseBM25 is the "qdrant/bm25" document vector of text, as an
// ingestion script stores it.
func SparseBM25(text string) bm25.Vector { return bm25.Document(text) }

// sparseIndex is one sparse vector's inverted index, as Qdrant keeps
// it: for each index id, the posting list of the points holding it
// (their positions in Collection.Points, in order), built when the
// collection is added. A sparse search visits only the posting lists of
// the query's indices.
type sparseIndex struct {
	// n counts the points holding a non-empty vector.
	n        int
	postings map[uint32][]int
}

// sparseIndexes builds the inverted index of each of c's sparse vectors.
func sparseIndexes(c *Collection) map[string]*sparseIndex {
	out := map[string]*sparseIndex{}
	for name := range c.Sparse {
		ix := &sparseIndex{postings: map[uint32][]int{}}
		for i := range c.Points {
			v, ok := c.Points[i].Sparse[name]
			if !ok || v.Len() == 0 {
				continue
			}
			ix.n++
			for _, idx := range v.Indices {
				ix.postings[idx] = append(ix.postings[idx], i)
			}
		}
		out[name] = ix
	}
	return out
}

// idf is Qdrant's inverse document frequency of an index held by df of n
// points (df the length of its posting list): ln((n − df + 0.5)/(df +
// 0.5) + 1).
func (ix *sparseIndex) idf(idx uint32) float64 {
	df := float64(len(ix.postings[idx]))
	n := float64(ix.n)
	return math.Log((n-df+0.5)/(df+0.5) + 1)
}

// candidates lists, in point order, the points holding any of the
// indices in weights: the only points a sparse search can return (none:
// an empty list, not nil).
func (ix *sparseIndex) candidates(weights map[uint32]float64, points int) []int {
	seen := make([]bool, points)
	out := []int{}
	for idx := range weights {
		for _, p := range ix.postings[idx] {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out
}

// node is a query or one of its prefetches: both search, or fuse their
// own prefetches, under a filter and limit.
type node struct {
	prefetch  []*qc.PrefetchQuery
	query     *qc.Query
	using     string
	filter    *qc.Filter
	params    *qc.SearchParams
	threshold *float32
	limit     *uint64
}

type scored struct {
	p     *Point
	score float32
}

func (s *Server) version() string {
	if s.opts.Version == "" {
		return "1.17.0"
	}
	return s.opts.Version
}

// memo holds the answers of one batch's searches by their request, so a
// batch that repeats a search (a hybrid query's prefetch and the same
// arm queried alone) scans the points once; nil keeps nothing.
type memo map[string][]scored

// memoKey identifies a search: its query, vector, parameters and filters.
// A dense query vector is written as its bits (marshalling it is most of
// the cost of a key).
func memoKey(n node, filters []*qc.Filter) (string, bool) {
	var b strings.Builder
	opts := proto.MarshalOptions{Deterministic: true}
	query := proto.Message(n.query)
	if dense := n.query.GetNearest().GetDense(); dense != nil {
		b.Grow(4*len(dense.GetData()) + 64)
		b.WriteString("dense:")
		var buf [4]byte
		for _, x := range dense.GetData() {
			binary.LittleEndian.PutUint32(buf[:], math.Float32bits(x))
			b.Write(buf[:])
		}
		query = nil
	}
	for _, m := range []proto.Message{query, n.params} {
		if m == nil {
			b.WriteByte(0)
			continue
		}
		raw, err := opts.Marshal(m)
		if err != nil {
			return "", false
		}
		b.Write(raw)
		b.WriteByte(0)
	}
	for _, f := range filters {
		raw, err := opts.Marshal(f)
		if err != nil {
			return "", false
		}
		b.Write(raw)
		b.WriteByte(0)
	}
	b.WriteString(n.using)
	return b.String(), true
}

// run answers n. Filters of the enclosing queries apply to n as well, as
// Qdrant propagates a query's filter to its prefetches.
func (s *Server) run(c *Collection, n node, outer []*qc.Filter, m memo) ([]scored, error) {
	filters := outer
	if n.filter != nil {
		filters = append(append([]*qc.Filter(nil), outer...), n.filter)
	}
	limit := 10
	if n.limit != nil {
		limit = int(*n.limit)
	}
	var (
		hits []scored
		err  error
	)
	if len(n.prefetch) > 0 {
		lists := make([][]scored, len(n.prefetch))
		for i, p := range n.prefetch {
			sub := node{prefetch: p.GetPrefetch(), query: p.GetQuery(), using: p.GetUsing(), filter: p.GetFilter(),
				params: p.GetParams(), threshold: p.ScoreThreshold, limit: p.Limit}
			if lists[i], err = s.run(c, sub, filters, m); err != nil {
				return nil, err
			}
		}
		hits, err = s.combine(c, n, lists)
	} else {
		hits, err = s.memoNearest(c, n, filters, m)
	}
	if err != nil {
		return nil, err
	}
	if n.threshold != nil {
		kept := hits[:0]
		for _, h := range hits {
			if h.score >= *n.threshold {
				kept = append(kept, h)
			}
		}
		hits = kept
	}
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

// combine applies n's query to its prefetches' results: a fusion, or a
// nearest search rescoring their points.
func (s *Server) combine(c *Collection, n node, lists [][]scored) ([]scored, error) {
	switch q := n.query.GetVariant().(type) {
	case *qc.Query_Fusion:
		switch q.Fusion {
		case qc.Fusion_RRF:
			return rrf(lists, DefaultRRFK, nil), nil
		case qc.Fusion_DBSF:
			return dbsf(lists), nil
		}
		return nil, status.Errorf(codes.InvalidArgument, "fake qdrant: unknown fusion %v", q.Fusion)
	case *qc.Query_Rrf:
		k := DefaultRRFK
		if q.Rrf.K != nil {
			k = int(q.Rrf.GetK())
		}
		if w := q.Rrf.GetWeights(); len(w) > 0 && len(w) != len(lists) {
			return nil, status.Errorf(codes.InvalidArgument, "Wrong input: RRF weights count (%d) must match the number of prefetches (%d)", len(w), len(lists))
		}
		return rrf(lists, k, q.Rrf.GetWeights()), nil
	case *qc.Query_Nearest:
		only := map[*Point]bool{}
		for _, l := range lists {
			for _, h := range l {
				only[h.p] = true
			}
		}
		return s.nearest(c, n, nil, only)
	case nil:
		return nil, status.Error(codes.InvalidArgument, "fake qdrant: a query with prefetches needs a query (fusion or nearest)")
	}
	return nil, status.Errorf(codes.InvalidArgument, "fake qdrant: unsupported query %T", n.query.GetVariant())
}

// rrf fuses ranked lists as Qdrant does: a point at zero-based position p
// of list i adds 1/((p+1)/w_i + k − 1), which is 1/(p + k) with the
// default weight 1; ties go to the smaller id.
func rrf(lists [][]scored, k int, weights []float32) []scored {
	sum := map[*Point]float32{}
	var order []*Point
	for i, l := range lists {
		w := float32(1)
		if i < len(weights) {
			w = weights[i]
		}
		if w <= 0 {
			continue
		}
		for pos, h := range l {
			if _, ok := sum[h.p]; !ok {
				order = append(order, h.p)
			}
			sum[h.p] += 1 / (float32(pos+1)/w + float32(k) - 1)
		}
	}
	return ranked(order, sum)
}

// dbsf fuses lists by distribution-based score fusion, as Qdrant does:
// each list's scores are normalised to (s − (μ − 3σ)) / 6σ, σ the sample
// standard deviation (a single point scores 0.5, so do equal scores),
// and a point's normalised scores are summed.
func dbsf(lists [][]scored) []scored {
	sum := map[*Point]float32{}
	var order []*Point
	for _, l := range lists {
		for i, v := range dbsfNorm(l) {
			p := l[i].p
			if _, ok := sum[p]; !ok {
				order = append(order, p)
			}
			sum[p] += v
		}
	}
	return ranked(order, sum)
}

func dbsfNorm(l []scored) []float32 {
	out := make([]float32, len(l))
	if len(l) < 2 {
		for i := range out {
			out[i] = 0.5
		}
		return out
	}
	var mean, agg float64
	for i, h := range l {
		old := float64(h.score) - mean
		mean += old / float64(i+1)
		agg += old * (float64(h.score) - mean)
	}
	sd := math.Sqrt(agg / float64(len(l)-1))
	lo, hi := mean-3*sd, mean+3*sd
	for i, h := range l {
		if hi == lo {
			out[i] = 0.5
			continue
		}
		out[i] = float32((float64(h.score) - lo) / (hi - lo))
	}
	return out
}

func ranked(order []*Point, sum map[*Point]float32) []scored {
	out := make([]scored, len(order))
	for i, p := range order {
		out[i] = scored{p, sum[p]}
	}
	sortScored(out)
	return out
}

// sortScored orders by score, best first, then by id.
func sortScored(hits []scored) {
	slices.SortStableFunc(hits, func(a, b scored) int {
		if a.score != b.score {
			return cmp.Compare(b.score, a.score)
		}
		return strings.Compare(a.p.idKey(), b.p.idKey())
	})
}

// idKey is the point's id order key, made once by AddCollection.
func (p *Point) idKey() string {
	if p.key == "" {
		return idKeyOf(*p)
	}
	return p.key
}

// memoNearest is nearest, answered from m when the batch already ran the
// same search (a copy: callers trim it).
func (s *Server) memoNearest(c *Collection, n node, filters []*qc.Filter, m memo) ([]scored, error) {
	key, ok := memoKey(n, filters)
	if m != nil && ok {
		if hits, found := m[key]; found {
			return append([]scored(nil), hits...), nil
		}
	}
	hits, err := s.nearest(c, n, filters, nil)
	if err == nil && m != nil && ok {
		m[key] = append([]scored(nil), hits...)
	}
	return hits, err
}

// nearest scores the points (only those in only, when set) that the
// filters keep against n's nearest query on the vector n.using names: a
// dense search scores every point, a sparse one the points its inverted
// index lists for the query's indices.
func (s *Server) nearest(c *Collection, n node, filters []*qc.Filter, only map[*Point]bool) ([]scored, error) {
	in := n.query.GetNearest()
	if in == nil {
		return nil, status.Error(codes.InvalidArgument, "fake qdrant: only nearest and fusion queries are supported")
	}
	score, cands, err := s.scorer(c, n, in)
	if err != nil {
		return nil, err
	}
	exact := n.params.GetExact()
	var hits []scored
	count := len(c.Points)
	if cands != nil {
		count = len(cands)
	}
	for k := range count {
		i := k
		if cands != nil {
			i = cands[k]
		}
		p := &c.Points[i]
		if only != nil && !only[p] {
			continue
		}
		if p.Unreachable && !exact {
			continue
		}
		ok := true
		for _, f := range filters {
			m, err := matchFilter(f, p)
			if err != nil {
				return nil, err
			}
			ok = ok && m
		}
		if !ok {
			continue
		}
		if sc, hit := score(p); hit {
			hits = append(hits, scored{p, sc})
		}
	}
	sortScored(hits)
	return hits, nil
}

// scorer returns how a point scores against the input on n.using, and
// whether it is a hit (a sparse search only returns points sharing an
// index with the query), with the points worth scoring: for a sparse
// search those the inverted index lists, nil (every point) for a dense
// one.
func (s *Server) scorer(c *Collection, n node, in *qc.VectorInput) (func(*Point) (float32, bool), []int, error) {
	if mod, ok := c.Sparse[n.using]; ok && n.using != "" {
		q, err := s.sparseInput(in)
		if err != nil {
			return nil, nil, err
		}
		weights := make(map[uint32]float64, q.Len())
		ix := c.sparse[n.using]
		for i, idx := range q.Indices {
			w := float64(q.Values[i])
			if mod == qc.Modifier_Idf {
				w *= ix.idf(idx)
			}
			weights[idx] += w
		}
		name := n.using
		// Each candidate is scored over its own vector, in its order, so
		// the sums are those of a scan of every point.
		return func(p *Point) (float32, bool) {
			v := p.Sparse[name]
			var sum float64
			hit := false
			for i, idx := range v.Indices {
				if w, ok := weights[idx]; ok {
					sum += w * float64(v.Values[i])
					hit = true
				}
			}
			return float32(sum), hit
		}, ix.candidates(weights, len(c.Points)), nil
	}
	if n.using != c.VectorName {
		return nil, nil, status.Errorf(codes.InvalidArgument, "Wrong input: Not existing vector name error: %s", n.using)
	}
	if doc := in.GetDocument(); doc != nil {
		return nil, nil, status.Errorf(codes.InvalidArgument, "Wrong input: fake qdrant has no inference for dense model %q", doc.GetModel())
	}
	vec := in.GetDense().GetData()
	if vec == nil {
		return nil, nil, status.Error(codes.InvalidArgument, "Wrong input: a dense vector needs a dense query")
	}
	if len(vec) != c.Dim {
		return nil, nil, status.Errorf(codes.InvalidArgument, "Wrong input: Vector dimension error: expected dim: %d, got %d", c.Dim, len(vec))
	}
	rescoreOff := false
	if c.Quantized && !n.params.GetExact() {
		if qp := n.params.GetQuantization(); qp != nil && qp.Rescore != nil && !qp.GetRescore() {
			rescoreOff = true
		}
	}
	d := distance(c)
	return func(p *Point) (float32, bool) {
		pv := p.Vector
		if rescoreOff {
			pv = quantize(pv)
		}
		return score(d, vec, pv), true
	}, nil, nil
}

// sparseInput is the query's sparse vector: given, or inferred from a
// Document with the qdrant/bm25 model.
func (s *Server) sparseInput(in *qc.VectorInput) (bm25.Vector, error) {
	if sv := in.GetSparse(); sv != nil {
		return bm25.Vector{Indices: sv.GetIndices(), Values: sv.GetValues()}, nil
	}
	doc := in.GetDocument()
	if doc == nil {
		return bm25.Vector{}, status.Error(codes.InvalidArgument, "Wrong input: a sparse vector needs a sparse query or a document")
	}
	if !versionAtLeast(s.version(), inferenceSince) {
		return bm25.Vector{}, status.Errorf(codes.InvalidArgument, "Wrong input: inference of documents needs Qdrant %s or later (this is %s)", inferenceSince, s.version())
	}
	if !strings.EqualFold(doc.GetModel(), bm25.Model) {
		return bm25.Vector{}, status.Errorf(codes.InvalidArgument, "Wrong input: model %q is not available for inference", doc.GetModel())
	}
	return bm25.Query(doc.GetText()), nil
}

// versionAtLeast compares dotted versions numerically.
func versionAtLeast(have, want string) bool {
	h, w := strings.Split(have, "."), strings.Split(want, ".")
	for i := range max(len(h), len(w)) {
		var a, b int
		if i < len(h) {
			a, _ = strconv.Atoi(h[i])
		}
		if i < len(w) {
			b, _ = strconv.Atoi(w[i])
		}
		if a != b {
			return a > b
		}
	}
	return true
}
