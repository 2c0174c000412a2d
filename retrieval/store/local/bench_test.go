package local

import (
	"context"
	"fmt"
	"testing"

	"ragscope/retrieval"
)

// BenchmarkSearch10k measures one exact search over 10,000 chunks (budget:
// under 10 ms per query on one core).
func BenchmarkSearch10k(b *testing.B) {
	const n = 10000
	for _, dim := range []int{356, 512} {
		for _, tc := range []struct {
			name string
			f    retrieval.Filters
		}{{"nofilter", retrieval.Filters{}}, {"filter", retrieval.Filters{Modules: []string{"m1", "m2"}, Tags: []string{"t3"}}}} {
			b.Run(fmt.Sprintf("dim%d/%s", dim, tc.name), func(b *testing.B) {
				chunks := make([]retrieval.Chunk, n)
				for i := range chunks {
					chunks[i] = retrieval.Chunk{ID: fmt.Sprintf("docs/p%d.md#%d", i/10, i%10), Module: fmt.Sprint("m", i%4), Tags: []string{fmt.Sprint("t", i%7)}}
				}
				ix, err := NewIndex(chunks, randomUnit(n, dim, 42), IndexInfo{})
				if err != nil {
					b.Fatal(err)
				}
				queries := randomUnit(64, dim, 43)
				ctx := context.Background()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					res, err := ix.Search(ctx, retrieval.SearchRequest{Vector: queries[i%len(queries)], Limit: 100, Filters: tc.f})
					if err != nil || len(res) == 0 {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkBuildDemo measures building the demo index: chunking, fitting
// the embedder, embedding and indexing (budget: under 1 s).
func BenchmarkBuildDemo(b *testing.B) {
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		if _, _, err := OpenDemo(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
