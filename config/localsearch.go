package config

import (
	"errors"
	"strings"
)

// LocalSearchModes returns the ways the demo and local indexes rank, the
// default first: BM25 alone, BM25 blended with the offline embedder, the
// embedder alone (the names of package local's SearchModes).
func LocalSearchModes() []string { return []string{"bm25", "hybrid", "embedder"} }

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
	return "", errors.New("unknown local search: use bm25, hybrid or embedder")
}

// Fusions returns the fusion settings: how a collection (or index) with a
// dense and a sparse arm is searched.
func Fusions() []string { return []string{"rrf", "dbsf", "dense", "sparse"} }

// ParseFusion reads a fusion setting; "" and "auto" are auto.
func ParseFusion(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || s == "auto" {
		return "", nil
	}
	for _, f := range Fusions() {
		if s == f {
			return f, nil
		}
	}
	return "", errors.New("unknown fusion: use rrf, dbsf, dense or sparse (or auto)")
}
