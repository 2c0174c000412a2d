// Package settings is the explorer's settings pane (s): top_k, threshold,
// dedup, the left-out hits, the local search mode, reranking, the
// automatic answer, the golden file, the compared setup and the filters
// with their value pickers.
package settings
