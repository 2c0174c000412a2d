package explain

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/chunkaudit"
)

// Explanation is one chunk's score taken apart for a question.
type Explanation struct {
	// ChunkID, DocPath, Title and Section name the chunk; Rank is its
	// rank in the query (0 when unknown) and Score its score.
	ChunkID string  `json:"chunk_id"`
	DocPath string  `json:"doc_path,omitempty"`
	Title   string  `json:"title,omitempty"`
	Section string  `json:"section,omitempty"`
	Rank    int     `json:"rank,omitempty"`
	Score   float64 `json:"score"`
	// Terms are the question's words against the chunk; Missing the
	// absent ones with the chunk's nearest words.
	Terms   []Term    `json:"terms"`
	Missing []Missing `json:"missing"`
	// Scorer names how the score was made ("bm25", "hybrid", "dense").
	Scorer string `json:"scorer"`
	// Formula says how the parts below combine (local index).
	Formula string `json:"formula,omitempty"`
	// Fusion, after a search that fused arms (a hybrid of a dense and a
	// BM25 arm), takes the fused score apart by arm: then the terms are
	// the BM25 arm's, and the attribution the dense arm's score's.
	Fusion *Fusion `json:"fusion,omitempty"`
	// TitleMatch and TitleContribution: how well the question names the
	// page, and its part of the score (local BM25 and hybrid).
	TitleMatch        *float64 `json:"title_match,omitempty"`
	TitleContribution *float64 `json:"title_contribution,omitempty"`
	// Cosine and CosineContribution: the embedder's cosine and its part.
	Cosine             *float64 `json:"cosine,omitempty"`
	CosineContribution *float64 `json:"cosine_contribution,omitempty"`
	// Attribution is each question word's share of the score by
	// leave-one-out, biggest first; AttributionNote says why there is
	// none when there is none.
	Attribution     []Attribution `json:"attribution,omitempty"`
	AttributionNote string        `json:"attribution_note,omitempty"`
	// Tokens is the chunk's estimated length in tokens and TokenLimit
	// the embedding model's input limit (0: none known).
	Tokens     int `json:"tokens"`
	TokenLimit int `json:"token_limit,omitempty"`
	// Versus compares an expected chunk with the #1 hit.
	Versus *Versus `json:"versus,omitempty"`
	// Suggestions are one line each, from the measured facts.
	Suggestions []string `json:"suggestions"`
}

// Fusion is a fused score taken apart by arm.
type Fusion struct {
	// Method is "rrf" or "dbsf" ("" when the store does not say); K is
	// RRF's constant.
	Method string `json:"method"`
	K      int    `json:"k,omitempty"`
	// Name, when the store gives its formula, names the fusion (a local
	// index's: "hybrid RRF (k 60) of cosine and BM25 + title match"): the
	// arms' contributions are then that fusion's weighted parts.
	Name string `json:"name,omitempty"`
	// Arms are the chunk's place in each arm, in the search's order.
	Arms []FusionArm `json:"arms"`
	// Title is the title match's part of the fused score, beside the
	// arms' (a local index's fusion adds one; nil when there is none).
	Title *float64 `json:"title,omitempty"`
}

// FusionArm is a chunk's place in one arm and its part of the fused
// score: the fields of the hit's --json "arms" (vector, rank, score; rank
// and score null when the arm did not return the chunk) with the arm's
// label and its contribution (RRF: 1/(k + rank − 1), rank zero-based as
// Qdrant counts it; DBSF: the arm's normalised score; a local index's
// fusion named in Fusion.Name: its weighted part, e.g. 0.5 × (k+1)/(k +
// rank) / 1.2; null when the search cannot tell).
type FusionArm struct {
	Label        string   `json:"label"`
	Vector       string   `json:"vector"`
	Rank         *int     `json:"rank"`
	Score        *float64 `json:"score"`
	Contribution *float64 `json:"contribution"`
}

// ArmFuser is a store whose hybrid search fuses arms as Qdrant does (a
// Qdrant collection with a sparse vector; a local index's hybrid mode
// with a fusion set): ArmFusion names the fusion, "rrf" with its k or
// "dbsf", "" when it fuses none.
type ArmFuser interface {
	ArmFusion() (method string, k int)
}

// fusionOf takes a fused score apart by the arms the search recorded.
func (x *Explainer) fusionOf(arms []retrieval.Arm) *Fusion {
	f := fusionArms(arms)
	if af, ok := x.Store.(ArmFuser); ok {
		f.Method, f.K = af.ArmFusion()
	}
	return f
}

// fusionArms is arms as a fusion's, its method unnamed.
func fusionArms(arms []retrieval.Arm) *Fusion {
	f := &Fusion{Arms: make([]FusionArm, len(arms))}
	for i, a := range arms {
		fa := FusionArm{Label: a.Label, Vector: a.Vector, Contribution: a.Part}
		if a.Rank > 0 {
			fa.Rank, fa.Score = new(a.Rank), new(a.Score)
		}
		f.Arms[i] = fa
	}
	return f
}

// DenseArm is the fusion's dense arm (nil when it has none).
func (f *Fusion) DenseArm() *FusionArm {
	for i := range f.Arms {
		if f.Arms[i].Label == denseArm {
			return &f.Arms[i]
		}
	}
	return nil
}

// denseArm labels a fused search's dense arm.
const denseArm = "dense"

// attributed is the score of s the attribution takes apart: a fused
// search's dense arm's (leaving a word out moves the arms' ranks among
// the chunks scored together, not the query's), the cosine of a hybrid
// whose explanation gives its sides as arms (dense: a local index's rank
// fusion, which the batch's few chunks would rank apart from the
// query's), else the score.
func attributed(s retrieval.ScoredChunk, dense bool) float64 {
	for _, a := range s.Arms {
		if a.Label == denseArm {
			return a.Score
		}
	}
	if dense && s.Parts != nil {
		return s.Parts.Cosine
	}
	return s.Score
}

// Versus is the #1 hit beside an expected chunk that is not #1.
type Versus struct {
	// Winner is the #1 hit's explanation (its own Versus is nil).
	Winner *Explanation `json:"winner"`
	// WinnerOnly are the question's words the winner has and the
	// expected chunk lacks; ExpectedOnly the reverse.
	WinnerOnly   []string `json:"winner_only"`
	ExpectedOnly []string `json:"expected_only"`
}

// Explainer explains a query's hits and expected sources on the store and
// embedder that answered it.
type Explainer struct {
	// Store is the store that answered the query (the local index's mode
	// view when the query chose one).
	Store retrieval.Store
	// Embedder embeds the question's leave-one-out variants (the query's
	// embedder); nil leaves dense scores unattributed, with NoEmbedder
	// saying why.
	Embedder   retrieval.Embedder
	NoEmbedder string
	// Ranking is how the store ranks ("bm25", "hybrid", "" for vector
	// similarity): BM25 alone needs no leave-one-out, its parts are exact.
	Ranking string
	// Limit is the input limit of the embedding model of the
	// collection's vectors (the provider table's).
	Limit chunkaudit.Limit
	// NoAttribution embeds the question alone (a what-if needs its
	// vector, not its words' shares).
	NoAttribution bool

	// chunks are the chunks Explain read, by id (a what-if edits them).
	chunks map[string]retrieval.Chunk
}

// Pending is the leave-one-out embedding, started beside the query.
type Pending struct {
	done    chan struct{}
	vecs    *Vectors
	err     error
	note    string
	started bool
}

// Start embeds the question and its variants in one call, beside the
// query (the call's vectors are cached with the question's by the
// provider's cache). A store that ranks by BM25 alone embeds nothing.
func (x *Explainer) Start(ctx context.Context, question string) *Pending {
	p := &Pending{done: make(chan struct{})}
	if x.Embedder == nil {
		p.note = x.NoEmbedder
		if p.note == "" {
			p.note = "no query embedder is set up"
		}
		close(p.done)
		return p
	}
	var variants []Variant
	if x.NoAttribution {
		p.note = "not asked"
	} else if x.Ranking != "bm25" {
		variants, p.note = Variants(question)
	} else {
		p.note = "the BM25 parts above are the whole score: no vector to attribute"
	}
	p.started = true
	go func() {
		defer close(p.done)
		p.vecs, p.err = EmbedVariants(ctx, x.Embedder, question, variants)
	}()
	return p
}

// Target is a chunk to explain: a hit, or an expected source.
type Target struct {
	// ID is the chunk's id; Rank its rank in the query (0 unknown).
	ID   string
	Rank int
	// Expected, for an expected source, is where the query left it.
	Expected *retrieval.Expected
}

// Report is the explanations of one query.
type Report struct {
	// Explained holds an explanation per target, in the targets' order
	// (nil for one whose chunk could not be read).
	Explained []*Explanation
	// Notes say what could not be explained (an embed call that failed).
	Notes []string
}

// Explain takes each target's score apart, after the query (q, res) ran
// and Start's embedding is done: one batched search scores every target
// for the question and each variant.
func (x *Explainer) Explain(ctx context.Context, p *Pending, q retrieval.Query, res *retrieval.Result, targets []Target) (Report, error) {
	var rep Report
	if err := p.wait(ctx); err != nil {
		return rep, err
	}
	if p.err != nil {
		rep.Notes = append(rep.Notes, "no attribution: "+p.err.Error())
	}
	sc, err := x.read(ctx, p, res, targets, &rep)
	if err != nil {
		return rep, err
	}
	rep.Explained = make([]*Explanation, len(targets))
	for i, t := range targets {
		if rep.Explained[i], err = x.target(ctx, q, p, sc, t); err != nil {
			return rep, err
		}
	}
	x.besideWinner(ctx, q, res, targets, rep.Explained)
	return rep, nil
}

// wait waits for the leave-one-out embedding; a cancelled call is the
// explanation's error, any other failure is p.err's note.
func (p *Pending) wait(ctx context.Context) error {
	select {
	case <-p.done:
	case <-ctx.Done():
		return fmt.Errorf("explain: %w", ctx.Err())
	}
	if p.err != nil && (errors.Is(p.err, context.Canceled) || errors.Is(p.err, context.DeadlineExceeded)) {
		return p.err
	}
	return nil
}

// Vector waits for the embedding and returns the question's vector (nil
// when none was made: no embedder, or its call failed).
func (p *Pending) Vector(ctx context.Context) ([]float32, error) {
	if err := p.wait(ctx); err != nil {
		return nil, err
	}
	if p.vecs == nil {
		return nil, nil
	}
	return p.vecs.Vecs[0], nil
}

// readings are what Explain reads for its targets: each chunk with the
// score the query gave it (a fused score, with its arms, after a hybrid
// search), and the batch's scores the attribution takes apart (a
// hybrid's dense arm): the whole question's by id, and each variant's.
type readings struct {
	chunks map[string]retrieval.ScoredChunk
	full   map[string]retrieval.ScoredChunk
	per    []map[string]retrieval.ScoredChunk
}

// read gathers the targets' chunks and scores: the batch (the question
// and its variants), then an expected chunk's page when the batch did
// not run, then the hits' own records.
func (x *Explainer) read(ctx context.Context, p *Pending, res *retrieval.Result, targets []Target, rep *Report) (*readings, error) {
	ids := make([]string, 0, len(targets))
	for _, t := range targets {
		if t.ID != "" && !slices.Contains(ids, t.ID) {
			ids = append(ids, t.ID)
		}
	}
	r := &readings{chunks: map[string]retrieval.ScoredChunk{}}
	if p.vecs != nil {
		full, per, err := scoreBatch(ctx, x.Store, p.vecs, ids, len(p.vecs.Variants) > 0)
		if err != nil {
			return nil, err
		}
		r.per, r.full = per, make(map[string]retrieval.ScoredChunk, len(full))
		for _, s := range full {
			r.chunks[s.Chunk.ID] = s
			r.full[s.Chunk.ID] = s
		}
	}
	rep.Notes = append(rep.Notes, x.readPages(ctx, targets, r.chunks)...)
	for _, h := range res.Hits {
		if _, ok := r.chunks[h.Chunk.ID]; !ok || h.Arms != nil {
			score := h.Score
			if h.RerankScore != nil || h.VectorRank > 0 {
				score = h.VectorScore // the store's score, not the reranker's
			}
			r.chunks[h.Chunk.ID] = retrieval.ScoredChunk{Chunk: h.Chunk, Score: score, Arms: h.Arms}
		}
	}
	// A fused score depends on the other chunks the arms return: an
	// expected chunk's, when it is not a hit, is the one its place in
	// the fused ranking gave.
	for _, t := range targets {
		if slices.ContainsFunc(res.Hits, func(h retrieval.Hit) bool { return h.Chunk.ID == t.ID }) {
			continue
		}
		if e := t.Expected; e != nil && e.Arms != nil && e.Score != nil {
			if c, ok := r.chunks[t.ID]; ok {
				c.Score, c.Arms = *e.Score, e.Arms
				r.chunks[t.ID] = c
			}
		}
	}
	x.chunks = make(map[string]retrieval.Chunk, len(r.chunks))
	for id, sc := range r.chunks {
		x.chunks[id] = sc.Chunk
	}
	return r, nil
}

// readPages reads, from its page, each expected chunk the batch did not
// score (no embedder, or its call failed); it returns what it could not
// read.
func (x *Explainer) readPages(ctx context.Context, targets []Target, chunks map[string]retrieval.ScoredChunk) []string {
	pc, ok := x.Store.(retrieval.PageChunker)
	if !ok {
		return nil
	}
	var notes []string
	for _, t := range targets {
		if _, have := chunks[t.ID]; have || t.Expected == nil || t.Expected.DocPath == "" || t.Expected.Score == nil {
			continue
		}
		page, err := pc.PageChunks(ctx, t.Expected.DocPath)
		if err != nil {
			notes = append(notes, "read "+t.Expected.DocPath+": "+err.Error())
			continue
		}
		for _, c := range page {
			if c.ID == t.ID {
				chunks[t.ID] = retrieval.ScoredChunk{Chunk: c, Score: *t.Expected.Score, Arms: t.Expected.Arms}
			}
		}
	}
	return notes
}

// target explains one target (nil when its chunk could not be read).
func (x *Explainer) target(ctx context.Context, q retrieval.Query, p *Pending, r *readings, t Target) (*Explanation, error) {
	sc, ok := r.chunks[t.ID]
	if !ok {
		return nil, nil
	}
	var vec []float32
	if p.vecs != nil {
		vec = p.vecs.Vecs[0]
	}
	e, err := x.one(ctx, q, &sc, t.Rank, vec)
	if err != nil {
		return nil, err
	}
	switch {
	case r.per != nil:
		e.Attribution = attribute(p.vecs, r.full[t.ID], r.per, t.ID, e.Fusion != nil)
	case x.Ranking == "bm25" && e.Contributions():
		e.AttributionNote = "the BM25 parts are the whole score"
	default:
		e.AttributionNote = p.attributionNote()
	}
	return e, nil
}

// attributionNote says why there is no attribution.
func (p *Pending) attributionNote() string {
	switch {
	case p.err != nil:
		return "the leave-one-out embed call failed"
	case !p.started && p.note == "":
		return "no query embedder"
	}
	return p.note
}

// besideWinner sets each expected chunk's comparison with the #1 hit and
// its suggestions.
func (x *Explainer) besideWinner(ctx context.Context, q retrieval.Query, res *retrieval.Result, targets []Target, explained []*Explanation) {
	var winner *Explanation
	for i, t := range targets {
		if t.Expected == nil && t.Rank == 1 {
			winner = explained[i]
		}
	}
	for i, t := range targets {
		e := explained[i]
		if e == nil || t.Expected == nil {
			continue
		}
		if winner != nil && winner.ChunkID != e.ChunkID {
			e.Versus = compare(e, winner)
		}
		e.Suggestions = x.suggest(ctx, q, res, t.Expected, e)
	}
}

// Contributions reports whether the terms carry BM25 contributions.
func (e *Explanation) Contributions() bool {
	return len(e.Terms) > 0 && e.Terms[0].Contribution != nil
}

// one explains one chunk.
func (x *Explainer) one(ctx context.Context, q retrieval.Query, sc *retrieval.ScoredChunk, rank int, vec []float32) (*Explanation, error) {
	c := &sc.Chunk
	terms, missing, err := Words(q.Question, c)
	if err != nil {
		return nil, err
	}
	e := &Explanation{
		ChunkID: c.ID, DocPath: c.DocPath, Title: c.Title, Section: c.Section, Rank: rank, Score: sc.Score,
		Terms: terms, Missing: missing, Scorer: x.scorer(), Tokens: chunkaudit.Tokens(c.Text),
	}
	if sc.Arms != nil {
		e.Scorer, e.Fusion = "hybrid", x.fusionOf(sc.Arms)
	}
	if e.Missing == nil {
		e.Missing = []Missing{}
	}
	if l := x.Limit; l.Known {
		e.TokenLimit = l.Tokens
	}
	if se, ok := x.Store.(retrieval.ScoreExplainer); ok {
		// The query's filters and depth: a rank fusion ranks the chunk
		// among the candidates the query's search had.
		req := retrieval.SearchRequest{Text: q.Question, Vector: vec, Filters: q.Filters, Limit: q.TopK}
		b, err := se.ExplainScore(ctx, req, c.ID)
		if err == nil {
			e.apply(b)
		}
	}
	return e, nil
}

// apply copies a store's breakdown onto e. A breakdown by arms (a local
// index's rank fusion) is e's fusion, and its score the one the search
// computed (a batch restricted to the explained chunks ranks them apart).
func (e *Explanation) apply(b retrieval.ScoreBreakdown) {
	e.Formula = b.Fusion
	if len(b.Arms) > 0 && e.Fusion == nil {
		e.Fusion = fusionArms(b.Arms)
		e.Fusion.Name, e.Fusion.Title = b.Fusion, new(b.TitleContribution)
		e.Scorer, e.Score = "hybrid", b.Score
	}
	parts := map[string]retrieval.TermPart{}
	for _, p := range b.Terms {
		parts[p.Term] = p
	}
	for k := range e.Terms {
		p, ok := parts[e.Terms[k].Term]
		if !ok {
			continue
		}
		e.Terms[k].Contribution = new(p.Contribution)
		e.Terms[k].IDF, e.Terms[k].TF, e.Terms[k].LengthNorm = new(p.IDF), new(p.TF), new(p.LengthNorm)
	}
	if len(b.Terms) > 0 {
		e.TitleMatch, e.TitleContribution = new(b.TitleMatch), new(b.TitleContribution)
	}
	if b.Cosine != nil {
		e.Cosine, e.CosineContribution = new(*b.Cosine), new(b.CosineContribution)
	}
}

// scorer names how the store scores.
func (x *Explainer) scorer() string {
	if x.Ranking == "" {
		return "dense"
	}
	return x.Ranking
}

// compare is the winner beside the expected chunk e.
func compare(e, winner *Explanation) *Versus {
	v := &Versus{Winner: winner, WinnerOnly: []string{}, ExpectedOnly: []string{}}
	has := func(x *Explanation, term string) bool {
		for _, t := range x.Terms {
			if t.Term == term {
				return t.InText || t.InTitle
			}
		}
		return false
	}
	for _, t := range winner.Terms {
		if (t.InText || t.InTitle) && !has(e, t.Term) {
			v.WinnerOnly = append(v.WinnerOnly, t.Term)
		}
	}
	for _, t := range e.Terms {
		if (t.InText || t.InTitle) && !has(winner, t.Term) {
			v.ExpectedOnly = append(v.ExpectedOnly, t.Term)
		}
	}
	return v
}
