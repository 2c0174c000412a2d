package config

import (
	"fmt"
	"strings"
)

// LocalSearchModes returns the ways the demo and local indexes rank, the
// default first: BM25 blended with the offline embedder, BM25 alone, the
// embedder alone (the names of package local's SearchModes).
func LocalSearchModes() []string { return []string{"hybrid", "bm25", "embedder"} }

// ParseLocalSearch reads a local search mode.
func ParseLocalSearch(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, m := range LocalSearchModes() {
		if s == m {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown local search %q: use hybrid, bm25 or embedder", s)
}
