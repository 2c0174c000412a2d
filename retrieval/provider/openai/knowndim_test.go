package openai

import "testing"

// KnownDim knows OpenAI's published embedding models and nothing else;
// only the text-embedding-3 models accept a shorter size.
func TestKnownDim(t *testing.T) {
	for name, want := range map[string]struct {
		dim       int
		shortable bool
	}{
		"text-embedding-3-small": {1536, true}, "text-embedding-3-large": {3072, true},
		"text-embedding-ada-002": {1536, false}, "nomic-embed-text": {0, false}, "": {0, false},
	} {
		if got := KnownDim(name); got != want.dim {
			t.Errorf("KnownDim(%q) = %d, want %d", name, got, want.dim)
		}
		m, ok := lookupModel(name)
		if ok != (want.dim > 0) || m.shortable != want.shortable {
			t.Errorf("lookupModel(%q) = %+v, %v; want dim %d, shortable %v", name, m, ok, want.dim, want.shortable)
		}
	}
}
