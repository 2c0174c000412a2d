package retrieval

import "context"

// TermPart is one question term's part in a lexical (BM25) score, as the
// store that scored the chunk computed it.
type TermPart struct {
	// Term is the index term (the lexical search's tokenizer's output).
	Term string `json:"term"`
	// Count is how often the term occurs in the text BM25 scores (the
	// chunk's title, section and text).
	Count int `json:"count"`
	// IDF is the term's inverse document frequency in the store.
	IDF float64 `json:"idf"`
	// TF is the saturated term-frequency factor f(k1+1)/(f+k1·norm), 0
	// when the chunk lacks the term.
	TF float64 `json:"tf"`
	// LengthNorm is 1-b+b·|d|/avgdl for the chunk: above 1 for a chunk
	// longer than the store's average, which lowers every TF.
	LengthNorm float64 `json:"length_norm"`
	// Contribution is the term's part of the chunk's score, in the
	// score's units (the parts and the title's add up to the score).
	Contribution float64 `json:"contribution"`
}

// ScoreBreakdown is a chunk's score taken apart by the store that made
// it: BM25 per term, the title match and, when the ranking blends it in,
// the embedder's cosine.
type ScoreBreakdown struct {
	// Score is the chunk's score, as a search returns it.
	Score float64 `json:"score"`
	// Ranking is the store's ranking ("bm25", "hybrid", "" for vector
	// similarity alone).
	Ranking string `json:"ranking,omitempty"`
	// Terms are the question's terms in question order (empty when the
	// ranking has no lexical side).
	Terms []TermPart `json:"terms,omitempty"`
	// TitleMatch is how well the question names the chunk's page (0..1)
	// and TitleContribution its part of Score.
	TitleMatch        float64 `json:"title_match"`
	TitleContribution float64 `json:"title_contribution"`
	// Cosine is the embedder's cosine (nil when the ranking does not use
	// it) and CosineContribution its part of Score.
	Cosine             *float64 `json:"cosine,omitempty"`
	CosineContribution float64  `json:"cosine_contribution,omitempty"`
	// Fusion names how the parts were combined.
	Fusion string `json:"fusion,omitempty"`
	// Arms, when the fusion reads each side's rank or rescales it (a
	// local index's reciprocal rank fusion), are the chunk's place in each
	// side (dense, bm25) and its part of Score (Arm.Part, as the fusion
	// weighs it); Score is then those parts and TitleContribution, and
	// the terms take the BM25 side's own score apart.
	Arms []Arm `json:"arms,omitempty"`
}

// ScoreExplainer is implemented by stores that can take their own score
// apart (the local index). ExplainScore gives the parts of the score of
// chunk id for req (its Text and Vector, as the search got them);
// ScoreChunk scores c, a chunk the store does not hold (an edited or a new
// page), exactly as the store scores its own chunks, with the store's
// statistics. Neither changes the store.
type ScoreExplainer interface {
	ExplainScore(ctx context.Context, req SearchRequest, id string) (ScoreBreakdown, error)
	ScoreChunk(ctx context.Context, req SearchRequest, c Chunk) (ScoreBreakdown, error)
}

// SearchAll runs reqs in one batch call when the store has one (a
// QueryBatch on Qdrant: one round trip), else concurrently; the answers
// are in reqs' order.
func SearchAll(ctx context.Context, store Store, reqs []SearchRequest) ([][]ScoredChunk, error) {
	return searchAll(ctx, store, reqs)
}

// StoreFor is the store that answers q: the pipeline's store, or its
// view in q's search mode (what an explanation scores with).
func (p *Pipeline) StoreFor(q Query) (Store, error) { return p.storeFor(q) }
