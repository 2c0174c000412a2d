// Package storetest is the contract test suite every retrieval.Store must
// pass (Qdrant, local in-memory, …).
//
// Use it from a _test.go file:
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T, chunks []retrieval.Chunk, vectors [][]float32) retrieval.Store {
//			return newStoreHolding(t, chunks, vectors) // clean up with t.Cleanup
//		})
//	}
//
// newStore must return a store holding exactly the given chunks, chunk i
// with vector i (same length, unit vectors: cosine and dot agree). It may
// be called several times, with different chunks, including none. Chunk
// IDs are decimal numbers ("1", "2", …) so stores with numeric point ids
// (Qdrant) can keep them. Scores must be the cosine similarity (±1e-4).
package storetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"testing"

	"ragscope/retrieval"
)

// Dim is the vector size of the suite's chunks.
const Dim = 8

// fixture is one chunk of the suite with its score against Query().
type fixture struct {
	module, chapter, ctype string
	tags                   []string
}

var fixtures = []fixture{
	{"mod-a", "ch-1", "lesson", []string{"ros", "intro"}},
	{"mod-b", "ch-2", "lab", []string{"ros"}},
	{"mod-a", "ch-2", "lesson", []string{"sim"}},
	{"mod-c", "ch-3", "reference", nil},
	{"mod-b", "ch-1", "lesson", []string{"sim", "ros"}},
	{"mod-a", "ch-1", "lab", []string{"intro"}},
	{"mod-c", "ch-2", "lesson", []string{"ros"}},
	{"mod-b", "ch-3", "lab", nil},
	{"mod-a", "ch-3", "reference", []string{"sim"}},
	{"mod-c", "ch-1", "lesson", []string{"intro", "sim"}},
}

// score of fixture i against Query: 0.95, 0.86, … 0.14.
func score(i int) float64 { return 0.95 - 0.09*float64(i) }

// Query is the query vector: the first unit vector.
func Query() []float32 {
	q := make([]float32, Dim)
	q[0] = 1
	return q
}

// Corpus returns the suite's chunks and unit vectors; chunk i has cosine
// score 0.95-0.09*i with Query. They are stored shuffled so a store cannot
// pass by keeping insertion order.
func Corpus() ([]retrieval.Chunk, [][]float32) {
	order := []int{3, 7, 0, 9, 5, 1, 8, 2, 6, 4}
	chunks := make([]retrieval.Chunk, 0, len(fixtures))
	vecs := make([][]float32, 0, len(fixtures))
	for _, i := range order {
		f := fixtures[i]
		s := score(i)
		v := make([]float32, Dim)
		v[0] = float32(s)
		v[1+i%(Dim-1)] = float32(math.Sqrt(1 - s*s))
		chunks = append(chunks, retrieval.Chunk{
			ID:          fmt.Sprint(i + 1),
			Text:        fmt.Sprintf("Chunk %d of %s, %s: a %s about %v.", i+1, f.module, f.chapter, f.ctype, f.tags),
			URL:         fmt.Sprintf("https://example.org/docs/%s/%s#part-%d", f.module, f.chapter, i+1),
			DocPath:     fmt.Sprintf("docs/%s/%s.md", f.module, f.chapter),
			Title:       "Title " + f.chapter,
			Section:     fmt.Sprintf("Part %d", i+1),
			Module:      f.module,
			Chapter:     f.chapter,
			ChunkIndex:  retrieval.IntPtr(i),
			TotalChunks: retrieval.IntPtr(len(fixtures)),
			ContentType: f.ctype,
			Tags:        f.tags,
			ContentHash: fmt.Sprintf("hash-%02d", i+1),
		})
		vecs = append(vecs, v)
	}
	return chunks, vecs
}

// expected returns the fixture chunks matching filters with score >=
// threshold, best first, at most limit.
func expected(chunks []retrieval.Chunk, f retrieval.Filters, threshold float64, limit int) []string {
	type sc struct {
		id    string
		score float64
	}
	var all []sc
	for i := range chunks {
		c := &chunks[i]
		idx, _ := c.Index()
		if s := score(idx); s >= threshold && f.Match(c) {
			all = append(all, sc{c.ID, s})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].score > all[j].score })
	var ids []string
	for i := 0; i < len(all) && i < limit; i++ {
		ids = append(ids, all[i].id)
	}
	return ids
}

func ids(hits []retrieval.ScoredChunk) []string {
	out := []string{}
	for _, h := range hits {
		out = append(out, h.Chunk.ID)
	}
	return out
}

// Run runs the contract suite. newStore is described in the package doc.
func Run(t *testing.T, newStore func(t *testing.T, chunks []retrieval.Chunk, vectors [][]float32) retrieval.Store) {
	chunks, vecs := Corpus()
	s := &suite{store: newStore(t, chunks, vecs), newStore: newStore, chunks: chunks, byID: map[string]retrieval.Chunk{}}
	for _, c := range chunks {
		s.byID[c.ID] = c
	}
	for _, c := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"ordering and scores", s.orderingAndScores},
		{"chunk fields round-trip", s.fieldsRoundTrip},
		{"limit", s.limit},
		{"threshold", s.threshold},
		{"filters", s.filters},
		{"empty results", s.emptyResults},
		{"concurrent searches", s.concurrentSearches},
		{"cancelled context", s.cancelledContext},
		{"stats", s.stats},
		{"walk", s.walk},
		{"empty store", s.emptyStore},
	} {
		t.Run(c.name, c.run)
	}
}

// suite is one run of the contract suite: the store under test, holding
// the suite's chunks.
type suite struct {
	store    retrieval.Store
	newStore func(t *testing.T, chunks []retrieval.Chunk, vectors [][]float32) retrieval.Store
	chunks   []retrieval.Chunk
	byID     map[string]retrieval.Chunk
}

// search runs req (with Query's vector when it has none) or fails t.
func (s *suite) search(t *testing.T, req retrieval.SearchRequest) []retrieval.ScoredChunk {
	t.Helper()
	if req.Vector == nil {
		req.Vector = Query()
	}
	hits, err := s.store.Search(context.Background(), req)
	if err != nil {
		t.Fatalf("Search(%+v): %v", req.Filters, err)
	}
	return hits
}

// check compares req's hits with what the fixtures say it must find.
func (s *suite) check(t *testing.T, req retrieval.SearchRequest) {
	t.Helper()
	got := ids(s.search(t, req))
	want := expected(s.chunks, req.Filters, req.Threshold, req.Limit)
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(got, want) {
		t.Errorf("filters %+v threshold %.2f limit %d: got ids %v, want %v", req.Filters, req.Threshold, req.Limit, got, want)
	}
}

func (s *suite) orderingAndScores(t *testing.T) {
	hits := s.search(t, retrieval.SearchRequest{Limit: 100})
	if len(hits) != len(s.chunks) {
		t.Fatalf("got %d hits, want all %d", len(hits), len(s.chunks))
	}
	for i, h := range hits {
		if i > 0 && h.Score > hits[i-1].Score {
			t.Errorf("hit %d score %.4f above hit %d's %.4f", i, h.Score, i-1, hits[i-1].Score)
		}
		idx, ok := h.Chunk.Index()
		if !ok {
			t.Fatalf("hit %s lost its chunk index", h.Chunk.ID)
		}
		if math.Abs(h.Score-score(idx)) > 1e-4 {
			t.Errorf("hit %s score %.5f, want %.5f", h.Chunk.ID, h.Score, score(idx))
		}
	}
}

func (s *suite) fieldsRoundTrip(t *testing.T) {
	for _, h := range s.search(t, retrieval.SearchRequest{Limit: 100}) {
		want := s.byID[h.Chunk.ID]
		got := h.Chunk
		if got.Text != want.Text || got.URL != want.URL || got.DocPath != want.DocPath || got.Title != want.Title ||
			got.Section != want.Section || got.Module != want.Module || got.Chapter != want.Chapter ||
			got.ContentType != want.ContentType || got.ContentHash != want.ContentHash ||
			!slices.Equal(got.Tags, want.Tags) || !eqInt(got.ChunkIndex, want.ChunkIndex) || !eqInt(got.TotalChunks, want.TotalChunks) {
			t.Errorf("chunk %s:\n got %+v\nwant %+v", want.ID, got, want)
		}
	}
}

func (s *suite) limit(t *testing.T) {
	for _, n := range []int{1, 3, 10} {
		s.check(t, retrieval.SearchRequest{Limit: n})
	}
}

func (s *suite) threshold(t *testing.T) {
	for _, th := range []float64{0.1, 0.5, 0.82, 0.9} {
		s.check(t, retrieval.SearchRequest{Limit: 100, Threshold: th})
	}
}

func (s *suite) filters(t *testing.T) {
	for _, f := range []retrieval.Filters{
		{Modules: []string{"mod-a"}},
		{Modules: []string{"mod-a", "mod-c"}},                    // any of, within a field
		{Modules: []string{"mod-a"}, Chapters: []string{"ch-1"}}, // AND across fields
		{Chapters: []string{"ch-2", "ch-3"}, ContentTypes: []string{"lesson"}},
		{Tags: []string{"sim"}},                                      // list field
		{Tags: []string{"intro", "sim"}},                             // any of the tags
		{Tags: []string{"ros"}, Modules: []string{"mod-b", "mod-c"}}, // list AND scalar
		{Modules: []string{"mod-b"}, ContentTypes: []string{"lab"}, Tags: []string{"ros"}, Chapters: []string{"ch-2"}},
	} {
		s.check(t, retrieval.SearchRequest{Limit: 100, Filters: f})
		s.check(t, retrieval.SearchRequest{Limit: 2, Threshold: 0.5, Filters: f})
	}
}

func (s *suite) emptyResults(t *testing.T) {
	for _, req := range []retrieval.SearchRequest{
		{Limit: 10, Threshold: 0.99},
		{Limit: 10, Filters: retrieval.Filters{Modules: []string{"no-such-module"}}},
		{Limit: 10, Filters: retrieval.Filters{Modules: []string{"mod-a"}, Chapters: []string{"ch-1"}, Tags: []string{"sim"}}},
	} {
		if hits := s.search(t, req); len(hits) != 0 {
			t.Errorf("%+v: got %v, want no hits", req, ids(hits))
		}
	}
}

func (s *suite) concurrentSearches(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(n int) {
			defer wg.Done()
			hits, err := s.store.Search(context.Background(), retrieval.SearchRequest{Vector: Query(), Limit: 1 + n%4})
			if err == nil && len(hits) != 1+n%4 {
				err = fmt.Errorf("got %d hits, want %d", len(hits), 1+n%4)
			}
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func (s *suite) cancelledContext(t *testing.T) {
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.store.Search(cctx, retrieval.SearchRequest{Vector: Query(), Limit: 3}); !errors.Is(err, context.Canceled) {
		t.Errorf("Search with a cancelled context: err = %v, want context.Canceled", err)
	}
}

func (s *suite) stats(t *testing.T) {
	st, err := s.store.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != retrieval.StatusReady || st.Points != int64(len(s.chunks)) || st.VectorSize != Dim {
		t.Errorf("stats = status %q points %d vector size %d, want ready %d %d", st.Status, st.Points, st.VectorSize, len(s.chunks), Dim)
	}
	if st.Facets != nil {
		if got := st.Facets["module"]; !slices.Equal(got, []string{"mod-a", "mod-b", "mod-c"}) {
			t.Errorf("module facet = %v", got)
		}
		if got := st.Facets["tag"]; !slices.Equal(got, []string{"intro", "ros", "sim"}) {
			t.Errorf("tag facet = %v", got)
		}
	}
}

func (s *suite) walk(t *testing.T) {
	w, ok := s.store.(retrieval.Walker)
	if !ok {
		t.Skip("store is not a Walker")
	}
	ctx := context.Background()
	seen := map[string]int{}
	err := w.Walk(ctx, func(page []retrieval.Chunk, total int) error {
		if total != -1 && total != len(s.chunks) {
			return fmt.Errorf("total = %d, want %d", total, len(s.chunks))
		}
		for _, c := range page {
			seen[c.ID]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range s.chunks {
		if seen[c.ID] != 1 {
			t.Errorf("walk saw chunk %s %d times", c.ID, seen[c.ID])
		}
	}
	stop := errors.New("stop")
	if err := w.Walk(ctx, func([]retrieval.Chunk, int) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("Walk did not return fn's error: %v", err)
	}
}

func (s *suite) emptyStore(t *testing.T) {
	ctx := context.Background()
	empty := s.newStore(t, nil, nil)
	st, err := empty.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != retrieval.StatusEmpty || st.Points != 0 {
		t.Errorf("empty store stats: status %q points %d", st.Status, st.Points)
	}
	hits, err := empty.Search(ctx, retrieval.SearchRequest{Vector: Query(), Limit: 5})
	if err != nil || len(hits) != 0 {
		t.Errorf("empty store search: %v, %v", ids(hits), err)
	}
}

func eqInt(a, b *int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
