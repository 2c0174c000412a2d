package gemini

import "testing"

// KnownDim knows the published Gemini embedding models, with or without
// the API's "models/" prefix, and nothing else.
func TestKnownDim(t *testing.T) {
	for model, want := range map[string]int{
		"gemini-embedding-001": 3072, "models/gemini-embedding-001": 3072,
		"text-embedding-004": 768, "models/text-embedding-004": 768,
		"embedding-001": 0, "": 0, "models/": 0,
	} {
		if got := KnownDim(model); got != want {
			t.Errorf("KnownDim(%q) = %d, want %d", model, got, want)
		}
	}
}
