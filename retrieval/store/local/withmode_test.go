package local

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"ragscope/retrieval"
)

// WithMode gives a view in another mode and leaves the index as it was;
// the view shares the index's data (its lazily built stats and titles
// too) and names its own mode in its stats; an unknown mode is a
// configuration error.
func TestWithModeIsAView(t *testing.T) {
	ctx := context.Background()
	ix, _, err := OpenDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bm, err := ix.WithMode(ModeHybrid)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Mode() != ModeBM25 || bm.Mode() != ModeHybrid || ix.Describe() != "BM25 + title match" {
		t.Fatalf("index %s (%s), view %s", ix.Mode(), ix.Describe(), bm.Mode())
	}
	if &bm.chunks[0] != &ix.chunks[0] || &bm.vecs[0] != &ix.vecs[0] || bm.bm25 != ix.bm25 || bm.lazy != ix.lazy {
		t.Fatal("the view copied the index's data")
	}
	for v, want := range map[*Index]string{ix: "search: BM25 + title match", bm: "search: hybrid 0.8×cosine"} {
		st, err := v.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(st.Notes, func(n string) bool { return len(n) >= len(want) && n[:len(want)] == want }) {
			t.Errorf("%s: notes %q lack %q", v.Mode(), st.Notes, want)
		}
	}
	if _, err := ix.WithMode("vector"); !errors.Is(err, retrieval.ErrConfig) {
		t.Errorf("unknown mode: %v", err)
	}
	if s, err := ix.WithSearchMode("EMBEDDER"); err != nil || s.(*Index).Mode() != ModeEmbedder {
		t.Errorf("WithSearchMode(EMBEDDER): %v %v", s, err)
	}
}

// Views in the three modes search at once (and build the shared lazy
// parts at once) and each gets what it gets alone: the run under -race
// is the point. The question ranks differently in each mode, so a view
// that ranked in another's mode would be caught.
func TestWithModeViewsSearchConcurrently(t *testing.T) {
	ctx := context.Background()
	ix, c, err := OpenDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	questions := []string{"What is ROS 2?", "How do I simulate a lidar in Gazebo?", "reward shaping for walking"}
	reqs := make([]retrieval.SearchRequest, len(questions))
	for i, q := range questions {
		v, err := c.Embedder.Embed(ctx, []string{q})
		if err != nil {
			t.Fatal(err)
		}
		reqs[i] = retrieval.SearchRequest{Vector: v[0], Text: q, Limit: 5}
	}
	// Alone, one view after the other.
	want := map[SearchMode][][]string{}
	for _, m := range SearchModes() {
		v, err := ix.WithMode(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, req := range reqs {
			got, err := v.Search(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			want[m] = append(want[m], scoredIDs(got))
		}
	}
	modes := SearchModes()
	for i, a := range modes {
		for _, b := range modes[i+1:] {
			if slices.Equal(want[a][0], want[b][0]) {
				t.Fatalf("%s and %s rank %q alike, so this test could not catch a mix-up: %v", a, b, questions[0], want[a][0])
			}
		}
	}
	// At once: fresh views of a fresh index, each mode several times,
	// with stats and page titles asked of the views meanwhile.
	ix2, _, err := OpenDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 3 {
		for _, m := range SearchModes() {
			wg.Go(func() {
				v, err := ix2.WithMode(m)
				if err != nil {
					errs <- err
					return
				}
				if _, err := v.Stats(ctx); err != nil {
					errs <- err
				}
				v.PageTitle(ctx, "docs/module-1-ros2/01-what-is-ros2.md")
				for i, req := range reqs {
					got, err := v.Search(ctx, req)
					if err != nil {
						errs <- err
						return
					}
					if ids := scoredIDs(got); !slices.Equal(ids, want[m][i]) {
						t.Errorf("%s, %q: %v at once, %v alone", m, questions[i], ids, want[m][i])
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if ix2.Mode() != DefaultMode {
		t.Errorf("the index's mode became %s", ix2.Mode())
	}
}

func scoredIDs(s []retrieval.ScoredChunk) []string {
	ids := make([]string, len(s))
	for i := range s {
		ids[i] = s[i].Chunk.ID
	}
	return ids
}

// BenchmarkWithMode is what a query that names a mode pays for its view
// of the index (the pipeline takes one per such query), beside a search.
func BenchmarkWithMode(b *testing.B) {
	ctx := context.Background()
	ix, c, err := OpenDemo(ctx)
	if err != nil {
		b.Fatal(err)
	}
	v, err := c.Embedder.Embed(ctx, []string{"What is ROS 2?"})
	if err != nil {
		b.Fatal(err)
	}
	req := retrieval.SearchRequest{Vector: v[0], Text: "What is ROS 2?", Limit: 5}
	b.Run("view", func(b *testing.B) {
		for b.Loop() {
			if _, err := ix.WithSearchMode("bm25"); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, m := range SearchModes() {
		b.Run("view+search/"+string(m), func(b *testing.B) {
			for b.Loop() {
				s, err := ix.WithSearchMode(string(m))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Search(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
