package cli

import (
	"ragscope/app"
	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/explain"
)

// QuerySchema names the version of the query JSON document.
const QuerySchema = "ragscope.query/v1"

// BackendJSON describes the backend in JSON output.
type BackendJSON struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Collection string `json:"collection"`
	Model      string `json:"model"`
	// Provider is the query embedder's provider (cohere, openai); omitted
	// for the offline embedder.
	Provider string `json:"provider,omitempty"`
	// Search is how a local index ranks ("hybrid 0.8×cosine + 0.2×BM25");
	// omitted for remote backends.
	Search string `json:"search,omitempty"`
}

// QueryJSON is the stable JSON document of `ragscope query --json`.
type QueryJSON struct {
	Schema         string        `json:"schema"`
	Backend        BackendJSON   `json:"backend"`
	Query          string        `json:"query"`
	Mode           string        `json:"mode"`
	Truncated      bool          `json:"truncated"`
	OriginalLength int           `json:"original_length,omitempty"`
	Params         ParamsJSON    `json:"params"`
	Count          int           `json:"count"`
	Results        []HitJSON     `json:"results"`
	Dropped        []DroppedJSON `json:"dropped"`
	TimingsMS      TimingsJSON   `json:"timings_ms"`
	Grounded       GroundedJSON  `json:"grounded"`
	// Rerank describes the reranking; omitted without it.
	Rerank *RerankJSON `json:"rerank,omitempty"`
	// Judging describes the judge run (--judge); omitted without it.
	Judging *JudgeRunJSON `json:"judging,omitempty"`
	// Expected says where each --expect source went; ANNCheck compares
	// the search with an exact one (--ann-check). Omitted unless asked.
	Expected []ExpectedJSON      `json:"expected,omitempty"`
	ANNCheck *retrieval.ANNCheck `json:"ann_check,omitempty"`
	// DiagnosisNotes say what --expect or --ann-check could not show.
	DiagnosisNotes []string `json:"diagnosis_notes,omitempty"`
	// ExplainNotes say what --explain could not show (a failed embed
	// call).
	ExplainNotes []string `json:"explain_notes,omitempty"`
	// WhatIf says where each --what-if edit would rank.
	WhatIf []explain.WhatIf `json:"what_if,omitempty"`
}

// ExpectedJSON is an expected source (retrieval.Expected) with its
// explanation, when explained.
type ExpectedJSON struct {
	retrieval.Expected
	Explain *present.ExplainJSON `json:"explain,omitempty"`
}

// expectedJSON is es as JSON rows.
func expectedJSON(es []retrieval.Expected) []ExpectedJSON {
	out := make([]ExpectedJSON, len(es))
	for i := range es {
		out[i].Expected = es[i]
	}
	return out
}

// ParamsJSON are the parameters used.
type ParamsJSON struct {
	TopK      int               `json:"top_k"`
	Threshold float64           `json:"threshold"`
	Dedup     bool              `json:"dedup"`
	Filters   retrieval.Filters `json:"filters"`
	SlugStyle string            `json:"slug_style"`
	// Ranking is how the store ranked: "hybrid" or "bm25" on the local
	// index, left out for vector similarity (retrieval.Params.Ranking).
	Ranking string `json:"ranking,omitempty"`
}

// HitJSON is one ranked chunk.
type HitJSON struct {
	Rank        int               `json:"rank"`
	Score       float64           `json:"score"`
	ChunkID     string            `json:"chunk_id"`
	Title       string            `json:"title"`
	Section     string            `json:"section"`
	URL         string            `json:"url"`
	URLSource   string            `json:"url_source"`
	DocPath     string            `json:"doc_path"`
	Module      string            `json:"module"`
	Chapter     string            `json:"chapter"`
	ChunkIndex  *int              `json:"chunk_index"`
	TotalChunks *int              `json:"total_chunks"`
	ContentType string            `json:"content_type"`
	Tags        []string          `json:"tags"`
	ContentHash string            `json:"content_hash"`
	Text        string            `json:"text"`
	Extra       map[string]string `json:"extra,omitempty"`
	// Rerank: set when reranked. score is then the relevance.
	VectorRank  int      `json:"vector_rank,omitempty"`
	VectorScore *float64 `json:"vector_score,omitempty"`
	RerankScore *float64 `json:"rerank_score,omitempty"`
	Movement    string   `json:"movement,omitempty"`
	// ScoreParts: set by a hybrid search, the BM25, cosine and title
	// scores the score was blended from.
	ScoreParts *retrieval.ScoreParts `json:"score_parts,omitempty"`
	// Arms: set by a fused (hybrid) search, the hit's rank and score in
	// each arm alone.
	Arms []present.ArmJSON `json:"arms,omitempty"`
	// Judge: set with --judge, the hit's grade (null when not judged).
	Judge *JudgeJSON `json:"judge,omitempty"`
	// Explain: set with --explain, the score taken apart.
	Explain *present.ExplainJSON `json:"explain,omitempty"`
}

// DroppedJSON is a chunk left out, and why.
type DroppedJSON struct {
	HitJSON
	Reason      string  `json:"reason"`
	DuplicateOf int     `json:"duplicate_of,omitempty"`
	Similarity  float64 `json:"similarity,omitempty"`
}

// TimingsJSON are stage timings in milliseconds.
type TimingsJSON struct {
	// Load is the index load or build time this process paid before the
	// query (local backends), included in Total.
	Load   float64 `json:"load,omitempty"`
	Embed  float64 `json:"embed"`
	Search float64 `json:"search"`
	Post   float64 `json:"post"`
	Rerank float64 `json:"rerank,omitempty"`
	Total  float64 `json:"total"`
}

// GroundedJSON is what an answering agent receives.
type GroundedJSON struct {
	SufficientContext bool         `json:"sufficient_context"`
	SystemInstruction string       `json:"system_instruction"`
	Context           string       `json:"context"`
	Sources           []SourceJSON `json:"sources"`
}

// SourceJSON is the citation of "[Source N: …]".
type SourceJSON struct {
	N       int    `json:"n"`
	Title   string `json:"title"`
	Section string `json:"section"`
	URL     string `json:"url"`
}

func hitJSON(h retrieval.Hit) HitJSON {
	tags := h.Chunk.Tags
	if tags == nil {
		tags = []string{}
	}
	return HitJSON{
		Rank: h.Rank, Score: h.Score, ChunkID: h.Chunk.ID,
		Title: h.Chunk.Title, Section: h.Chunk.Section,
		URL: h.Citation.URL, URLSource: h.Citation.Source,
		DocPath: h.Chunk.DocPath, Module: h.Chunk.Module, Chapter: h.Chunk.Chapter,
		ChunkIndex: h.Chunk.ChunkIndex, TotalChunks: h.Chunk.TotalChunks,
		ContentType: h.Chunk.ContentType, Tags: tags, ContentHash: h.Chunk.ContentHash,
		Text: h.Chunk.Text, Extra: h.Chunk.Extra,
		VectorRank: h.VectorRank, VectorScore: vectorScore(h), RerankScore: h.RerankScore,
		ScoreParts: h.ScoreParts, Arms: present.ArmsJSON(h.Arms),
	}
}

func backendJSON(be *app.Backend) BackendJSON {
	return BackendJSON{Kind: string(be.Kind), Name: be.Label, Collection: be.Collection, Model: be.Model(), Provider: be.Provider, Search: be.SearchLabel()}
}

func queryJSON(be *app.Backend, res retrieval.Result) QueryJSON {
	out := QueryJSON{
		Schema:         QuerySchema,
		Backend:        backendJSON(be),
		Query:          res.Question,
		Mode:           string(res.Mode),
		Truncated:      res.Truncated,
		OriginalLength: res.OriginalLength,
		Params: ParamsJSON{
			TopK: res.Params.TopK, Threshold: res.Params.Threshold, Dedup: res.Params.Dedup,
			Filters: res.Params.Filters, SlugStyle: res.Params.SlugStyle, Ranking: res.Params.Ranking,
		},
		Count:   len(res.Hits),
		Results: make([]HitJSON, 0, len(res.Hits)),
		Dropped: make([]DroppedJSON, 0, len(res.Dropped)),
		TimingsMS: TimingsJSON{
			Load: ms(res.Timings.Load), Embed: ms(res.Timings.Embed), Search: ms(res.Timings.Search),
			Post: ms(res.Timings.Post), Rerank: ms(res.Timings.Rerank), Total: ms(res.Timings.Total),
		},
		Grounded: GroundedJSON{
			SufficientContext: res.Grounded.Sufficient,
			SystemInstruction: res.Grounded.Instruction,
			Context:           res.Grounded.Context,
			Sources:           make([]SourceJSON, 0, len(res.Grounded.Sources)),
		},
	}
	moves := res.Movements()
	for i, h := range res.Hits {
		hj := hitJSON(h)
		if moves != nil {
			hj.Movement = moveWord(moves[i])
		}
		out.Results = append(out.Results, hj)
	}
	out.Rerank = rerankJSON(res.Rerank)
	for _, d := range res.Dropped {
		out.Dropped = append(out.Dropped, DroppedJSON{HitJSON: hitJSON(d.Hit), Reason: d.Reason, DuplicateOf: d.DuplicateOf, Similarity: d.Similarity})
	}
	for i, s := range res.Grounded.Sources {
		out.Grounded.Sources = append(out.Grounded.Sources, SourceJSON{N: i + 1, Title: s.Title, Section: s.Section, URL: s.URL})
	}
	return out
}
