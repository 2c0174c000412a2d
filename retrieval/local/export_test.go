package local

// SetBlend makes ix's hybrid blend vec×cosine + (1-vec)×BM25: for tuning.
func SetBlend(ix *Index, vec float64) {
	ix.fusion = &fusion{vec: vec, candidates: defaultFusion.candidates}
}
