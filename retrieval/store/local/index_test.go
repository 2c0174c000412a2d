package local

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"ragscope/retrieval"
)

// fixture: four chunks on the axes of a 3-d space (the query [1,0,0] scores
// 1, 0.8, 0.6 and 0 against them), plus a twin of the best one.
func fixture(t *testing.T) *Index {
	t.Helper()
	chunks := []retrieval.Chunk{
		{ID: "b", Text: "best", Module: "m1", Chapter: "c1", ContentType: "concept", Tags: []string{"ros2", "dds"}},
		{ID: "c", Text: "good", Module: "m1", Chapter: "c2", ContentType: "tutorial", Tags: []string{"rclpy"}},
		{ID: "d", Text: "fair", Module: "m2", Chapter: "c3", ContentType: "lab"},
		{ID: "e", Text: "none", Module: "m2", Chapter: "c3", ContentType: "lab", Tags: []string{"ros2"}},
		{ID: "a", Text: "twin", Module: "m3", Chapter: "c4", ContentType: "concept", Tags: []string{"dds"}},
	}
	vecs := [][]float32{{2, 0, 0}, {0.8, 0.6, 0}, {0.6, 0, 0.8}, {0, 0, 3}, {1, 0, 0}}
	ix, err := NewIndex(chunks, vecs, IndexInfo{Backend: "local", Name: "fixture", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func ids(res []retrieval.ScoredChunk) string {
	var out []string
	for _, r := range res {
		out = append(out, r.Chunk.ID)
	}
	return strings.Join(out, ",")
}

func TestSearchOrderTiesLimitThreshold(t *testing.T) {
	ix := fixture(t)
	ctx := context.Background()
	q := []float32{3, 0, 0} // not normalised: the index normalises queries
	tests := []struct {
		name      string
		limit     int
		threshold float64
		want      string
	}{
		{"all, ties by id", 10, 0, "a,b,c,d,e"},
		{"limit", 2, 0, "a,b"},
		{"limit 3 keeps the best", 3, 0, "a,b,c"},
		{"threshold inclusive", 10, 0.8, "a,b,c"},
		{"threshold above all", 10, 1.0, "a,b"},
		{"zero limit", 0, 0, ""},
	}
	for _, tt := range tests {
		res, err := ix.Search(ctx, retrieval.SearchRequest{Vector: q, Limit: tt.limit, Threshold: tt.threshold})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := ids(res); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
		for i, r := range res {
			if i > 0 && r.Score > res[i-1].Score {
				t.Errorf("%s: not best first", tt.name)
			}
			if tt.threshold > 0 && r.Score < tt.threshold {
				t.Errorf("%s: score %v under threshold", tt.name, r.Score)
			}
		}
	}
	res, _ := ix.Search(ctx, retrieval.SearchRequest{Vector: q, Limit: 5})
	wantScores := []float64{1, 1, 0.8, 0.6, 0}
	for i, r := range res {
		if math.Abs(r.Score-wantScores[i]) > 1e-6 {
			t.Errorf("score %d = %v, want %v", i, r.Score, wantScores[i])
		}
	}
}

func TestSearchFilters(t *testing.T) {
	ix := fixture(t)
	q := []float32{1, 0, 0}
	tests := []struct {
		name string
		f    retrieval.Filters
		want string
	}{
		{"module any-of", retrieval.Filters{Modules: []string{"m1", "m3"}}, "a,b,c"},
		{"chapter", retrieval.Filters{Chapters: []string{"c3"}}, "d,e"},
		{"content type", retrieval.Filters{ContentTypes: []string{"lab"}}, "d,e"},
		{"tags any-of over a list", retrieval.Filters{Tags: []string{"dds", "rclpy"}}, "a,b,c"},
		{"AND across fields", retrieval.Filters{Modules: []string{"m2"}, Tags: []string{"ros2"}}, "e"},
		{"AND to nothing", retrieval.Filters{Modules: []string{"m1"}, ContentTypes: []string{"lab"}}, ""},
		{"unknown value is empty, not an error", retrieval.Filters{Modules: []string{"nope"}}, ""},
	}
	for _, tt := range tests {
		res, err := ix.Search(context.Background(), retrieval.SearchRequest{Vector: q, Limit: 10, Filters: tt.f})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := ids(res); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
		if res == nil {
			t.Errorf("%s: nil result, want empty slice", tt.name)
		}
	}
}

func TestSearchZeroVectorsAndErrors(t *testing.T) {
	chunks := []retrieval.Chunk{{ID: "z"}, {ID: "y"}}
	ix, err := NewIndex(chunks, [][]float32{{0, 0}, {1, 1}}, IndexInfo{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := ix.Search(ctx, retrieval.SearchRequest{Vector: []float32{1, 0}, Limit: 5})
	if err != nil || ids(res) != "y,z" || res[1].Score != 0 || math.Abs(res[0].Score-math.Sqrt(0.5)) > 1e-6 {
		t.Errorf("zero stored vector: %v %v", res, err)
	}
	res, err = ix.Search(ctx, retrieval.SearchRequest{Vector: []float32{0, 0}, Limit: 5, Threshold: 0.1})
	if err != nil || len(res) != 0 {
		t.Errorf("zero query with threshold: %v %v", res, err)
	}
	if _, err := ix.Search(ctx, retrieval.SearchRequest{Vector: []float32{1, 0, 0}, Limit: 5}); err == nil || !strings.Contains(err.Error(), "3 dimensions") {
		t.Errorf("dimension mismatch: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ix.Search(cctx, retrieval.SearchRequest{Vector: []float32{1, 0}, Limit: 5}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestNewIndexRejects(t *testing.T) {
	c := []retrieval.Chunk{{ID: "a"}, {ID: "a"}}
	if _, err := NewIndex(c, [][]float32{{1}, {1}}, IndexInfo{}); err == nil || !strings.Contains(err.Error(), "share the id") {
		t.Errorf("duplicate ids: %v", err)
	}
	if _, err := NewIndex(c[:1], nil, IndexInfo{}); err == nil {
		t.Error("count mismatch accepted")
	}
	if _, err := NewIndex([]retrieval.Chunk{{ID: "a"}, {ID: "b"}}, [][]float32{{1}, {1, 2}}, IndexInfo{}); err == nil {
		t.Error("ragged vectors accepted")
	}
}

func TestEmptyIndex(t *testing.T) {
	ix, err := NewIndex(nil, nil, IndexInfo{Backend: "local", Name: "e"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(context.Background(), retrieval.SearchRequest{Vector: []float32{1}, Limit: 3})
	if err != nil || len(res) != 0 {
		t.Errorf("search: %v %v", res, err)
	}
	st, _ := ix.Stats(context.Background())
	if st.Status != retrieval.StatusEmpty || st.Points != 0 {
		t.Errorf("stats: %+v", st)
	}
}

func TestStats(t *testing.T) {
	ix := fixture(t)
	st, err := ix.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != retrieval.StatusReady || st.Points != 5 || st.VectorSize != 3 || st.Distance != "Cosine" || st.Backend != "local" || st.Collection != "fixture" {
		t.Errorf("stats = %+v", st)
	}
	if got := strings.Join(st.PayloadFields, ","); got != "chapter,content_type,module,tags,text" {
		t.Errorf("payload fields = %s", got)
	}
	want := map[string][]string{
		"module": {"m1", "m2", "m3"}, "chapter": {"c1", "c2", "c3", "c4"},
		"content_type": {"concept", "lab", "tutorial"}, "tag": {"dds", "rclpy", "ros2"},
	}
	for k, v := range want {
		if !slices.Equal(st.Facets[k], v) {
			t.Errorf("facet %s = %v, want %v", k, st.Facets[k], v)
		}
	}
	st.Facets["module"][0] = "changed"
	st2, _ := ix.Stats(context.Background())
	if st2.Facets["module"][0] != "m1" {
		t.Error("Stats shares its facets with callers")
	}
}

func TestWalkPages(t *testing.T) {
	n := 600
	chunks := make([]retrieval.Chunk, n)
	for i := range chunks {
		chunks[i] = retrieval.Chunk{ID: fmt.Sprintf("c%04d", i)}
	}
	ix, err := NewIndex(chunks, randomUnit(n, 4, 1), IndexInfo{})
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	var seen []string
	err = ix.Walk(context.Background(), func(page []retrieval.Chunk, total int) error {
		if total != n {
			t.Errorf("total = %d", total)
		}
		sizes = append(sizes, len(page))
		for _, c := range page {
			seen = append(seen, c.ID)
		}
		return nil
	})
	if err != nil || fmt.Sprint(sizes) != "[256 256 88]" || len(seen) != n || !sort.StringsAreSorted(seen) {
		t.Errorf("walk: err %v sizes %v seen %d", err, sizes, len(seen))
	}
	stop := errors.New("stop")
	calls := 0
	err = ix.Walk(context.Background(), func([]retrieval.Chunk, int) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("walk stop: %v after %d calls", err, calls)
	}
}

func TestSearchResultsAreCopies(t *testing.T) {
	ix := fixture(t)
	res, _ := ix.Search(context.Background(), retrieval.SearchRequest{Vector: []float32{1, 0, 0}, Limit: 1})
	res[0].Chunk.Tags[0] = "mutated"
	again, _ := ix.Search(context.Background(), retrieval.SearchRequest{Vector: []float32{1, 0, 0}, Limit: 1})
	if again[0].Chunk.Tags[0] != "dds" {
		t.Error("a caller changed the index through a result")
	}
}

// TestSearchMatchesSort compares the heap selection with a full sort.
func TestSearchMatchesSort(t *testing.T) {
	n, dim := 3000, 16
	chunks := make([]retrieval.Chunk, n)
	vecs := randomUnit(n, dim, 7)
	for i := range chunks {
		chunks[i] = retrieval.Chunk{ID: fmt.Sprintf("c%05d", (i*7919)%n), Module: fmt.Sprint("m", i%3)}
		if i%10 == 0 && i > 0 {
			vecs[i] = vecs[i-1] // exact ties
		}
	}
	ix, err := NewIndex(chunks, vecs, IndexInfo{})
	if err != nil {
		t.Fatal(err)
	}
	q := randomUnit(1, dim, 99)[0]
	type sc struct {
		id string
		s  float64
	}
	var all []sc
	for i := range chunks {
		if chunks[i].Module == "m1" {
			all = append(all, sc{chunks[i].ID, float64(dot(q, vecs[i]))})
		}
	}
	sort.Slice(all, func(a, b int) bool {
		if all[a].s != all[b].s {
			return all[a].s > all[b].s
		}
		return all[a].id < all[b].id
	})
	res, err := ix.Search(context.Background(), retrieval.SearchRequest{Vector: q, Limit: 50, Filters: retrieval.Filters{Modules: []string{"m1"}}})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Chunk.ID != all[i].id || math.Abs(r.Score-all[i].s) > 1e-5 {
			t.Fatalf("rank %d: got %s %.6f, want %s %.6f", i, r.Chunk.ID, r.Score, all[i].id, all[i].s)
		}
	}
}

func TestSearchConcurrent(t *testing.T) {
	ix := fixture(t)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				res, err := ix.Search(context.Background(), retrieval.SearchRequest{Vector: []float32{1, 0, 0}, Limit: 3})
				if err != nil || ids(res) != "a,b,c" {
					t.Errorf("concurrent search: %v %v", ids(res), err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
