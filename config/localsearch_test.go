package config

import (
	"strings"
	"testing"
)

func TestParseLocalSearch(t *testing.T) {
	for in, want := range map[string]string{"hybrid": "hybrid", " BM25 ": "bm25", "Embedder": "embedder"} {
		if got, err := ParseLocalSearch(in); err != nil || got != want {
			t.Errorf("ParseLocalSearch(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := ParseLocalSearch("lexical")
	if err == nil || strings.Contains(err.Error(), "lexical") || !strings.Contains(err.Error(), "bm25, hybrid or embedder") {
		t.Errorf("bad value: err = %v", err)
	}
	if d := Default().LocalSearch; d != "" {
		t.Errorf("default %q, want \"\" (the index chooses)", d)
	}
}
