package cohere

import "testing"

// KnownDim knows Cohere's published embedding models (their documented
// sizes) and nothing else.
func TestKnownDim(t *testing.T) {
	for model, want := range map[string]int{
		"embed-english-v3.0": 1024, "embed-multilingual-v3.0": 1024,
		"embed-english-light-v3.0": 384, "embed-multilingual-light-v3.0": 384,
		"embed-english-v2.0": 0, "": 0, "EMBED-ENGLISH-V3.0": 0,
	} {
		if got := KnownDim(model); got != want {
			t.Errorf("KnownDim(%q) = %d, want %d", model, got, want)
		}
	}
}
