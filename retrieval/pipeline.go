package retrieval

import (
	"context"
	"fmt"
	"math"
	"ragscope/retrieval/docusaurus"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Pipeline answers queries over an Embedder and a Store. Its zero value is
// not usable: set Embedder and Store (URLs, Backend and Collection are
// optional). A Pipeline is safe for concurrent use when its seams are.
type Pipeline struct {
	Embedder Embedder
	Store    Store
	// URLs builds citation URLs.
	URLs URLBuilder
	// Backend names the backend in results ("demo", "local", "qdrant").
	Backend string
	// Collection names the collection or index.
	Collection string
	// Reranker reorders candidates of queries with Rerank.On (optional).
	Reranker Reranker
}

// Retrieve answers q. It validates q and routes on the mode before any
// embedding or store call: selected-text mode never touches the Embedder or
// the Store. An empty result is not an error.
func (p *Pipeline) Retrieve(ctx context.Context, q Query) (Result, error) {
	return p.retrieve(ctx, q, nil, 0, nil)
}

// RetrieveVector answers a normal-mode q whose question was already
// embedded (batch evaluation embeds many questions per call). embedTook is
// reported as the embed timing. Selected-text queries ignore vec.
func (p *Pipeline) RetrieveVector(ctx context.Context, q Query, vec []float32, embedTook time.Duration) (Result, error) {
	if vec == nil {
		vec = []float32{}
	}
	return p.retrieve(ctx, q, vec, embedTook, nil)
}

// beside is work a diagnosis runs next to a query's search, once the
// question is embedded: it gets the store that answers q and the
// question's vector, and its search costs no extra wait. After the
// query's search, cands holds the store's candidates in their order.
type beside struct {
	run   func(ctx context.Context, store Store, vec []float32)
	cands []ScoredChunk
}

// retrieve embeds q's question unless vec is given (non-nil). With b, b.run
// runs concurrently with the search and has returned when retrieve does.
func (p *Pipeline) retrieve(ctx context.Context, q Query, vec []float32, embedTook time.Duration, b *beside) (Result, error) {
	start := time.Now()
	q, res, err := p.prepare(q)
	if err != nil {
		return Result{}, err
	}
	if q.Mode == ModeSelectedText {
		p.selection(ctx, q, &res)
		res.Timings.Total = time.Since(start)
		return res, nil
	}
	if vec == nil {
		// A model that takes its vector size from the collection learns it
		// first: its one call must be made at the right size.
		if err := p.settleSize(ctx); err != nil {
			return Result{}, err
		}
		// The store's check (collection exists, vector size) runs beside
		// the embedding, not before it: one round trip, not two. A failed
		// check wins over the embedding's outcome and no search is sent.
		checked := p.startCheck(ctx)
		t0 := time.Now()
		vecs, err := p.Embedder.Embed(ctx, []string{q.Question})
		if cerr := <-checked; cerr != nil {
			return Result{}, cerr
		}
		if err != nil {
			return Result{}, fmt.Errorf("embed question: %w", err)
		}
		if len(vecs) != 1 {
			return Result{}, fmt.Errorf("%w: embed question: the embedder returned %d vectors for 1 text", ErrUnavailable, len(vecs)) // a backend failure, exit 3
		}
		vec, embedTook = vecs[0], time.Since(t0)
	} else {
		start = start.Add(-embedTook) // count the batch's share as spent here
	}
	res.Timings.Embed = embedTook
	var done chan struct{}
	if b != nil && b.run != nil {
		if store, err := p.storeFor(q); err == nil {
			done = make(chan struct{})
			go func() {
				defer close(done)
				b.run(ctx, store, vec)
			}()
		}
	}
	err = p.search(ctx, q, vec, &res, b)
	if done != nil {
		<-done
	}
	if err != nil {
		return Result{}, err
	}
	res.Timings.Total = time.Since(start)
	return res, nil
}

// VectorSizeChecker is implemented by stores that can verify that their
// collection exists and holds vectors of dim dimensions (the Qdrant store).
// The pipeline runs the check concurrently with a query's embedding; the
// store should cache a successful check so later queries cost nothing.
type VectorSizeChecker interface {
	CheckVectorSize(ctx context.Context, dim int) error
}

// SizeSettler is implemented by embedders whose vector size is not known
// until the store has been asked (a model that can shorten its vectors,
// with no size configured, takes the collection's). The pipeline calls
// SettleSize before the first embedding; it must be cheap once settled and
// safe for concurrent use. Its error (a collection the model cannot serve,
// a missing collection) is returned as is, and nothing is embedded.
type SizeSettler interface {
	SettleSize(ctx context.Context) error
}

// settleSize calls the embedder's SizeSettler, if it has one.
func (p *Pipeline) settleSize(ctx context.Context) error {
	if s, ok := p.Embedder.(SizeSettler); ok {
		return s.SettleSize(ctx)
	}
	return nil
}

// startCheck runs the store's VectorSizeChecker, if any, in the background
// and returns a channel that yields its error (nil at once when there is
// nothing to check).
func (p *Pipeline) startCheck(ctx context.Context) <-chan error {
	out := make(chan error, 1)
	c, ok := p.Store.(VectorSizeChecker)
	d := p.Embedder.Dim()
	if !ok || d <= 0 {
		out <- nil
		return out
	}
	go func() { out <- c.CheckVectorSize(ctx, d) }()
	return out
}

// Normalize validates q and applies defaults: the mode defaults to normal,
// and questions over MaxQuestionLen characters are truncated. It reports
// whether the question was truncated and its original length in runes.
func Normalize(q Query) (Query, bool, int, error) {
	if q.Mode == "" {
		q.Mode = ModeNormal
	}
	if q.Mode != ModeNormal && q.Mode != ModeSelectedText {
		return q, false, 0, invalid(ErrUnknownMode, strconv.Quote(string(q.Mode)))
	}
	if strings.TrimSpace(q.Question) == "" {
		return q, false, 0, ErrEmptyQuestion
	}
	if !hasWord(q.Question) {
		return q, false, 0, ErrNoWords
	}
	if q.Mode == ModeSelectedText && strings.TrimSpace(q.SelectedText) == "" {
		return q, false, 0, ErrEmptySelection
	}
	if q.TopK < MinTopK || q.TopK > MaxTopK {
		return q, false, 0, invalid(ErrTopKRange, strconv.Itoa(q.TopK))
	}
	if math.IsNaN(q.Threshold) || q.Threshold < 0 || q.Threshold > 1 {
		return q, false, 0, invalid(ErrThresholdRange, strconv.FormatFloat(q.Threshold, 'g', -1, 64))
	}
	if q.Rerank.On {
		if err := q.Rerank.normalize(); err != nil {
			return q, false, 0, err
		}
	}
	q.Question = strings.TrimSpace(q.Question)
	n := utf8.RuneCountInString(q.Question)
	if n > MaxQuestionLen {
		q.Question = truncateRunes(q.Question, MaxQuestionLen)
		return q, true, n, nil
	}
	return q, false, n, nil
}

func hasWord(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

func truncateRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

func (p *Pipeline) prepare(q Query) (Query, Result, error) {
	q, truncated, n, err := Normalize(q)
	if err != nil {
		return q, Result{}, err
	}
	res := Result{
		Question: q.Question,
		Mode:     q.Mode,
		Hits:     []Hit{},
		Dropped:  []DroppedHit{},
		Params: Params{
			TopK:       q.TopK,
			Threshold:  q.Threshold,
			Dedup:      !q.NoDedup,
			Filters:    q.Filters,
			Backend:    p.Backend,
			Collection: p.Collection,
			SlugStyle:  string(p.slugStyle()),
		},
	}
	if truncated {
		res.Truncated, res.OriginalLength = true, n
	}
	if q.Mode == ModeNormal {
		if p.Embedder == nil || p.Store == nil {
			return q, Result{}, fmt.Errorf("%w: no embedder or store configured", ErrConfig)
		}
		res.Params.Model = p.Embedder.Name()
		// A mode the store cannot rank in fails before anything is embedded.
		store, err := p.storeFor(q)
		if err != nil {
			return q, Result{}, err
		}
		res.Params.Ranking = rankingOf(store)
		if q.Rerank.On && p.Reranker == nil {
			return q, Result{}, fmt.Errorf("%w: reranking asked for but no reranker configured: pass --rerank MODEL", ErrConfig)
		}
	}
	return q, res, nil
}

func (p *Pipeline) slugStyle() docusaurus.SlugStyle {
	if p.URLs.Style == "" {
		return docusaurus.SlugGitHub
	}
	return p.URLs.Style
}

// selection builds the one synthetic hit of selected-text mode.
func (p *Pipeline) selection(ctx context.Context, q Query, res *Result) {
	t0 := time.Now()
	c := Chunk{
		ID:      "selection",
		Text:    q.SelectedText,
		DocPath: q.SourceDocPath,
		Section: q.SourceSection,
		Title:   p.selectionTitle(ctx, q.SourceDocPath),
	}
	if q.SourceDocPath == "" {
		c.Title = "Selected text"
	}
	h := Hit{Rank: 1, Score: 1.0, Chunk: c, Citation: p.URLs.Cite(&c)}
	res.Hits = []Hit{h}
	res.Grounded = Grounded{
		Sufficient:  true,
		Instruction: InstructionSelectedText,
		Context:     q.SelectedText,
		Sources:     []Citation{h.Citation},
	}
	res.Timings.Post = time.Since(t0)
}

func titleFromDocPath(p string) string {
	if p == "" {
		return ""
	}
	p = strings.TrimSuffix(strings.TrimSuffix(p, ".md"), ".mdx")
	if i := strings.LastIndex(p, "/"); i >= 0 {
		p = p[i+1:]
	}
	return docusaurus.StripNumberPrefix(p)
}

func (p *Pipeline) search(ctx context.Context, q Query, vec []float32, res *Result, b *beside) error {
	if d := p.Embedder.Dim(); d > 0 && len(vec) != d {
		return fmt.Errorf("embed question: got a %d-dimensional vector, want %d", len(vec), d)
	}
	store, err := p.storeFor(q)
	if err != nil {
		return err
	}
	t0 := time.Now()
	// Ask without a threshold: the same top_k, and the hits under the
	// threshold come back too, so the explorer can show what it cut.
	req := SearchRequest{Vector: vec, Text: q.Question, Limit: CandidateLimit(q), Filters: q.Filters, Exact: q.Exact}
	var arms []ArmList
	if q.WithArms {
		req.ArmHits = &arms
	}
	scored, err := store.Search(ctx, req)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	defer func() { res.Arms = p.citeArms(arms) }()
	if b != nil {
		b.cands = scored
	}
	res.Timings.Search = time.Since(t0)
	if q.Rerank.On {
		p.rerank(ctx, q, scored, res)
		return nil
	}
	t1 := time.Now()
	PostProcess(scored, q, p.URLs, res)
	res.Timings.Post = time.Since(t1)
	return nil
}

// citeArms fills the arms' citations (for grading their hits as the
// fused ones are) and returns arms.
func (p *Pipeline) citeArms(arms []ArmList) []ArmList {
	for a := range arms {
		al := &arms[a]
		al.Cites = make([]Citation, len(al.Hits))
		for h := range al.Hits {
			al.Cites[h] = p.URLs.Cite(&al.Hits[h].Chunk)
		}
	}
	return arms
}

// Ranking is how the store ranks a search in mode (Query.SearchMode; ""
// is the store's own): Params.Ranking of its results, "" for vector
// similarity or a mode the store cannot rank in.
func (p *Pipeline) Ranking(mode string) string {
	store, err := p.storeFor(Query{SearchMode: mode})
	if err != nil {
		return ""
	}
	return rankingOf(store)
}

// rankingOf is store's Ranker ranking, "" for vector similarity.
func rankingOf(store Store) string {
	if r, ok := store.(Ranker); ok {
		return r.Ranking()
	}
	return ""
}

// storeFor is the store that answers q: the pipeline's, or its view in
// q's search mode.
func (p *Pipeline) storeFor(q Query) (Store, error) {
	if q.SearchMode == "" {
		return p.Store, nil
	}
	ms, ok := p.Store.(ModalStore)
	if !ok {
		return nil, fmt.Errorf("%w: search mode %q: this backend ranks one way only; leave the search mode out (only the demo and local indexes have hybrid, bm25 and embedder)", ErrConfig, q.SearchMode)
	}
	s, err := ms.WithSearchMode(q.SearchMode)
	if err != nil {
		return nil, fmt.Errorf("search mode: %w", err)
	}
	return s, nil
}

// PostProcess orders scored chunks, applies the threshold, drops
// near-duplicates (unless q.NoDedup), ranks, builds citations and assembles
// the grounded context into res. It is deterministic: ties in score are
// broken by chunk id, then doc path and chunk index.
func PostProcess(scored []ScoredChunk, q Query, urls URLBuilder, res *Result) {
	postSorted(sortScored(scored), q, urls, res, newDedupKey)
}

// postSorted is PostProcess over chunks already in lessScored order.
func postSorted(sorted []ScoredChunk, q Query, urls URLBuilder, res *Result, keyOf func(*Chunk) dedupKey) {
	if len(sorted) > q.TopK {
		sorted = sorted[:q.TopK]
	}
	hits := make([]Hit, len(sorted))
	for i := range sorted {
		sc := &sorted[i]
		hits[i] = Hit{Score: sc.Score, Chunk: sc.Chunk, Citation: urls.Cite(&sc.Chunk), ScoreParts: sc.Parts, Arms: sc.Arms}
	}
	res.Hits, res.Dropped = keep(hits, func(h *Hit) bool { return Below(h.Score, q.Threshold) }, ReasonBelowThreshold, q.NoDedup, keyOf)
	res.Grounded = Ground(res.Hits)
}

// sortScored returns a sorted copy of scored (see lessScored).
func sortScored(scored []ScoredChunk) []ScoredChunk {
	// Sort positions, not the (large) chunks themselves: each chunk is
	// copied once.
	order := make([]int, len(scored))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return lessScored(&scored[order[i]], &scored[order[j]]) })
	sorted := make([]ScoredChunk, len(scored))
	for i, o := range order {
		sorted[i] = scored[o]
	}
	return sorted
}

// keep walks hits in their order: a hit for which cut is true is dropped
// with reason cutReason, then (unless noDedup) a near-duplicate of a kept
// hit is dropped; the others are kept and ranked from 1. keyOf makes a
// chunk's dedup key (newDedupKey, or a memo of it). The dropped hits come
// in pipeline order: those cut first, then the duplicates, each in hit
// order.
// Below reports whether score misses threshold. A threshold of 0 (the
// default) is no threshold: a similarity can be negative (cosine is
// -1..1; the offline embedder gives weakly related chunks small negative
// scores), and a hit the user asked for with top_k is not cut for it.
func Below(score, threshold float64) bool { return threshold > 0 && score < threshold }

func keep(hits []Hit, cut func(*Hit) bool, cutReason string, noDedup bool, keyOf func(*Chunk) dedupKey) ([]Hit, []DroppedHit) {
	kept := make([]Hit, 0, len(hits))
	dropped := make([]DroppedHit, 0)
	var dups []DroppedHit
	var accepted []dedupKey
	for i := range hits {
		h := hits[i]
		if cut(&h) {
			dropped = append(dropped, DroppedHit{Hit: h, Reason: cutReason})
			continue
		}
		if !noDedup {
			key := keyOf(&h.Chunk)
			if of, sim, dup := key.duplicateOf(accepted); dup {
				dups = append(dups, DroppedHit{Hit: h, Reason: ReasonDuplicate, DuplicateOf: of, Similarity: sim})
				continue
			}
			key.rank = len(kept) + 1
			accepted = append(accepted, key)
		}
		h.Rank = len(kept) + 1
		kept = append(kept, h)
	}
	return kept, append(dropped, dups...)
}

func lessScored(a, b *ScoredChunk) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if a.Chunk.ID != b.Chunk.ID {
		return a.Chunk.ID < b.Chunk.ID
	}
	if a.Chunk.DocPath != b.Chunk.DocPath {
		return a.Chunk.DocPath < b.Chunk.DocPath
	}
	ai, _ := a.Chunk.Index()
	bi, _ := b.Chunk.Index()
	return ai < bi
}
