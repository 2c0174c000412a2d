package qdrant

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	qc "github.com/qdrant/go-client/qdrant"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/bm25"
)

// Fusion settings: how a collection with a dense and a sparse vector is
// searched.
const (
	// FusionAuto is hybrid (RRF) when the collection has a sparse vector
	// beside a dense one, else dense.
	FusionAuto   = ""
	FusionRRF    = "rrf"
	FusionDBSF   = "dbsf"
	FusionDense  = "dense"
	FusionSparse = "sparse"
)

// DefaultRRFK is Qdrant's RRF constant when a query sets none: a point
// at zero-based position p of an arm adds 1/(p + k).
const DefaultRRFK = 2

// PrefetchFactor sets the default prefetch limit: each arm of a hybrid
// query returns this many times the query's limit.
const PrefetchFactor = 5

// inferenceSince is the first Qdrant version that encodes qdrant/bm25
// Document queries itself.
const inferenceSince = "1.15.2"

// ParseFusion checks a fusion setting ("" is auto).
func ParseFusion(s string) (string, error) {
	switch f := strings.ToLower(strings.TrimSpace(s)); f {
	case FusionAuto, "auto":
		return FusionAuto, nil
	case FusionRRF, FusionDBSF, FusionDense, FusionSparse:
		return f, nil
	}
	return "", fmt.Errorf("%q is not a fusion: use rrf, dbsf, dense or sparse", s)
}

// Plan is how the store searches its collection.
type Plan struct {
	// Fusion is rrf, dbsf (both arms, fused), dense or sparse (one arm).
	Fusion string
	// DenseVector and SparseVector name the arms' vectors ("" for an
	// unnamed dense vector, or an arm not searched).
	DenseVector, SparseVector string
	// SparseModel is the model the sparse vector is taken to be made by.
	SparseModel string
	// RRFK is the RRF constant (DefaultRRFK unless set).
	RRFK int
	// PrefetchLimit is each arm's limit; 0: PrefetchFactor × the query's.
	PrefetchLimit int
}

// Hybrid reports whether the plan fuses two arms.
func (p Plan) Hybrid() bool { return p.Fusion == FusionRRF || p.Fusion == FusionDBSF }

// Describe says how the plan searches, naming the query embedder's model
// on the dense arm when given: "hybrid: dense (embed-english-v3.0) + bm25
// (qdrant/bm25), RRF k=2"; "" for a dense search.
func (p Plan) Describe(embedModel string) string {
	dense := orName(p.DenseVector, "dense")
	if embedModel != "" {
		dense += " (" + embedModel + ")"
	}
	sparse := orName(p.SparseVector, "sparse") + " (" + p.SparseModel + ")"
	switch p.Fusion {
	case FusionRRF:
		return fmt.Sprintf("hybrid: %s + %s, RRF k=%d", dense, sparse, p.RRFK)
	case FusionDBSF:
		return fmt.Sprintf("hybrid: %s + %s, DBSF", dense, sparse)
	case FusionSparse:
		return "sparse: " + sparse
	}
	return ""
}

func orName(name, def string) string {
	if name == "" {
		return def
	}
	return name
}

// sparseLabel names a sparse arm for people: "bm25" for qdrant/bm25.
func sparseLabel(model string) string {
	if strings.EqualFold(model, bm25.Model) {
		return "bm25"
	}
	return "sparse"
}

// SearchPlan returns how searches go, reading the collection once. A
// collection whose sparse vector ragscope cannot encode fails here with
// an error matching retrieval.ErrConfig.
func (s *Store) SearchPlan(ctx context.Context) (Plan, error) {
	sh, err := s.shape(ctx)
	if err != nil {
		return Plan{}, err
	}
	return sh.plan, sh.planErr
}

// KnownPlan returns the search plan when a call has already read the
// collection (no network call); false before, or when the plan cannot run.
func (s *Store) KnownPlan() (Plan, bool) {
	s.mu.Lock()
	sh := s.info
	s.mu.Unlock()
	if sh == nil || sh.planErr != nil {
		return Plan{}, false
	}
	return sh.plan, true
}

// ArmFusion names how a hybrid search fuses its arms: "rrf" with its k,
// or "dbsf"; "" for a search of one arm, and before a call has read the
// collection.
func (s *Store) ArmFusion() (method string, k int) {
	p, ok := s.KnownPlan()
	switch {
	case !ok || !p.Hybrid():
		return "", 0
	case p.Fusion == FusionRRF:
		return p.Fusion, p.RRFK
	}
	return p.Fusion, 0
}

// planSparse reads the sparse vectors of info into sh and decides the
// plan; a plan that cannot run is kept in sh.planErr (stats still
// describe the collection).
func (s *Store) planSparse(info *qc.CollectionInfo, sh *collectionShape) {
	m := info.GetConfig().GetParams().GetSparseVectorsConfig().GetMap()
	for name := range m {
		sh.sparseNames = append(sh.sparseNames, name)
	}
	sort.Strings(sh.sparseNames)
	sh.modifiers = map[string]string{}
	for _, name := range sh.sparseNames {
		mod := "none"
		if m[name].GetModifier() == qc.Modifier_Idf {
			mod = "idf"
		}
		sh.modifiers[name] = mod
	}
	sh.plan, sh.planErr = s.decide(sh)
}

func (s *Store) decide(sh *collectionShape) (Plan, error) {
	p := Plan{Fusion: s.fusion, DenseVector: sh.vectorName, RRFK: s.rrfK, PrefetchLimit: s.prefetchLimit}
	if p.RRFK <= 0 {
		p.RRFK = DefaultRRFK
	}
	hasDense := sh.vectorSize > 0
	if s.wantSparse != "" {
		if _, ok := sh.modifiers[s.wantSparse]; !ok {
			return p, &Error{Kind: KindBadRequest, Op: "collection info",
				Msg: fmt.Sprintf("Collection %q has no sparse vector named %q; it has: %s.", s.collection, s.wantSparse, listOrNone(sh.sparseNames))}
		}
		p.SparseVector = s.wantSparse
	} else if len(sh.sparseNames) > 0 {
		p.SparseVector = sh.sparseNames[0]
	}
	if p.Fusion == FusionAuto {
		switch {
		case p.SparseVector != "" && hasDense:
			p.Fusion = FusionRRF
		case !hasDense && p.SparseVector != "":
			p.Fusion = FusionSparse
		default:
			p.Fusion = FusionDense
		}
	}
	if p.Fusion == FusionDense {
		p.SparseVector = ""
		return p, nil
	}
	if p.SparseVector == "" {
		return p, &Error{Kind: KindBadRequest, Op: "collection info",
			Msg: fmt.Sprintf("Collection %q has no sparse vector, so fusion %q cannot run: use --fusion dense.", s.collection, p.Fusion)}
	}
	if p.Fusion != FusionSparse && !hasDense {
		return p, &Error{Kind: KindBadRequest, Op: "collection info",
			Msg: fmt.Sprintf("Collection %q has no dense vector, so fusion %q cannot run: use --fusion sparse.", s.collection, p.Fusion)}
	}
	p.SparseModel = s.sparseModel
	if p.SparseModel == "" && sh.modifiers[p.SparseVector] == "idf" {
		p.SparseModel = bm25.Model
	}
	switch {
	case p.SparseModel == "":
		return p, &Error{Kind: KindSparseModel, Op: "collection info",
			Msg: fmt.Sprintf("Collection %q: sparse vector %q has no idf modifier, so it is not qdrant/bm25 (a SPLADE model?) and ragscope cannot encode questions for it: search the dense vector alone with --fusion dense (fusion = \"dense\" in ragscope.toml), or set sparse_model if it is BM25.", s.collection, p.SparseVector)}
	case !strings.EqualFold(p.SparseModel, bm25.Model):
		return p, &Error{Kind: KindSparseModel, Op: "collection info",
			Msg: fmt.Sprintf("Collection %q: sparse vector %q is made by %s, which ragscope cannot run (it encodes qdrant/bm25 only): search the dense vector alone with --fusion dense (fusion = \"dense\" in ragscope.toml).", s.collection, p.SparseVector, p.SparseModel)}
	}
	p.SparseModel = bm25.Model
	return p, nil
}

// vectorInfos lists the collection's vectors for Stats.
func vectorInfos(info *qc.CollectionInfo, sh *collectionShape) []retrieval.VectorInfo {
	var out []retrieval.VectorInfo
	vc := info.GetConfig().GetParams().GetVectorsConfig()
	usesDense := sh.plan.Fusion != FusionSparse
	if p := vc.GetParams(); p != nil {
		out = append(out, retrieval.VectorInfo{Kind: "dense", Size: int(p.GetSize()), Distance: distanceName(p.GetDistance()), Used: usesDense})
	}
	for _, name := range sh.named {
		p := vc.GetParamsMap().GetMap()[name]
		out = append(out, retrieval.VectorInfo{Name: name, Kind: "dense", Size: int(p.GetSize()), Distance: distanceName(p.GetDistance()),
			Used: usesDense && name == sh.vectorName})
	}
	for _, name := range sh.sparseNames {
		vi := retrieval.VectorInfo{Name: name, Kind: "sparse", Modifier: sh.modifiers[name], Used: name == sh.plan.SparseVector && sh.planErr == nil}
		if name == sh.plan.SparseVector {
			vi.Model = sh.plan.SparseModel
		}
		out = append(out, vi)
	}
	return out
}

// armQuery is one query of a search: the fused (or only) one, or an arm
// queried alone for its own ranking.
type armQuery struct {
	q      *qc.QueryPoints
	label  string
	vector string
}

// plannedQueries builds req's queries: one for a single-arm plan; for a
// hybrid plan the fused query, then each arm alone to the prefetch limit
// (ids and scores only), sent together so the arms' ranks cost no extra
// round trip.
func (s *Store) plannedQueries(ctx context.Context, req retrieval.SearchRequest) ([]armQuery, error) {
	sh, err := s.shape(ctx)
	if err != nil {
		return nil, err
	}
	if sh.planErr != nil {
		return nil, sh.planErr
	}
	p := sh.plan
	if p.Fusion == FusionDense {
		q, err := s.queryPoints(ctx, req)
		return []armQuery{{q: q}}, err
	}
	limit := retrieval.TopKOrDefault(req.Limit)
	var filter *qc.Filter
	if !req.Filters.IsEmpty() {
		if filter, err = s.filter(ctx, req.Filters); err != nil {
			return nil, err
		}
	}
	sparse := s.sparseQuery(ctx, req.Text)
	if p.Fusion == FusionSparse {
		q := &qc.QueryPoints{CollectionName: s.collection, Query: sparse, Using: qc.PtrOf(p.SparseVector),
			Filter: filter, Limit: qc.PtrOf(uint64(limit)), WithPayload: qc.NewWithPayload(!req.IDsOnly)}
		if req.Threshold > 0 {
			q.ScoreThreshold = qc.PtrOf(float32(req.Threshold))
		}
		return []armQuery{{q: q}}, nil
	}
	dense, err := s.queryPoints(ctx, retrieval.SearchRequest{Vector: req.Vector, Limit: limit, Exact: req.Exact, Rescore: req.Rescore})
	if err != nil {
		return nil, err
	}
	pl := p.PrefetchLimit
	if pl <= 0 {
		pl = PrefetchFactor * limit
	}
	pl = max(pl, limit)
	fusion := qc.NewQueryFusion(qc.Fusion_DBSF)
	if p.Fusion == FusionRRF {
		fusion = qc.NewQueryFusion(qc.Fusion_RRF)
		if p.RRFK != DefaultRRFK {
			fusion = qc.NewQueryRRF(&qc.Rrf{K: qc.PtrOf(uint32(p.RRFK))})
		}
	}
	densePF := &qc.PrefetchQuery{Query: dense.Query, Using: dense.Using, Params: dense.Params, Limit: qc.PtrOf(uint64(pl))}
	sparsePF := &qc.PrefetchQuery{Query: sparse, Using: qc.PtrOf(p.SparseVector), Limit: qc.PtrOf(uint64(pl))}
	fused := &qc.QueryPoints{CollectionName: s.collection, Prefetch: []*qc.PrefetchQuery{densePF, sparsePF}, Query: fusion,
		Filter: filter, Limit: qc.PtrOf(uint64(limit)), WithPayload: qc.NewWithPayload(!req.IDsOnly)}
	if req.Threshold > 0 {
		fused.ScoreThreshold = qc.PtrOf(float32(req.Threshold))
	}
	arm := func(pf *qc.PrefetchQuery) *qc.QueryPoints {
		q := &qc.QueryPoints{CollectionName: s.collection, Query: pf.Query, Using: pf.Using, Params: pf.Params,
			Filter: filter, Limit: pf.Limit, WithPayload: qc.NewWithPayload(false)}
		if req.ArmHits != nil {
			// The arms' own rankings to the query's limit, with the
			// payload eval grades them by (not the text, the bulk of
			// it, nor the other fields grading never reads): the hits'
			// arm ranks then reach that far only.
			q.Limit, q.WithPayload = qc.PtrOf(uint64(limit)), s.forGrading
		}
		return q
	}
	return []armQuery{
		{q: fused},
		{q: arm(densePF), label: "dense", vector: p.DenseVector},
		{q: arm(sparsePF), label: sparseLabel(p.SparseModel), vector: p.SparseVector},
	}, nil
}

// sparseQuery encodes the question for the sparse arm: as a Document the
// server encodes with qdrant/bm25 when it can (1.15.2 and later), else
// with ragscope's own encoder, which gives the same vector.
func (s *Store) sparseQuery(ctx context.Context, text string) *qc.Query {
	if s.serverInfers(ctx) {
		return qc.NewQueryNearest(qc.NewVectorInputDocument(&qc.Document{Text: text, Model: bm25.Model}))
	}
	v := bm25.Query(text)
	return qc.NewQuerySparse(v.Indices, v.Values)
}

// serverInfers asks the server's version once; a server that does not
// answer is taken not to infer.
func (s *Store) serverInfers(ctx context.Context) bool {
	v, _ := cached(s, &s.version, func() (*string, error) {
		r, err := fetch(ctx, s, "health check", s.client.HealthCheck)
		if err != nil {
			none := ""
			return &none, nil
		}
		v := r.GetVersion()
		return &v, nil
	})
	return v != nil && *v != "" && versionAtLeast(*v, inferenceSince)
}

// versionAtLeast compares dotted versions numerically ("1.15.2-rc" reads
// as 1.15.2).
func versionAtLeast(have, want string) bool {
	num := func(s string) int {
		end := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
		if end >= 0 {
			s = s[:end]
		}
		n, _ := strconv.Atoi(s)
		return n
	}
	h, w := strings.Split(strings.TrimPrefix(have, "v"), "."), strings.Split(want, ".")
	for i := range max(len(h), len(w)) {
		var a, b int
		if i < len(h) {
			a = num(h[i])
		}
		if i < len(w) {
			b = num(w[i])
		}
		if a != b {
			return a > b
		}
	}
	return true
}

// withArms decodes the fused (or only) result, placing each point in the
// arms' own rankings; armHits, when not nil, receives the arms' rankings.
func (s *Store) withArms(qs []armQuery, results [][]*qc.ScoredPoint, armHits *[]retrieval.ArmList) []retrieval.ScoredChunk {
	out := s.decode(results[0])
	if len(qs) == 1 {
		return out
	}
	if armHits != nil {
		*armHits = s.armLists(qs, results, out)
	}
	type place struct {
		rank  int
		score float64
		part  *float64
	}
	plan, known := s.KnownPlan()
	places := make([]map[string]place, len(qs)-1)
	for i, r := range results[1:] {
		places[i] = make(map[string]place, len(r))
		parts := armParts(plan, known && armHits == nil, r)
		for j, p := range r {
			places[i][pointID(p.GetId())] = place{j + 1, float64(p.GetScore()), parts[j]}
		}
	}
	for i := range out {
		arms := make([]retrieval.Arm, len(places))
		for a, m := range places {
			pl, ok := m[out[i].Chunk.ID]
			if !ok && known && armHits == nil {
				// The arm, queried to the prefetch limit, did not
				// return the point: it adds nothing to the fusion.
				pl.part = new(0.0)
			}
			arms[a] = retrieval.Arm{Label: qs[a+1].label, Vector: qs[a+1].vector, Rank: pl.rank, Score: pl.score, Part: pl.part}
		}
		out[i].Arms = arms
	}
	return out
}

// armParts is each point's part of the fused score in one arm's own
// ranking r, as the server's fusion under plan counts it (RRF from the
// rank, DBSF from the arm's scores normalised); nil where it cannot be
// told: DBSF on an arm ranking that is not the whole prefetch (whole
// false), or a plan not known.
func armParts(plan Plan, whole bool, r []*qc.ScoredPoint) []*float64 {
	out := make([]*float64, len(r))
	switch {
	case plan.Fusion == FusionRRF:
		for j := range r {
			out[j] = new(retrieval.RRFPart(j+1, plan.RRFK))
		}
	case plan.Fusion == FusionDBSF && whole:
		scores := make([]float64, len(r))
		for j, p := range r {
			scores[j] = float64(p.GetScore())
		}
		for j, v := range retrieval.DBSFNorm(scores) {
			out[j] = new(v)
		}
	}
	return out
}

// armLists decodes the arms' own rankings (results[1:]). A point the
// fused query also returned (with its whole payload) takes the fused
// hit's decoded chunk: decoded once, from a payload holding all that the
// arm's holds.
func (s *Store) armLists(qs []armQuery, results [][]*qc.ScoredPoint, fused []retrieval.ScoredChunk) []retrieval.ArmList {
	var byID map[string]*retrieval.Chunk
	if qs[0].q.GetWithPayload().GetEnable() {
		byID = make(map[string]*retrieval.Chunk, len(fused))
		for i := range fused {
			byID[fused[i].Chunk.ID] = &fused[i].Chunk
		}
	}
	lists := make([]retrieval.ArmList, len(qs)-1)
	for i, r := range results[1:] {
		hits := make([]retrieval.ScoredChunk, len(r))
		for j, p := range r {
			id := pointID(p.GetId())
			if c, ok := byID[id]; ok {
				hits[j] = retrieval.ScoredChunk{Chunk: *c, Score: float64(p.GetScore())}
				continue
			}
			hits[j] = retrieval.ScoredChunk{Chunk: s.mapping.Decode(id, p.GetPayload()), Score: float64(p.GetScore())}
		}
		lists[i] = retrieval.ArmList{Label: qs[i+1].label, Vector: qs[i+1].vector, Hits: hits}
	}
	return lists
}
