package explain

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"ragscope/retrieval"
)

// WhatIf is where an edited (or new) chunk would rank for the question,
// scored as the collection's own chunks are; nothing is written.
type WhatIf struct {
	// Ref is the reference as given (REF of --what-if REF=FILE).
	Ref string `json:"ref"`
	// ChunkID is the chunk edited ("" for a new page).
	ChunkID string `json:"chunk_id,omitempty"`
	// Rank and Score are the edited chunk's among the current candidates;
	// Beyond says more than retrieval.RankCap chunks score above it.
	Rank   int     `json:"rank"`
	Beyond bool    `json:"rank_beyond,omitempty"`
	Score  float64 `json:"score"`
	// FromRank and FromScore are the chunk's today (null for a new page).
	FromRank  *int     `json:"from_rank"`
	FromScore *float64 `json:"from_score"`
	// New is true for a page that does not exist yet.
	New bool `json:"new,omitempty"`
}

// Edit is a what-if: a chunk's new text, or a new page's.
type Edit struct {
	// Ref is the reference as given.
	Ref string
	// Expected is where the query left the chunk edited (nil for a new
	// page).
	Expected *retrieval.Expected
	// Text is the chunk's new text; Append, when set, is words added to
	// its current text instead.
	Text   string
	Append string
}

// NewRef is the REF of a what-if for a page that does not exist yet.
const NewRef = "NEW"

// WhatIfs scores each edit as the store scores its own chunks and places
// it among the query's current candidates. A store that scores its own
// chunks (the local index's BM25) scores the edited text with its
// statistics; otherwise docs (the provider's document embedder, the
// model the collection was embedded with) embeds every edited text in
// one call and the score is the collection's distance to the question's
// vector. Explain must have run (it read the edited chunks).
func (x *Explainer) WhatIfs(ctx context.Context, p *Pending, q retrieval.Query, edits []Edit, docs retrieval.Embedder) ([]WhatIf, error) {
	if len(edits) == 0 {
		return nil, nil
	}
	if p == nil || p.vecs == nil {
		return nil, fmt.Errorf("what-if: the question's vector is missing (%s)", p.failure())
	}
	if err := x.fusedWhatIf(); err != nil {
		return nil, err
	}
	qvec := p.vecs.Vecs[0]
	chunks := make([]retrieval.Chunk, len(edits))
	out := make([]WhatIf, len(edits))
	for i, e := range edits {
		w := WhatIf{Ref: e.Ref}
		c := retrieval.Chunk{ID: "what-if", Text: e.Text}
		if e.Expected == nil {
			w.New = true
			c.Title = firstHeading(e.Text)
		} else {
			orig, ok := x.chunks[e.Expected.PointID]
			if !ok {
				return nil, fmt.Errorf("what-if %s: its chunk %s could not be read", e.Ref, e.Expected.PointID)
			}
			c = orig
			if e.Append != "" {
				c.Text = strings.TrimRight(orig.Text, "\n") + " " + e.Append
			} else {
				c.Text = e.Text
			}
			w.ChunkID = orig.ID
			w.FromRank, w.FromScore = new(e.Expected.Rank), e.Expected.Score
		}
		chunks[i], out[i] = c, w
	}
	scores, err := x.scoreEdits(ctx, q, qvec, chunks, docs)
	if err != nil {
		return nil, err
	}
	// The current candidates' scores, the edited chunk left out.
	top, err := x.Store.Search(ctx, retrieval.SearchRequest{Vector: qvec, Text: q.Question, Limit: retrieval.RankCap + 1, Filters: q.Filters, IDsOnly: true, Exact: q.Exact})
	if err != nil {
		return nil, fmt.Errorf("what-if: rank among the candidates: %w", err)
	}
	for i := range out {
		out[i].Score = scores[i]
		n := 1
		for _, s := range top {
			if s.Chunk.ID != out[i].ChunkID && s.Score > scores[i] {
				n++
			}
		}
		out[i].Rank = n
		if n > retrieval.RankCap {
			out[i].Rank, out[i].Beyond = retrieval.RankCap+1, true
		}
	}
	return out, nil
}

// fusedWhatIf refuses a what-if on a store that fuses arms without
// scoring chunks itself (a hybrid Qdrant collection): an edited chunk's
// fused score is its rank in each arm, and its BM25 arm's score needs the
// collection's term statistics, which Qdrant does not give out; a cosine
// set among fused scores would place it anywhere.
func (x *Explainer) fusedWhatIf() error {
	if _, own := x.Store.(retrieval.ScoreExplainer); own {
		return nil
	}
	if af, ok := x.Store.(ArmFuser); ok {
		if method, _ := af.ArmFusion(); method != "" {
			return fmt.Errorf("%w: a what-if cannot rank an edit in a hybrid (%s) search: the BM25 arm's score of the edited text needs the collection's term statistics, which Qdrant does not give out; rank it in the dense arm alone with --fusion dense", retrieval.ErrConfig, strings.ToUpper(method))
		}
	}
	return nil
}

// scoreEdits scores each chunk for the question as the store scores its
// own.
func (x *Explainer) scoreEdits(ctx context.Context, q retrieval.Query, qvec []float32, chunks []retrieval.Chunk, docs retrieval.Embedder) ([]float64, error) {
	out := make([]float64, len(chunks))
	if se, ok := x.Store.(retrieval.ScoreExplainer); ok {
		for i := range chunks {
			b, err := se.ScoreChunk(ctx, retrieval.SearchRequest{Vector: qvec, Text: q.Question}, chunks[i])
			if errors.Is(err, retrieval.ErrConfig) {
				return nil, err // says what to do as it is
			}
			if err != nil {
				return nil, fmt.Errorf("what-if: %w", err)
			}
			out[i] = b.Score
		}
		return out, nil
	}
	if docs == nil {
		return nil, fmt.Errorf("%w: a what-if on this collection embeds the edited text with the collection's model, and no document embedder is set up", retrieval.ErrConfig)
	}
	st, err := x.Store.Stats(ctx)
	if err != nil {
		return nil, fmt.Errorf("what-if: the collection's distance: %w", err)
	}
	texts := make([]string, len(chunks))
	for i := range chunks {
		texts[i] = chunks[i].Text
	}
	vecs, err := docs.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("what-if: embed the edited text: %w", err)
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("%w: what-if: %d vectors for %d texts", retrieval.ErrUnavailable, len(vecs), len(texts))
	}
	for i, v := range vecs {
		switch strings.ToLower(st.Distance) {
		case "cosine", "":
			out[i] = cosine(qvec, v)
		case "dot":
			out[i] = dot(qvec, v)
		default:
			return nil, fmt.Errorf("%w: a what-if scores cosine and dot collections; this one measures %s", retrieval.ErrConfig, st.Distance)
		}
	}
	return out, nil
}

func dot(a, b []float32) float64 {
	s := 0.0
	for i := range min(len(a), len(b)) {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func cosine(a, b []float32) float64 {
	na, nb := math.Sqrt(dot(a, a)), math.Sqrt(dot(b, b))
	if na == 0 || nb == 0 {
		return 0
	}
	return dot(a, b) / (na * nb)
}

// firstHeading is the text of a new page's first "# " heading, its title.
func firstHeading(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if t, ok := strings.CutPrefix(strings.TrimSpace(l), "# "); ok {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

// failure says why the pending embedding has no vectors.
func (p *Pending) failure() string {
	switch {
	case p == nil:
		return "nothing was embedded"
	case p.err != nil:
		return p.err.Error()
	case p.note != "":
		return p.note
	}
	return "nothing was embedded"
}
