package local

// SetBlend sets ix's hybrid blend's cosine and title weights: for tuning.
func SetBlend(ix *Index, vec, title float64) {
	ix.fusion = &fusion{vec: vec, title: title, candidates: defaultFusion.candidates}
}

// DefaultBlend returns the default hybrid's cosine and title weights.
func DefaultBlend() (vec, title float64) { return defaultFusion.vec, defaultFusion.title }
