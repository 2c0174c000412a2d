package explain

// WhatIf is where an edited (or new) chunk would rank for the question,
// scored as the collection's own chunks are; nothing is written.
type WhatIf struct {
	// Ref is the reference as given (REF of --what-if REF=FILE).
	Ref string `json:"ref"`
	// ChunkID is the chunk edited ("" for a new page).
	ChunkID string `json:"chunk_id,omitempty"`
	// Rank and Score are the edited chunk's among the current candidates.
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
	// FromRank and FromScore are the chunk's today (null for a new page).
	FromRank  *int     `json:"from_rank"`
	FromScore *float64 `json:"from_score"`
	// New is true for a page that does not exist yet.
	New bool `json:"new,omitempty"`
}
