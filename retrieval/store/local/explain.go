package local

import (
	"context"
	"fmt"
	"slices"

	"ragscope/retrieval"
	"ragscope/retrieval/store/local/embed"
)

var _ retrieval.ScoreExplainer = (*Index)(nil)

// ExplainScore takes chunk id's score for req apart as the index's search
// makes it (retrieval.ScoreExplainer): each question term's BM25 part,
// read from the index's postings (its IDF, the term-frequency factor the
// index stored and the length normalisation that factor holds), the
// title match and, in the hybrid and embedder modes, the cosine (the
// embedder search's own score for the chunk). A hybrid that fuses its
// arms (WithFusion) gives its BM25 arm's score apart and its dense arm's
// cosine, with no title match (the arm fusion has none).
func (ix *Index) ExplainScore(ctx context.Context, req retrieval.SearchRequest, id string) (retrieval.ScoreBreakdown, error) {
	i := slices.IndexFunc(ix.chunks, func(c retrieval.Chunk) bool { return c.ID == id })
	if i < 0 {
		return retrieval.ScoreBreakdown{}, fmt.Errorf("explain: the index has no chunk %q", id)
	}
	return ix.breakdown(ctx, req, &ix.chunks[i], i)
}

// ScoreChunk scores c, a chunk the index does not hold, as a BM25 search
// scores its own chunks: the index's IDFs and average length, the same
// tokenizer and title match (retrieval.ScoreExplainer). The hybrid and
// embedder modes would need the chunk embedded into the embedder's fitted
// lexical space, which a saved index cannot do: they are refused.
func (ix *Index) ScoreChunk(ctx context.Context, req retrieval.SearchRequest, c retrieval.Chunk) (retrieval.ScoreBreakdown, error) {
	if m := ix.Mode(); m != ModeBM25 {
		return retrieval.ScoreBreakdown{}, fmt.Errorf("%w: a what-if on a local index scores BM25; this one searches in %s mode: run the what-if with --local-search bm25", retrieval.ErrConfig, m)
	}
	return ix.breakdown(ctx, req, &c, -1)
}

// breakdown is c's score parts; i is its place in the index, -1 for a
// chunk the index does not hold (its TF factors are computed with the
// index's average length, as the index computed its own). A hybrid whose
// fusion reads ranks or rescaled sides (rankFused) gives each side's part
// as an arm; the terms then take the BM25 side's own score apart.
func (ix *Index) breakdown(ctx context.Context, req retrieval.SearchRequest, c *retrieval.Chunk, i int) (retrieval.ScoreBreakdown, error) {
	if err := ctx.Err(); err != nil {
		return retrieval.ScoreBreakdown{}, fmt.Errorf("explain: %w", err)
	}
	mode := ix.Mode()
	f := ix.hybridFusion()
	b := retrieval.ScoreBreakdown{Ranking: ix.Ranking(), Fusion: ix.Describe()}
	// A hybrid that fuses its arms as Qdrant does: the terms take the
	// BM25 arm's score apart and the cosine is the dense arm's; their
	// parts of the fused score are the hits' Arms.
	armed := ix.arms != nil && mode == ModeHybrid
	ranked := !armed && mode == ModeHybrid && f.rescales()
	if mode != ModeEmbedder && ix.bm25 != nil {
		lexW := 1 / (1 + f.title)
		switch {
		case armed || ranked:
			lexW = 1
		case mode == ModeHybrid:
			lexW = (1 - f.vec) / (1 + f.title)
		}
		known := ix.termParts(&b, req.Text, c, i, lexW, !ranked)
		if known && !armed && !ranked {
			b.TitleMatch = titleMatch(distinct(embed.Terms(req.Text)), c)
			b.TitleContribution = f.title * b.TitleMatch / (1 + f.title)
			b.Score += b.TitleContribution
		}
	}
	if mode == ModeBM25 || i < 0 {
		return b, nil
	}
	if ranked {
		return ix.rankedParts(ctx, b, f, req, c, i)
	}
	cos, err := ix.cosineOf(ctx, req, c.ID)
	if err != nil {
		return b, err
	}
	b.Cosine = &cos
	switch {
	case armed:
		return b, nil
	case mode == ModeHybrid:
		b.CosineContribution = f.vec * cos / (1 + f.title)
	default:
		b.CosineContribution = cos
	}
	b.Score += b.CosineContribution
	return b, nil
}

// termParts sets b's terms: each question term's BM25 part of c's score,
// weighted lexW, added to b.Score when toScore. It reports whether any
// of the question's terms occurs in the corpus.
func (ix *Index) termParts(b *retrieval.ScoreBreakdown, text string, c *retrieval.Chunk, i int, lexW float64, toScore bool) bool {
	q := ix.bm25.query(text)
	docTerms := embed.Terms(bm25Doc(c))
	counts := map[string]int{}
	for _, t := range docTerms {
		counts[t]++
	}
	avgdl := 0.0
	if i < 0 {
		avgdl = ix.avgDocLen()
	}
	norm := 0.0
	for _, t := range embed.DistinctTerms(text) {
		p := retrieval.TermPart{Term: t, Count: counts[t], IDF: ix.bm25.idfOf(t)}
		switch {
		case p.Count == 0:
		case i >= 0:
			p.TF = ix.bm25.tfOf(t, i)
			if p.TF > 0 {
				// The stored factor holds the chunk's length norm.
				f := float64(p.Count)
				norm = (f*(bm25K1+1)/p.TF - f) / bm25K1
			}
		default:
			p.TF = bm25TF(float64(p.Count), float64(len(docTerms)), avgdl)
			norm = 1 - bm25B + bm25B*float64(len(docTerms))/max(avgdl, 1)
		}
		if q.best > 0 && q.known {
			p.Contribution = lexW * p.IDF * p.TF / q.best
		}
		b.Terms = append(b.Terms, p)
		if toScore {
			b.Score += p.Contribution
		}
	}
	if norm == 0 && avgdl > 0 {
		norm = 1 - bm25B + bm25B*float64(len(docTerms))/max(avgdl, 1)
	}
	for k := range b.Terms {
		b.Terms[k].LengthNorm = norm
	}
	return q.known
}

// rankedParts completes b for chunk i of a hybrid whose fusion reads
// ranks or rescaled sides: it gathers the candidates as the search does
// (req's filters and limit), and gives each side's rank, score and part
// of the fused score as an arm, and the title match's part. A chunk among
// neither side's candidates is not fused: its parts and score are 0.
func (ix *Index) rankedParts(ctx context.Context, b retrieval.ScoreBreakdown, f fusion, req retrieval.SearchRequest, c *retrieval.Chunk, i int) (retrieval.ScoreBreakdown, error) {
	q, lex, err := ix.lexScores(req.Text, f, ModeHybrid)
	if err != nil {
		return b, fmt.Errorf("explain: %w", err)
	}
	vec, err := ix.cosines(ctx, req)
	if err != nil {
		return b, fmt.Errorf("explain: %w", err)
	}
	cos := vec[i]
	b.Cosine = &cos
	b.TitleMatch = titleMatch(distinct(embed.Terms(req.Text)), c)
	bm25 := 0.0
	if lex != nil {
		bm25 = lex[i]
	}
	dense := retrieval.Arm{Label: "dense", Vector: "dense", Part: new(0.0)}
	sparse := retrieval.Arm{Label: "bm25", Vector: "bm25", Part: new(0.0)}
	if q.known {
		cs := ix.candidates(f, lex, vec, passes(ix, req), req.Text, req.Limit)
		if r, ok := cs.sideRank[i]; ok {
			p := cs.parts(f, i)
			if r[0] > 0 {
				sparse.Rank, sparse.Score = r[0], bm25
			}
			if r[1] > 0 {
				dense.Rank, dense.Score = r[1], cos
			}
			sparse.Part, dense.Part = new(p[0]), new(p[1])
			b.CosineContribution, b.TitleContribution = p[1], p[2]
			b.Score = p[0] + p[1] + p[2]
		}
	}
	b.Arms = []retrieval.Arm{dense, sparse}
	return b, nil
}

// cosineOf is the embedder search's score of chunk id for req: the cosine
// exactly as Search computes it.
func (ix *Index) cosineOf(ctx context.Context, req retrieval.SearchRequest, id string) (float64, error) {
	v, err := ix.WithMode(ModeEmbedder)
	if err != nil {
		return 0, err
	}
	req.Filters = retrieval.Filters{IDs: []string{id}}
	req.Limit, req.Threshold = 1, 0
	got, err := v.Search(ctx, req)
	if err != nil {
		return 0, fmt.Errorf("explain: %w", err)
	}
	if len(got) == 0 {
		return 0, nil
	}
	return got[0].Score, nil
}

// avgDocLen is the average number of BM25 terms a chunk has, as
// newBM25Index computed it, counted on first use.
func (ix *Index) avgDocLen() float64 {
	ix.lazy.avgdlOnce.Do(func() {
		total := 0
		for i := range ix.chunks {
			total += len(embed.Terms(bm25Doc(&ix.chunks[i])))
		}
		ix.lazy.avgdl = 1
		if len(ix.chunks) > 0 {
			ix.lazy.avgdl = max(1, float64(total)/float64(len(ix.chunks)))
		}
	})
	return ix.lazy.avgdl
}

// tfOf is the term-frequency factor the index stored for term in chunk i
// (0 when the chunk lacks it).
func (ix *bm25Index) tfOf(term string, i int) float64 {
	j, ok := slices.BinarySearch(ix.keys, termKey(term))
	if !ok {
		return 0
	}
	lo, hi := ix.start[j], ix.start[j+1]
	p, ok := slices.BinarySearch(ix.doc[lo:hi], int32(i))
	if !ok {
		return 0
	}
	return float64(ix.tf[lo+int32(p)])
}
