package config

import (
	"errors"
	"strings"
)

// LocalSearchModes returns the ways the demo and local indexes rank, the
// default first: BM25 blended with the offline embedder, BM25 alone, the
// embedder alone (the names of package local's SearchModes).
func LocalSearchModes() []string { return []string{"hybrid", "bm25", "embedder"} }

// ParseLocalSearch reads a local search mode. Like every setting's parser
// it does not repeat the value in its error: the caller says where it came
// from.
func ParseLocalSearch(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, m := range LocalSearchModes() {
		if s == m {
			return m, nil
		}
	}
	return "", errors.New("unknown local search: use hybrid, bm25 or embedder")
}
