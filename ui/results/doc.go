// Package results is the explorer's result list: each hit in three lines
// (rank, fused score and bar, title; place, marks and each arm's rank; URL
// and link state), the hits left out, the expected sources and the
// what-if rows, and the expected-source picker (w).
package results
