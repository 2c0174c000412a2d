package local

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"ragscope/retrieval"
	"ragscope/retrieval/store/local/embed"
)

// SearchMode is how a local index ranks chunks for a question.
type SearchMode string

// Search modes.
const (
	// ModeHybrid fuses BM25 and the embedder's similarity.
	ModeHybrid SearchMode = "hybrid"
	// ModeBM25 ranks by BM25 alone (the default).
	ModeBM25 SearchMode = "bm25"
	// ModeEmbedder ranks by the embedder's cosine similarity alone.
	ModeEmbedder SearchMode = "embedder"
)

// SearchModes returns the modes, the default first.
func SearchModes() []SearchMode { return []SearchMode{DefaultMode, ModeHybrid, ModeEmbedder} }

// DefaultMode is the mode of an index no mode was chosen for: BM25, which
// no fusion with the offline embedder tried beat, together with the
// embedder alone, on the held-back halves of the reader-phrased sets
// (TestDefaultChosenOnHeldBack; the local-search section of docs/retrieval.md).
const DefaultMode = ModeBM25

// ParseSearchMode reads a mode name ("" is the default, DefaultMode).
func ParseSearchMode(s string) (SearchMode, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return DefaultMode, nil
	}
	for _, m := range SearchModes() {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("%w: unknown local search mode %q: use bm25, hybrid or embedder", retrieval.ErrConfig, s)
}

// String returns the mode's name.
func (m SearchMode) String() string { return string(m) }

// fusion is how a hybrid search fuses its scores: a blend
//
//	(vec*cosine + (1-vec)*BM25 + title*titleMatch) / (1 + title)
//
// with BM25 over the most the question's terms could score (0..1), so a
// fused score reads like a similarity (at most 1) and a threshold keeps its
// meaning. Only each side's best candidates are blended: a chunk outside
// both lists is beaten on both scores by every chunk of either list (a
// chunk whose title the question names has BM25 evidence and is among
// BM25's candidates but in corpora of many such pages).
type fusion struct {
	method     fusionMethod
	vec        float64
	title      float64
	candidates int
	// rrfK is reciprocal rank fusion's k (method fuseRRF).
	rrfK float64
	// heading weights the question's terms found in a chunk's title and
	// section heading as a field of their own (BM25F-style): the BM25 side
	// becomes (BM25 + heading×h)/(1 + heading), h the share of the
	// question's IDF the headings hold. 0: plain BM25.
	heading float64
	// expand adds to the BM25 side's question each term's expand nearest
	// words in the word vectors that the corpus has (cosine at least
	// expandMin), weighted expandW times their cosine. 0: no expansion.
	expand    int
	expandW   float64
	expandMin float64
}

// fusionMethod is how a fusion combines its two sides.
type fusionMethod int

const (
	// fuseBlend blends the raw cosine and BM25/best (see fusion).
	fuseBlend fusionMethod = iota
	// fuseRRF sums vec/(k+cosine rank) and (1-vec)/(k+BM25 rank).
	fuseRRF
	// fuseMinMax rescales each side to 0..1 over the question's
	// candidates (min-max) before the weighted sum.
	fuseMinMax
)

// defaultFusion is the fusion a hybrid search uses. The weights were
// chosen with the paraphrase golden sets (TestTuneFusion; docs/performance.md's
// benchmark table): the demo's, on the demo and on the demo hidden among
// generated pages (2,400 and 11,000 chunks), and the generated pages' own.
// Of the cosine weights 0.5..0.9, 0.8 and 0.9 beat both BM25 and the
// embedder alone in the most of those five runs (all but the generated set
// at 11,000 chunks, where BM25 wins), 0.8 with the better MRR on the demo
// and the generated set; 0.7 does best on the demo alone but loses two
// runs at 11,000 chunks. Reciprocal rank fusion (k 5 to 60, with
// and without weights) and BM25 scaled by the question's best score did
// worse than this blend on the demo. The title match changes none of those
// (paraphrases do not name a page) and puts the page a question names
// first ("What is ROS 2?"); 0.1 to 0.3 all do that.
var defaultFusion = fusion{vec: 0.8, title: 0.2, candidates: 100}

// providerFusion is the fusion a hybrid search of an index built with a
// provider's embeddings uses: reciprocal rank fusion (k 60, equal
// weights) of the cosine and BM25, plus the title match. A provider's
// model cannot be measured here (no network in tests), so it is not the
// blend tuned on the offline embedder's cosines: rank fusion needs no
// score scale, and is what beats either arm on public benchmarks.
var providerFusion = fusion{method: fuseRRF, rrfK: 60, vec: 0.5, title: 0.2, candidates: 100}

func (f fusion) String() string {
	lexical := "BM25"
	if f.heading > 0 {
		lexical = fmt.Sprintf("BM25 with its heading field ×%g", f.heading)
	}
	switch f.method {
	case fuseRRF:
		return fmt.Sprintf("RRF (k %g) of cosine and %s + title match", f.rrfK0(), lexical)
	case fuseMinMax:
		return fmt.Sprintf("%.2g×cosine + %.2g×%s, each min-max scaled, + title match", f.vec, 1-f.vec, lexical)
	}
	return fmt.Sprintf("%.2g×cosine + %.2g×%s + title match", f.vec, 1-f.vec, lexical)
}

// rrfK0 is reciprocal rank fusion's k: f.rrfK, 60 when unset.
func (f fusion) rrfK0() float64 {
	if f.rrfK <= 0 {
		return 60
	}
	return f.rrfK
}

// baseFusion is the index's hybrid fusion: providerFusion for a
// provider's vectors, else defaultFusion.
func (ix *Index) baseFusion() fusion {
	if ix.info.Provider != "" {
		return providerFusion
	}
	return defaultFusion
}

// DefaultSearchMode is the mode the index searches in when none is
// configured: hybrid (providerFusion) for an index of a provider's
// embeddings, which a question is embedded for anyway, else DefaultMode.
func (ix *Index) DefaultSearchMode() SearchMode {
	if ix.info.Provider != "" {
		return ModeHybrid
	}
	return DefaultMode
}

// WithMode returns a view of the index that ranks in mode m: a shallow
// copy sharing every chunk, vector, posting list and lazily computed part
// with ix, which is left as it was. A view is cheap (one small struct), so
// a search running on ix or another view is never disturbed by a change
// of mode: take a view per mode, or per search. A mode other than embedder
// needs the index's lexical side, which Build, NewIndex and LoadIndex make
// or load.
func (ix *Index) WithMode(m SearchMode) (*Index, error) {
	m, err := ParseSearchMode(string(m))
	if err != nil {
		return nil, err
	}
	v := *ix
	v.mode = m
	return &v, nil
}

// WithSearchMode implements retrieval.ModalStore: WithMode for a mode's
// name ("hybrid", "bm25", "embedder").
func (ix *Index) WithSearchMode(mode string) (retrieval.Store, error) {
	v, err := ix.WithMode(SearchMode(mode))
	if err != nil {
		return nil, err
	}
	return v, nil
}

// Ranking is retrieval.Ranker's: "" for the embedder alone (vector
// similarity), else the mode ("hybrid", "bm25").
func (ix *Index) Ranking() string {
	if m := ix.Mode(); m != ModeEmbedder {
		return string(m)
	}
	return ""
}

// Mode returns the search mode.
func (ix *Index) Mode() SearchMode {
	if ix.mode == "" {
		return DefaultMode
	}
	return ix.mode
}

// Describe names how the index ranks, for headers: "BM25 + title match", "hybrid
// 0.8×cosine + 0.2×BM25 + title match"; an index of a provider's
// embeddings: "hybrid RRF (k 60) of cosine and BM25 + title match"; with
// fusion settings: "hybrid: cosine + BM25, RRF k=2") or "embedder only".
func (ix *Index) Describe() string {
	if ix.arms != nil && ix.Mode() == ModeHybrid {
		return ix.arms.describe()
	}
	if ix.Mode() == ModeHybrid {
		return "hybrid " + ix.hybridFusion().String()
	}
	return ix.Mode().Describe()
}

// Describe names how a search in mode m ranks (see Index.Describe); an
// unknown mode is described as the default, BM25, which it searches as.
func (m SearchMode) Describe() string {
	switch m {
	case ModeHybrid:
		return "hybrid " + defaultFusion.String()
	case ModeEmbedder:
		return "embedder only"
	default:
		return "BM25 + title match"
	}
}

// searchLexical serves a search whose mode uses BM25: the chunks matching
// the filters ranked by BM25 alone, or by BM25 fused with the vectors'
// cosines. A question none of whose terms occurs in the corpus gets no
// chunks: the corpus has no evidence for it, whatever the vectors say
// (nonsense, another language).
func (ix *Index) searchLexical(ctx context.Context, req retrieval.SearchRequest, mode SearchMode) ([]retrieval.ScoredChunk, error) {
	f := ix.hybridFusion()
	q, lex, err := ix.lexScores(req.Text, f, mode)
	if err != nil {
		return nil, err
	}
	if !q.known {
		return []retrieval.ScoredChunk{}, nil
	}
	pass := passes(ix, req)
	if mode == ModeBM25 {
		return ix.bm25Titled(f, lex, pass, req), nil
	}
	vec, err := ix.cosines(ctx, req)
	if err != nil {
		return nil, err
	}
	if ix.arms != nil {
		return ix.fuseArms(*ix.arms, lex, vec, pass, req), nil
	}
	return ix.fuse(f, lex, vec, pass, req), nil
}

// hybridFusion is the fusion the index's searches use: the one a tuning
// test set, else the index's own (baseFusion).
func (ix *Index) hybridFusion() fusion {
	if ix.fusion != nil {
		return *ix.fusion
	}
	return ix.baseFusion()
}

// lexScores is every chunk's BM25 score for text as a search in mode
// with fusion f makes it, with the question's parsed terms (q.known
// false: none of them occurs in the corpus, and lex is nil).
func (ix *Index) lexScores(text string, f fusion, mode SearchMode) (bm25Query, []float64, error) {
	q := ix.bm25.query(text)
	if !q.known {
		return q, nil, nil
	}
	// BM25 alone is plain BM25 unless a tuning test asks for expansion.
	if f.expand > 0 && (mode != ModeBM25 || ix.fusion != nil) {
		if err := ix.bm25.expand(&q, text, f.expand, f.expandW, f.expandMin); err != nil {
			return q, nil, fmt.Errorf("search: %w", err)
		}
	}
	lex := make([]float64, len(ix.chunks))
	ix.bm25.scores(q, lex)
	return q, lex, nil
}

// passes tells whether chunk i passes req's filters.
func passes(ix *Index, req retrieval.SearchRequest) func(int) bool {
	return func(i int) bool { return req.Filters.IsEmpty() || req.Filters.Match(&ix.chunks[i]) }
}

// bm25Titled ranks the chunks that pass by BM25 with the title match
// ((BM25 + title×match) / (1 + title), so a score stays within 0..1): a
// reader who types a page's title ("What is ROS 2?") gets that page first,
// whichever section of another page repeats the words more often. The
// match is weighed for BM25's best f.candidates chunks, as in the hybrid.
func (ix *Index) bm25Titled(f fusion, lex []float64, pass func(int) bool, req retrieval.SearchRequest) []retrieval.ScoredChunk {
	top := ix.top(lex, func(i int) bool { return lex[i] > 0 && pass(i) }, max(f.candidates, req.Limit))
	qTerms := distinct(embed.Terms(req.Text))
	byTitle := map[string]float64{}
	kept := top[:0]
	for _, c := range top {
		t, ok := byTitle[ix.chunks[c.i].Title]
		if !ok {
			t = titleMatch(qTerms, &ix.chunks[c.i])
			byTitle[ix.chunks[c.i].Title] = t
		}
		c.score = (lex[c.i] + f.title*t) / (1 + f.title)
		if req.Threshold > 0 && c.score < req.Threshold {
			continue
		}
		kept = append(kept, c)
	}
	h := &resultHeap{items: kept, chunks: ix.chunks}
	sort.Slice(kept, func(a, b int) bool { return h.better(kept[a], kept[b]) })
	if len(kept) > req.Limit {
		kept = kept[:req.Limit]
	}
	out := make([]retrieval.ScoredChunk, len(kept))
	for k, c := range kept {
		out[k] = retrieval.ScoredChunk{Chunk: cloneChunk(&ix.chunks[c.i]), Score: c.score}
	}
	return out
}

// fuse ranks the chunks that pass by f's fusion of lex, vec and the
// title match.
func (ix *Index) fuse(f fusion, lex, vec []float64, pass func(int) bool, req retrieval.SearchRequest) []retrieval.ScoredChunk {
	cs := ix.candidates(f, lex, vec, pass, req.Text, req.Limit)
	fused := make([]scored, 0, len(cs.rank))
	for i := range cs.rank {
		s := cs.score(f, i)
		if req.Threshold > 0 && s < req.Threshold {
			continue
		}
		fused = append(fused, scored{i: i, score: s})
	}
	fused = ix.best(fused, req.Limit)
	name := f.String()
	out := make([]retrieval.ScoredChunk, len(fused))
	for k, s := range fused {
		r := cs.rank[s.i]
		out[k] = retrieval.ScoredChunk{
			Chunk: cloneChunk(&ix.chunks[s.i]),
			Score: s.score,
			Parts: &retrieval.ScoreParts{Fusion: name, BM25: lex[s.i], BM25Rank: r[0], Cosine: vec[s.i], CosineRank: r[1], Title: cs.title[s.i], Ranked: f.rescales()},
		}
	}
	return out
}

// fusedCandidates are the chunks a hybrid search fuses, with what it
// fuses them by.
type fusedCandidates struct {
	// rank holds each candidate's ranks, [BM25, cosine] (0: not among
	// that side's candidates); sideRank the ranks the fusion reads (the
	// BM25 side's after the heading field, when it is weighted).
	rank, sideRank map[int][2]int
	// side is each candidate's two sides as the fusion weighs them,
	// [lexical, cosine], when it rescales them; nil for the blend, which
	// reads lex and vec as they are.
	side     map[int][2]float64
	lex, vec []float64
	// title is each candidate's title match.
	title map[int]float64
}

// candidates gathers each side's best max(f.candidates, limit) chunks
// that pass, and what f fuses them by.
func (ix *Index) candidates(f fusion, lex, vec []float64, pass func(int) bool, text string, limit int) fusedCandidates {
	c := max(f.candidates, limit)
	lexTop := ix.top(lex, func(i int) bool { return lex[i] > 0 && pass(i) }, c)
	vecTop := ix.top(vec, pass, c)
	rank := make(map[int][2]int, len(lexTop)+len(vecTop))
	for r, s := range lexTop {
		rank[s.i] = [2]int{r + 1, 0}
	}
	for r, s := range vecTop {
		rank[s.i] = [2]int{rank[s.i][0], r + 1}
	}
	qTerms := distinct(embed.Terms(text))
	cs := fusedCandidates{rank: rank, sideRank: rank, title: make(map[int]float64, len(rank)), lex: lex, vec: vec}
	// A page's chunks share its title: match each title once.
	byTitle := map[string]float64{}
	for i := range rank {
		t, ok := byTitle[ix.chunks[i].Title]
		if !ok {
			t = titleMatch(qTerms, &ix.chunks[i])
			byTitle[ix.chunks[i].Title] = t
		}
		cs.title[i] = t
	}
	// The default blend reads both sides as they are; the other methods
	// and the heading field rescale them (sides).
	if f.rescales() {
		cs.side, cs.sideRank = ix.sides(f, qTerms, rank, lex, vec)
	}
	return cs
}

// sides is candidate i's two sides as the fusion weighs them, [lexical,
// cosine].
func (cs fusedCandidates) sides(i int) [2]float64 {
	if cs.side != nil {
		return cs.side[i]
	}
	return [2]float64{cs.lex[i], cs.vec[i]}
}

// rescales reports whether f fuses anything but the raw BM25 and cosine
// (rank fusion, min-max, the heading field).
func (f fusion) rescales() bool { return f.method != fuseBlend || f.heading > 0 }

// parts are candidate i's parts of its fused score: [lexical, cosine,
// title], which add up to it.
func (cs fusedCandidates) parts(f fusion, i int) [3]float64 {
	sd := cs.sides(i)
	w := 1 / (1 + f.title)
	return [3]float64{(1 - f.vec) * sd[0] * w, f.vec * sd[1] * w, f.title * cs.title[i] * w}
}

// score is candidate i's fused score.
func (cs fusedCandidates) score(f fusion, i int) float64 {
	sd := cs.sides(i)
	return (f.vec*sd[1] + (1-f.vec)*sd[0] + f.title*cs.title[i]) / (1 + f.title)
}

// best orders fused chunks best first (ties as a search orders them) and
// keeps limit of them.
func (ix *Index) best(fused []scored, limit int) []scored {
	h := &resultHeap{items: fused, chunks: ix.chunks}
	sort.Slice(fused, func(a, b int) bool { return h.better(fused[a], fused[b]) })
	if len(fused) > limit {
		fused = fused[:limit]
	}
	return fused
}

// top returns the best limit chunks among those for which ok is true, by
// scores (ties by chunk id), best first.
func (ix *Index) top(scores []float64, ok func(int) bool, limit int) []scored {
	h := &resultHeap{items: make([]scored, 0, min(limit, len(scores))+1), chunks: ix.chunks}
	for i, s := range scores {
		if !ok(i) {
			continue
		}
		h.offer(scored{i: i, score: s}, limit)
	}
	return h.sorted()
}

// cosines is every chunk's cosine similarity with the request's vector,
// its lexical part exact when the embedder gives exact lexical cosines
// (see Search).
func (ix *Index) cosines(ctx context.Context, req retrieval.SearchRequest) ([]float64, error) {
	q := normalized(req.Vector)
	var lexCos []float32
	var qLex float32
	if ix.lex != nil && req.Text != "" {
		var err error
		if lexCos, err = ix.lexicalCosines(ctx, req.Text); err != nil {
			return nil, err
		}
		qLex = float32(math.Sqrt(float64(selfDot(q[ix.semDim:]))))
	} else if ix.compact() {
		return nil, fmt.Errorf("search: index %s needs its embedder's lexical postings", ix.info.Name)
	}
	out := make([]float64, len(ix.chunks))
	for i := range ix.chunks {
		if i%ctxCheckEvery == ctxCheckEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("search: %w", err)
			}
		}
		var s float64
		if lexCos != nil {
			s = float64(dot(q[:ix.semDim], ix.vector(i)[:ix.semDim]) + qLex*ix.lexNorm[i]*lexCos[i])
		} else {
			s = float64(dot(q, ix.vector(i)))
		}
		out[i] = math.Max(-1, math.Min(1, s))
	}
	return out, nil
}

// titleMatch tells how well a question names c's page: when every term of
// the question q is a term of the page's title, the Jaccard similarity of
// the two ("What is ROS 2?" and the page "What Is ROS 2?" give 1, "what
// is URDF?" and "URDF for Humanoids" 0.5), else 0. A reader who types a
// page's title expects that page, whichever chunk of another page uses
// the same words more often; a question that also asks something else is
// left to BM25 and the embedder.
func titleMatch(q map[string]struct{}, c *retrieval.Chunk) float64 {
	if len(q) == 0 || c.Title == "" {
		return 0
	}
	h := distinct(embed.Terms(c.Title))
	for t := range q {
		if _, ok := h[t]; !ok {
			return 0
		}
	}
	return float64(len(q)) / float64(len(h))
}

// sides returns each candidate's two scores as f fuses them, [lexical,
// cosine], each in 0..1 for a blend's weights to mean the same for every
// question.
func (ix *Index) sides(f fusion, qTerms map[string]struct{}, rank map[int][2]int, lex, vec []float64) (map[int][2]float64, map[int][2]int) {
	out := make(map[int][2]float64, len(rank))
	// Ranks after the heading field, when it is weighted.
	lr := rank
	lx := func(i int) float64 { return lex[i] }
	if f.heading > 0 {
		h := ix.headingShares(qTerms, rank)
		lx = func(i int) float64 { return (lex[i] + f.heading*h[i]) / (1 + f.heading) }
		lr = ranksBy(rank, lx, 0)
	}
	switch f.method {
	case fuseRRF:
		k := f.rrfK0()
		for i, r := range rank {
			var s [2]float64
			if l := lr[i][0]; l > 0 {
				s[0] = (k + 1) / (k + float64(l))
			}
			if r[1] > 0 {
				s[1] = (k + 1) / (k + float64(r[1]))
			}
			out[i] = s
		}
	case fuseMinMax:
		lo := [2]float64{math.Inf(1), math.Inf(1)}
		hi := [2]float64{math.Inf(-1), math.Inf(-1)}
		for i := range rank {
			v := [2]float64{lx(i), vec[i]}
			for j := range 2 {
				lo[j], hi[j] = math.Min(lo[j], v[j]), math.Max(hi[j], v[j])
			}
		}
		for i := range rank {
			v := [2]float64{lx(i), vec[i]}
			for j := range 2 {
				if hi[j] > lo[j] {
					v[j] = (v[j] - lo[j]) / (hi[j] - lo[j])
				} else {
					v[j] = 0
				}
			}
			out[i] = v
		}
	default:
		for i := range rank {
			out[i] = [2]float64{lx(i), vec[i]}
		}
	}
	return out, lr
}

// ranksBy ranks the candidates by score (1 best; ties by chunk number),
// in slot j of a copy of rank.
func ranksBy(rank map[int][2]int, score func(int) float64, j int) map[int][2]int {
	ids := make([]int, 0, len(rank))
	for i := range rank {
		ids = append(ids, i)
	}
	sort.Slice(ids, func(a, b int) bool {
		sa, sb := score(ids[a]), score(ids[b])
		if sa != sb {
			return sa > sb
		}
		return ids[a] < ids[b]
	})
	out := make(map[int][2]int, len(rank))
	for r, i := range ids {
		v := rank[i]
		if score(i) > 0 {
			v[j] = r + 1
		} else {
			v[j] = 0
		}
		out[i] = v
	}
	return out
}

// headingShares is, for each candidate, the share of the question's IDF
// that its title and section heading hold (0..1).
func (ix *Index) headingShares(qTerms map[string]struct{}, rank map[int][2]int) map[int]float64 {
	idf := make(map[string]float64, len(qTerms))
	total := 0.0
	for t := range qTerms {
		w := ix.bm25.idfOf(t)
		idf[t] = w
		total += w
	}
	out := make(map[int]float64, len(rank))
	if total <= 0 {
		return out
	}
	memo := map[string]float64{}
	for i := range rank {
		c := &ix.chunks[i]
		key := c.Title + "\x00" + c.Section
		s, ok := memo[key]
		if !ok {
			h := distinct(embed.Terms(c.Title + " " + c.Section))
			for t, w := range idf {
				if _, ok := h[t]; ok {
					s += w
				}
			}
			s /= total
			memo[key] = s
		}
		out[i] = s
	}
	return out
}
