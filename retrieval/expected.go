package retrieval

import (
	"fmt"
	"strconv"
)

// Expected is where one expected source went for a question.
type Expected struct {
	// Ref is the reference as given.
	Ref string `json:"ref"`
	// PointID, DocPath and Section identify the source's best chunk for
	// the question (empty when not found).
	PointID string `json:"point_id"`
	DocPath string `json:"doc_path,omitempty"`
	Section string `json:"section,omitempty"`
	// Rank is the chunk's rank as the results list would show it: its
	// rank in the results when it is there; else its place in the
	// query's search (its filters applied, unless they cut the chunk:
	// then among all points), from 1, less the near-duplicates above it
	// that dedup leaves out of the list (DuplicatesAbove; counted among
	// the query's candidates and the best dupWindow points). With a
	// reranker, its place in the vector search. 0 when not found.
	Rank int `json:"rank"`
	// DuplicatesAbove is the number of near-duplicates above the chunk
	// that the list leaves out (so -k Rank+DuplicatesAbove reaches it).
	DuplicatesAbove int `json:"duplicates_above,omitempty"`
	// ChunkIndex and TotalChunks place the best chunk in its page (from
	// 0; nil when unknown).
	ChunkIndex  *int `json:"chunk_index,omitempty"`
	TotalChunks *int `json:"total_chunks,omitempty"`
	// ExactRank is the rank an exact search gives; RankCap+1 with Beyond
	// when more than RankCap points score above it.
	ExactRank int  `json:"exact_rank"`
	Beyond    bool `json:"rank_beyond,omitempty"`
	// Score is the chunk's score for the question (nil when not found).
	Score *float64 `json:"score"`
	// Cut is the first stage that cut the chunk (the Cut* codes), "" when
	// it reached the results. CutNoMatch: the source is in the collection
	// (Chunks chunks) but the search scored none of them (no chunk holds
	// a word of the question, on a lexical search).
	Cut string `json:"cut"`
	// Chunks is the number of the source's chunks, with CutNoMatch.
	Chunks int `json:"chunks,omitempty"`
	// Detail says it in words: "in the results at #2", "cut by top_k 5
	// (rank 23 of 5)", "not in the collection"; after a fused (hybrid)
	// search it first places the chunk in each arm: "dense #40, bm25: no
	// query word in the chunk, fused #22, cut by top_k 5".
	Detail string `json:"detail"`
	// Arms, after a fused search, place the chunk in each arm alone (nil
	// otherwise, and when the fused ranking did not reach the chunk).
	Arms []Arm `json:"arms,omitempty"`
}

// Found reports whether the expected source has a chunk in the
// collection (scored for the question or not).
func (e *Expected) Found() bool { return e.Cut != CutNotFound }

// RankText is the rank as people read it: "#23", "beyond #1,000", "".
func (e *Expected) RankText() string {
	switch {
	case e.Beyond:
		return "beyond #1,000"
	case e.Rank > 0:
		return "#" + strconv.Itoa(e.Rank)
	}
	return ""
}

// Sentence is the one-line account of e, its rank said once: "expected
// docs/a.md ranked #23 (0.310), cut by top_k 5", "expected docs/a.md in
// the results at #2 (0.610)", "expected x not in the collection".
func (e *Expected) Sentence() string {
	name := e.Ref
	score := ""
	if e.Score != nil {
		score = fmt.Sprintf(" (%.3f)", *e.Score)
	}
	switch e.Cut {
	case CutNotFound:
		return "expected " + name + " " + e.Detail
	case CutNoMatch:
		return "expected " + name + ": " + e.Detail
	case CutNone:
		return "expected " + name + " " + e.Detail + score + e.dupsText()
	}
	s := "expected " + name
	if rt := e.RankText(); rt != "" {
		s += " ranked " + rt
	}
	return s + score + ", " + e.Detail + e.dupsText()
}

// dupsText says that near-duplicates above the chunk were left out of
// the list, and for a chunk top_k cut, the top_k that reaches it.
func (e *Expected) dupsText() string {
	n := e.DuplicatesAbove
	if n == 0 {
		return ""
	}
	s := fmt.Sprintf("; %d near-%s above it left out of the list", n, plural(n, "duplicate", "duplicates"))
	if e.Cut == CutTopK && !e.Beyond {
		s += fmt.Sprintf(", so -k %d reaches it", e.Rank+n)
	}
	return s
}

// PlaceText is where the best chunk sits in its page: "chunk 2/6", ""
// when unknown.
func (e *Expected) PlaceText() string {
	if e.ChunkIndex == nil {
		return ""
	}
	s := "chunk " + strconv.Itoa(*e.ChunkIndex+1)
	if e.TotalChunks != nil {
		s += "/" + strconv.Itoa(*e.TotalChunks)
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
