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
	// Fusion describes how the parts combine (local index).
	Fusion string `json:"fusion,omitempty"`
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
	select {
	case <-p.done:
	case <-ctx.Done():
		return rep, fmt.Errorf("explain: %w", ctx.Err())
	}
	if p.err != nil {
		if errors.Is(p.err, context.Canceled) || errors.Is(p.err, context.DeadlineExceeded) {
			return rep, p.err
		}
		rep.Notes = append(rep.Notes, "no attribution: "+p.err.Error())
	}
	ids := make([]string, 0, len(targets))
	for _, t := range targets {
		if t.ID != "" && !slices.Contains(ids, t.ID) {
			ids = append(ids, t.ID)
		}
	}
	chunks := map[string]retrieval.ScoredChunk{}
	var per []map[string]float64
	if p.vecs != nil {
		full, v, err := scoreBatch(ctx, x.Store, p.vecs, ids, len(p.vecs.Variants) > 0)
		if err != nil {
			return rep, err
		}
		per = v
		for _, s := range full {
			chunks[s.Chunk.ID] = s
		}
	}
	// Without the batch (no embedder, or its call failed), an expected
	// chunk is read from its page.
	if pc, ok := x.Store.(retrieval.PageChunker); ok {
		for _, t := range targets {
			if _, have := chunks[t.ID]; have || t.Expected == nil || t.Expected.DocPath == "" || t.Expected.Score == nil {
				continue
			}
			page, err := pc.PageChunks(ctx, t.Expected.DocPath)
			if err != nil {
				rep.Notes = append(rep.Notes, "read "+t.Expected.DocPath+": "+err.Error())
				continue
			}
			for _, c := range page {
				if c.ID == t.ID {
					chunks[t.ID] = retrieval.ScoredChunk{Chunk: c, Score: *t.Expected.Score}
				}
			}
		}
	}
	// Hits carry their chunks; expected ones come from the batch.
	for _, h := range res.Hits {
		if _, ok := chunks[h.Chunk.ID]; !ok {
			score := h.Score
			if h.RerankScore != nil || h.VectorRank > 0 {
				score = h.VectorScore // the store's score, not the reranker's
			}
			chunks[h.Chunk.ID] = retrieval.ScoredChunk{Chunk: h.Chunk, Score: score}
		}
	}
	note := p.note
	if p.err != nil {
		note = "the leave-one-out embed call failed"
	}
	if !p.started && note == "" {
		note = "no query embedder"
	}
	x.chunks = make(map[string]retrieval.Chunk, len(chunks))
	for id, sc := range chunks {
		x.chunks[id] = sc.Chunk
	}
	rep.Explained = make([]*Explanation, len(targets))
	for i, t := range targets {
		sc, ok := chunks[t.ID]
		if !ok {
			continue
		}
		var vec []float32
		if p.vecs != nil {
			vec = p.vecs.Vecs[0]
		}
		e, err := x.one(ctx, q, &sc, t.Rank, vec)
		if err != nil {
			return rep, err
		}
		switch {
		case per != nil:
			e.Attribution = attribute(p.vecs, sc.Score, per, t.ID)
		case x.Ranking == "bm25" && e.Contributions():
			e.AttributionNote = "the BM25 parts are the whole score"
		default:
			e.AttributionNote = note
		}
		rep.Explained[i] = e
	}
	// The expected beside the winner, then the suggestions.
	var winner *Explanation
	for i, t := range targets {
		if t.Expected == nil && t.Rank == 1 {
			winner = rep.Explained[i]
		}
	}
	for i, t := range targets {
		e := rep.Explained[i]
		if e == nil || t.Expected == nil {
			continue
		}
		if winner != nil && winner.ChunkID != e.ChunkID {
			e.Versus = compare(e, winner)
		}
		e.Suggestions = x.suggest(ctx, q, res, t.Expected, e)
	}
	return rep, nil
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
	if e.Missing == nil {
		e.Missing = []Missing{}
	}
	if l := x.Limit; l.Known {
		e.TokenLimit = l.Tokens
	}
	if se, ok := x.Store.(retrieval.ScoreExplainer); ok {
		b, err := se.ExplainScore(ctx, retrieval.SearchRequest{Text: q.Question, Vector: vec}, c.ID)
		if err == nil {
			e.apply(b)
		}
	}
	return e, nil
}

// apply copies a store's breakdown onto e.
func (e *Explanation) apply(b retrieval.ScoreBreakdown) {
	e.Fusion = b.Fusion
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
