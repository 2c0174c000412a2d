package local

// SetBlend sets ix's hybrid blend's cosine and title weights: for tuning.
func SetBlend(ix *Index, vec, title float64) {
	ix.fusion = &fusion{vec: vec, title: title, candidates: defaultFusion.candidates}
}
