package local

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"sync"

	"ragscope/retrieval"
	"ragscope/retrieval/store/local/embed"
)

// walkPageSize is the number of chunks Walk hands over per call.
const walkPageSize = 256

// ctxCheckEvery is how many chunks Search scores between context checks.
const ctxCheckEvery = 4096

// IndexInfo names an index in its Stats.
type IndexInfo struct {
	// Backend is "demo" or "local".
	Backend string
	// Name is the index name shown as the collection (a file or folder name).
	Name string
	// Model is the embedder's name.
	Model string
	// Provider is the provider whose model made the vectors (cohere,
	// openai, gemini), "" for the offline embedder; Dimensions is the
	// vector size asked of it (0: the model's own).
	Provider   string
	Dimensions int
	// Chunking is how the chunks were cut.
	Chunking Chunking
}

// EmbedderLabel names the index's embedder: "cohere embed-english-v3.0",
// or the offline model's name.
func (i IndexInfo) EmbedderLabel() string {
	if i.Provider == "" {
		return i.Model
	}
	return i.Provider + " " + i.Model
}

// Index is an exact in-memory index over chunks: brute-force cosine
// similarity and BM25, by default blended (WithMode), with the filter and
// threshold semantics of a Qdrant search. It implements retrieval.Store
// and retrieval.Walker, is read-only after NewIndex and safe for
// concurrent use; WithMode gives views that rank in another mode.
type Index struct {
	info   IndexInfo
	chunks []retrieval.Chunk
	// vecs holds every vector, L2-normalised, back to back (dim each).
	vecs []float32
	dim  int
	// stride is the number of floats stored per chunk: dim, or, for a
	// compact index (see compactVector), the semantic part and the norm
	// of the lexical part.
	stride int
	// lazy holds what is computed on first use, shared by every view of
	// the index (WithMode): a view copies the pointer, not the sync.Once.
	lazy *lazyParts
	// lex, when set, gives exact lexical cosines for a request's text; a
	// score is then the semantic part of the vectors' dot product plus
	// the lexical parts' norms times that cosine (see useLexical).
	lex lexicalScorer
	// lexNorm is the norm of each vector's lexical part (after semDim).
	lexNorm []float32
	semDim  int
	// bm25 is the lexical side of hybrid and BM25 searches; mode chooses
	// how Search ranks ("" is hybrid).
	bm25 *bm25Index
	mode SearchMode
	// fusion overrides defaultFusion (tests that tune it).
	fusion *fusion
	// arms, when set, fuses the hybrid mode's arms as Qdrant does
	// (WithFusion) instead of blending them.
	arms *armFusion
}

// lazyParts are an index's parts computed on first use, once for the
// index and all its views.
type lazyParts struct {
	// stats is computed on first use: a load does not pay for it.
	stats     retrieval.Stats
	statsOnce sync.Once
	// titles maps doc paths and routes to page titles, built on first use
	// (PageTitle).
	titles     map[string]string
	titlesOnce sync.Once
	// avgdl is the chunks' average number of BM25 terms, counted on first
	// use (a what-if scores a chunk the index does not hold).
	avgdl     float64
	avgdlOnce sync.Once
}

// lexicalScorer is an embedder whose vectors are a semantic part followed
// by a lexical part and that can give a text's exact lexical cosine with
// every document it was fitted on (embed.Model).
type lexicalScorer interface {
	LexicalCosines(ctx context.Context, text string) ([]float32, error)
	Docs() int
	SemanticDim() int
	// LexicalInVectors tells whether the vectors' lexical parts alone give
	// exact lexical cosines (a small corpus); if not, an index needs only
	// their norms and is saved compact.
	LexicalInVectors() bool
}

// compactVector is what a compact index stores of v: its first semDim
// floats and the norm of the rest.
func compactVector(v []float32, semDim int) []float32 {
	out := make([]float32, semDim+1)
	copy(out, v[:semDim])
	out[semDim] = float32(math.Sqrt(float64(selfDot(v[semDim:]))))
	return out
}

// useLexical makes searches with a text score its lexical part exactly with
// emb, when emb is a lexicalScorer fitted on this index's chunks in order
// (as Build and LoadIndex fit it). The dense vectors' lexical part is exact
// only for small corpora; this keeps the lexical similarity exact at every
// size and leaves the semantic part to the vectors.
func (ix *Index) useLexical(emb retrieval.Embedder) {
	s, ok := emb.(lexicalScorer)
	if !ok || s.Docs() != len(ix.chunks) || s.SemanticDim() <= 0 || s.SemanticDim() >= ix.dim {
		return
	}
	if ix.stride != ix.dim && ix.stride != s.SemanticDim()+1 {
		return
	}
	ix.lex, ix.semDim = s, s.SemanticDim()
	ix.lexNorm = make([]float32, len(ix.chunks))
	for i := range ix.lexNorm {
		ix.lexNorm[i] = float32(math.Sqrt(float64(selfDot(ix.vector(i)[ix.semDim:]))))
	}
}

func selfDot(v []float32) float32 { return dot(v, v) }

// lexicalCosines is ix.lex.LexicalCosines for a search. Damaged postings,
// which a loaded index checks as questions first read them, are a damaged
// index file.
func (ix *Index) lexicalCosines(ctx context.Context, text string) ([]float32, error) {
	cos, err := ix.lex.LexicalCosines(ctx, text)
	if errors.Is(err, embed.ErrBadState) {
		return nil, fmt.Errorf("%w: %w: rebuild it with \"ragscope index DOCS_DIR -o FILE\"", ErrCorruptIndex, err)
	}
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return cos, nil
}

var (
	_ retrieval.Store  = (*Index)(nil)
	_ retrieval.Walker = (*Index)(nil)
	_ retrieval.Ranker = (*Index)(nil)
)

// NewIndex indexes chunks with their vectors (one per chunk, all the same
// length). Vectors are copied and L2-normalised, so scores are cosine
// similarities; a zero vector scores 0 against everything. Chunk IDs must
// be unique: they break score ties.
func NewIndex(chunks []retrieval.Chunk, vectors [][]float32, info IndexInfo) (*Index, error) {
	if len(chunks) != len(vectors) {
		return nil, fmt.Errorf("new index: %d chunks but %d vectors", len(chunks), len(vectors))
	}
	dim := 0
	if len(vectors) > 0 {
		dim = len(vectors[0])
	}
	if len(vectors) > 0 && dim == 0 {
		return nil, fmt.Errorf("new index: vectors are empty")
	}
	flat := make([]float32, 0, len(vectors)*dim)
	for i, v := range vectors {
		if len(v) != dim {
			return nil, fmt.Errorf("new index: vector %d has %d dimensions, want %d", i, len(v), dim)
		}
		flat = append(flat, normalized(v)...)
	}
	ix, err := newIndexFlat(slices.Clone(chunks), flat, dim, info)
	if err != nil {
		return nil, err
	}
	if ix.bm25, err = newBM25Index(context.Background(), ix.chunks); err != nil {
		return nil, err
	}
	return ix, nil
}

// newIndexFlat makes an index that takes ownership of chunks and of flat,
// their unit vectors one after the other (dim floats each), as an index
// file stores them: loading copies and normalises nothing.
func newIndexFlat(chunks []retrieval.Chunk, flat []float32, dim int, info IndexInfo) (*Index, error) {
	seen := make(map[string]int, len(chunks))
	for i := range chunks {
		if j, dup := seen[chunks[i].ID]; dup {
			return nil, fmt.Errorf("new index: chunks %d and %d share the id %q", j, i, chunks[i].ID)
		}
		seen[chunks[i].ID] = i
	}
	return newIndexStrided(chunks, flat, dim, dim, info)
}

// newIndexStrided is newIndexFlat for stride floats stored per chunk (a
// compact index's, when stride < dim), with chunk IDs known to be unique
// (decodeChunks checks a file's).
func newIndexStrided(chunks []retrieval.Chunk, flat []float32, dim, stride int, info IndexInfo) (*Index, error) {
	if stride < 0 || stride > dim || (len(chunks) > 0 && stride == 0) || len(flat) != len(chunks)*stride {
		return nil, fmt.Errorf("new index: %d floats for %d chunks of dimension %d (%d stored)", len(flat), len(chunks), dim, stride)
	}
	return &Index{info: info, chunks: chunks, dim: dim, stride: stride, vecs: flat, lazy: &lazyParts{}}, nil
}

// normalized returns a unit-length copy of v (a zero copy for a zero or
// non-finite vector).
func normalized(v []float32) []float32 {
	out := slices.Clone(v)
	normalizeInPlace(out)
	return out
}

// normalizeInPlace scales v to unit length (zeroes it when it is zero or
// not finite).
func normalizeInPlace(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 || math.IsInf(sum, 0) || math.IsNaN(sum) {
		clear(v)
		return
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
}

// Len returns the number of chunks.
func (ix *Index) Len() int { return len(ix.chunks) }

// Dim returns the vector length (0 for an empty index).
func (ix *Index) Dim() int { return ix.dim }

// Info returns the index's names.
func (ix *Index) Info() IndexInfo { return ix.info }

// Chunks returns a copy of the indexed chunks in index order.
func (ix *Index) Chunks() []retrieval.Chunk {
	out := make([]retrieval.Chunk, len(ix.chunks))
	for i := range ix.chunks {
		out[i] = cloneChunk(&ix.chunks[i])
	}
	return out
}

// vector returns chunk i's normalised vector (shared; do not modify).
func (ix *Index) vector(i int) []float32 {
	return ix.vecs[i*ix.stride : (i+1)*ix.stride]
}

// compact tells whether the index stores compact vectors.
func (ix *Index) compact() bool { return ix.stride != ix.dim }

// scored is a candidate during a search.
type scored struct {
	i     int
	score float64
}

// resultHeap keeps the best candidates with the worst on top, so it can be
// replaced in O(log k) when a better one arrives.
type resultHeap struct {
	items  []scored
	chunks []retrieval.Chunk
}

// better orders by score, then by chunk id ascending.
func (h *resultHeap) better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return h.chunks[a.i].ID < h.chunks[b.i].ID
}

func (h *resultHeap) Len() int           { return len(h.items) }
func (h *resultHeap) Less(i, j int) bool { return h.better(h.items[j], h.items[i]) }
func (h *resultHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *resultHeap) Push(x any)         { h.items = append(h.items, x.(scored)) }
func (h *resultHeap) Pop() any {
	n := len(h.items) - 1
	x := h.items[n]
	h.items = h.items[:n]
	return x
}

// offer keeps c when it is among the limit best seen so far.
func (h *resultHeap) offer(c scored, limit int) {
	if h.Len() < limit {
		heap.Push(h, c)
		return
	}
	if h.better(c, h.items[0]) {
		h.items[0] = c
		heap.Fix(h, 0)
	}
}

// sorted is the kept items, best first.
func (h *resultHeap) sorted() []scored {
	sort.Slice(h.items, func(a, b int) bool { return h.better(h.items[a], h.items[b]) })
	return h.items
}

// Search returns up to req.Limit chunks matching req.Filters with a score
// >= req.Threshold (when the threshold is above 0), best first, equal
// scores in chunk id order. In the embedder mode (or without req.Text) the
// score is the cosine similarity; with req.Text and an embedder that gives
// exact lexical cosines, the lexical part of each cosine is that exact
// one. In the bm25 (the default) and hybrid modes it is BM25, or BM25 and
// the cosine fused (see searchLexical). A query vector of the wrong length
// is an error; a zero query vector scores 0 everywhere. A limit below 1
// returns nothing.
func (ix *Index) Search(ctx context.Context, req retrieval.SearchRequest) ([]retrieval.ScoredChunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if len(ix.chunks) == 0 || req.Limit < 1 {
		return []retrieval.ScoredChunk{}, nil
	}
	if len(req.Vector) != ix.dim {
		return nil, fmt.Errorf("search: query vector has %d dimensions, the index has %d: embed queries with the index's model (%s)",
			len(req.Vector), ix.dim, ix.info.Model)
	}
	if mode := ix.Mode(); mode != ModeEmbedder && ix.bm25 != nil && req.Text != "" {
		return ix.searchLexical(ctx, req, mode)
	}
	q := normalized(req.Vector)
	var lexCos []float32
	var qLex float32
	if ix.compact() && (ix.lex == nil || req.Text == "") {
		// A compact index has no lexical vectors to fall back on: without
		// the text, only the semantic part scores.
		if ix.lex == nil {
			return nil, fmt.Errorf("search: index %s needs its embedder's lexical postings", ix.info.Name)
		}
		lexCos = make([]float32, len(ix.chunks))
	} else if ix.lex != nil && req.Text != "" {
		var err error
		if lexCos, err = ix.lexicalCosines(ctx, req.Text); err != nil {
			return nil, err
		}
		qLex = float32(math.Sqrt(float64(selfDot(q[ix.semDim:]))))
	}
	filter := !req.Filters.IsEmpty()
	h := &resultHeap{items: make([]scored, 0, min(req.Limit, len(ix.chunks))+1), chunks: ix.chunks}
	for i := range ix.chunks {
		if i%ctxCheckEvery == ctxCheckEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("search: %w", err)
			}
		}
		if filter && !req.Filters.Match(&ix.chunks[i]) {
			continue
		}
		var s float64
		if lexCos != nil {
			s = float64(dot(q[:ix.semDim], ix.vector(i)[:ix.semDim]) + qLex*ix.lexNorm[i]*lexCos[i])
		} else {
			s = float64(dot(q, ix.vector(i)))
		}
		s = math.Max(-1, math.Min(1, s))
		if req.Threshold > 0 && s < req.Threshold {
			continue
		}
		h.offer(scored{i: i, score: s}, req.Limit)
	}
	items := h.sorted()
	out := make([]retrieval.ScoredChunk, len(items))
	for k, c := range items {
		out[k] = retrieval.ScoredChunk{Chunk: cloneChunk(&ix.chunks[c.i]), Score: c.score}
	}
	return out, nil
}

// Count counts the chunks f leaves (retrieval.Counter).
func (ix *Index) Count(ctx context.Context, f retrieval.Filters) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("count: %w", err)
	}
	var n int64
	for i := range ix.chunks {
		if f.Match(&ix.chunks[i]) {
			n++
		}
	}
	return n, nil
}

// dot is the inner product of two equal-length vectors (embed.Dot).
func dot(a, b []float32) float32 { return embed.Dot(a, b) }

// Stats describes the index: points, vector size, cosine distance, status
// ready or empty, the payload fields present, the filter facets and how
// it ranks.
func (ix *Index) Stats(ctx context.Context) (retrieval.Stats, error) {
	if err := ctx.Err(); err != nil {
		return retrieval.Stats{}, fmt.Errorf("stats: %w", err)
	}
	lz := ix.lazy
	lz.statsOnce.Do(func() { lz.stats = ix.computeStats() })
	s := lz.stats
	s.PayloadFields = slices.Clone(s.PayloadFields)
	s.Facets = make(map[string][]string, len(lz.stats.Facets))
	for k, v := range lz.stats.Facets {
		s.Facets[k] = slices.Clone(v)
	}
	s.FacetCounts = make(map[string]map[string]int64, len(lz.stats.FacetCounts))
	for k, v := range lz.stats.FacetCounts {
		s.FacetCounts[k] = maps.Clone(v)
	}
	s.FacetLabels = cloneLabels(lz.stats.FacetLabels)
	s.Notes = slices.Clone(s.Notes)
	if ix.bm25 != nil {
		// The mode is the view's own: it is not part of the shared stats.
		s.Notes = append(s.Notes, "search: "+ix.Describe())
	}
	return s, nil
}

func (ix *Index) computeStats() retrieval.Stats {
	s := retrieval.Stats{
		Backend:    ix.info.Backend,
		Collection: ix.info.Name,
		Status:     retrieval.StatusReady,
		Points:     int64(len(ix.chunks)),
		VectorSize: ix.dim,
		Distance:   "Cosine",
	}
	if len(ix.chunks) == 0 {
		s.Status = retrieval.StatusEmpty
	}
	switch {
	case ix.info.Provider != "":
		s.Notes = []string{"embedding model: " + ix.info.EmbedderLabel() + " (its vectors, stored in the index; exact search)"}
	case ix.info.Model != "":
		s.Notes = []string{"embedding model: " + ix.info.Model + " (offline, exact search)"}
	}
	fields := map[string]bool{}
	facets := map[string]map[string]int64{"module": {}, "chapter": {}, "content_type": {}, "tag": {}}
	add := func(name string, present bool) {
		if present {
			fields[name] = true
		}
	}
	for i := range ix.chunks {
		c := &ix.chunks[i]
		add("text", c.Text != "")
		add("url", c.URL != "")
		add("doc_path", c.DocPath != "")
		add("page_slug", c.PageSlug != "")
		add("title", c.Title != "")
		add("section", c.Section != "")
		add("heading_id", c.HeadingID != "")
		add("breadcrumb", len(c.Breadcrumb) > 0)
		add("module", c.Module != "")
		add("chapter", c.Chapter != "")
		add("chunk_index", c.ChunkIndex != nil)
		add("total_chunks", c.TotalChunks != nil)
		add("content_type", c.ContentType != "")
		add("tags", len(c.Tags) > 0)
		add("content_hash", c.ContentHash != "")
		for k := range c.Extra {
			fields[k] = true
		}
		facet(facets["module"], c.Module)
		facet(facets["chapter"], c.Chapter)
		s.FacetLabels = addFacetLabels(s.FacetLabels, c)
		facet(facets["content_type"], c.ContentType)
		for _, t := range c.Tags {
			facet(facets["tag"], t)
		}
	}
	s.PayloadFields = slices.Sorted(maps.Keys(fields))
	s.Facets = map[string][]string{}
	s.FacetCounts = facets
	for k, counts := range facets {
		s.Facets[k] = slices.Sorted(maps.Keys(counts))
	}
	return s
}

func facet(counts map[string]int64, v string) {
	if v != "" {
		counts[v]++
	}
}

// Walk calls fn with the chunks in index order, walkPageSize at a time,
// with the total count, until all were seen, fn fails or ctx ends.
func (ix *Index) Walk(ctx context.Context, fn func(page []retrieval.Chunk, total int) error) error {
	for start := 0; start < len(ix.chunks); start += walkPageSize {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("walk: %w", err)
		}
		end := min(start+walkPageSize, len(ix.chunks))
		page := make([]retrieval.Chunk, 0, end-start)
		for i := start; i < end; i++ {
			page = append(page, cloneChunk(&ix.chunks[i]))
		}
		if err := fn(page, len(ix.chunks)); err != nil {
			return err
		}
	}
	return nil
}

// cloneChunk copies c deeply enough that callers cannot change the index.
func cloneChunk(c *retrieval.Chunk) retrieval.Chunk {
	out := *c
	out.Breadcrumb = slices.Clone(c.Breadcrumb)
	out.Tags = slices.Clone(c.Tags)
	if c.ChunkIndex != nil {
		out.ChunkIndex = retrieval.IntPtr(*c.ChunkIndex)
	}
	if c.TotalChunks != nil {
		out.TotalChunks = retrieval.IntPtr(*c.TotalChunks)
	}
	if c.Extra != nil {
		out.Extra = maps.Clone(c.Extra)
	}
	return out
}
