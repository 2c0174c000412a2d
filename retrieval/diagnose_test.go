package retrieval

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// The dropped record lists the threshold's cuts before dedup's, the order
// the stages run in.
func TestDroppedInPipelineOrder(t *testing.T) {
	store := &fakeStore{hits: []ScoredChunk{sc("a", 0.9, "same words here"), sc("b", 0.8, "same words here"), sc("c", 0.2, "other")}}
	p, _ := newPipeline(store)
	res, err := p.Retrieve(context.Background(), Query{Question: "q", TopK: 3, Threshold: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, d := range res.Dropped {
		reasons = append(reasons, d.Chunk.ID+":"+d.Reason)
	}
	if want := []string{"c:" + ReasonBelowThreshold, "b:" + ReasonDuplicate}; !reflect.DeepEqual(reasons, want) {
		t.Fatalf("dropped %v, want %v", reasons, want)
	}
}

func TestParseExpectRef(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want ExpectRef
	}{
		{"docs/module-1/ros2.md", ExpectRef{DocPath: "docs/module-1/ros2.md"}},
		{"module-1/ros2.md#nodes", ExpectRef{DocPath: "module-1/ros2.md", Anchor: "nodes"}},
		{"https://x.org/book/docs/ros2/#qos", ExpectRef{URLPath: "/book/docs/ros2/", Anchor: "qos"}},
		{"/book/docs/ros2", ExpectRef{URLPath: "/book/docs/ros2"}},
		{"42", ExpectRef{PointID: "42"}},
		{"00000000-0000-4000-8000-000000000001", ExpectRef{PointID: "00000000-0000-4000-8000-000000000001"}},
		{"docs/intro", ExpectRef{DocPath: "docs/intro"}},
	} {
		got, err := ParseExpectRef(tt.in)
		tt.want.Raw = tt.in
		if err != nil || got != tt.want {
			t.Errorf("ParseExpectRef(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "  ", "#"} {
		if _, err := ParseExpectRef(bad); err == nil {
			t.Errorf("ParseExpectRef(%q) accepted", bad)
		}
	}
}

func TestClosest(t *testing.T) {
	paths := []string{"docs/intro.md", "docs/m1/05-urdf-humanoids.md", "docs/m2/sensors.md"}
	if got := Closest("docs/m1/urdf-humanoid.md", paths, 2); got[0] != "docs/m1/05-urdf-humanoids.md" || len(got) != 2 {
		t.Fatalf("Closest = %v", got)
	}
}

// A chunk the filter cuts is ranked among all points; one beyond top_k
// is ranked by the points above it, ties in chunk-id order.
func TestDiagnoseFilterAndTopK(t *testing.T) {
	hits := []ScoredChunk{sc("a", 0.9, "alpha"), sc("b", 0.8, "beta"), sc("c", 0.8, "gamma"), sc("d", 0.7, "delta")}
	hits[0].Chunk.Module, hits[1].Chunk.Module, hits[2].Chunk.Module, hits[3].Chunk.Module = "m1", "m2", "m2", "m2"
	p, _ := newPipeline(&fakeStore{hits: hits})
	refs := []ExpectRef{{Raw: "docs/a.md", DocPath: "docs/a.md"}, {Raw: "c", PointID: "c"}, {Raw: "nothing.md", DocPath: "nothing.md"}}
	_, d, err := p.Diagnose(context.Background(), Query{Question: "q", TopK: 1, Filters: Filters{Modules: []string{"m2"}}}, refs, false)
	if err != nil {
		t.Fatal(err)
	}
	a, c, n := d.Expected[0], d.Expected[1], d.Expected[2]
	if a.Cut != CutFilter || a.Rank != 1 || a.Detail != "filtered out by module=m2" {
		t.Errorf("a: %+v", a)
	}
	if c.Cut != CutTopK || c.ExactRank != 2 || c.Detail != "cut by top_k 1" {
		t.Errorf("c: %+v", c)
	}
	if n.Found() || n.Detail != "not in the collection" {
		t.Errorf("nothing: %+v", n)
	}
}

// With reranking, a candidate the reranker placed below top_k is "moved
// out by the reranker"; when the rerank failed, the vector order stands
// and the same candidate is cut by top_k (never mislabelled as below the
// score threshold).
func TestDiagnoseRerankCuts(t *testing.T) {
	refs := []ExpectRef{{Raw: "b", PointID: "b"}}
	q := Query{Question: "q", TopK: 1, Rerank: RerankOptions{On: true}}
	p, _ := newPipeline(rerankStore())
	p.Reranker = &scriptedReranker{scores: map[string]float64{text("c"): 0.9, text("b"): 0.2}}
	_, d, err := p.Diagnose(context.Background(), q, refs, false)
	if err != nil {
		t.Fatal(err)
	}
	if e := d.Expected[0]; e.Cut != CutRerank || !strings.Contains(e.Detail, "moved out by the reranker") {
		t.Errorf("reranked: %+v", e)
	}
	p.Reranker = &scriptedReranker{err: fmt.Errorf("%w: boom", ErrUnavailable)}
	_, d, err = p.Diagnose(context.Background(), q, refs, false)
	if err != nil {
		t.Fatal(err)
	}
	if e := d.Expected[0]; e.Cut != CutTopK || e.Detail != "cut by top_k 1 (the rerank failed; the vector order stands)" {
		t.Errorf("rerank failed: %+v", e)
	}
}

// countingStore is a store whose search leaves out the chunks it scores
// 0 (as a lexical search does) and that counts every chunk a filter
// leaves (Counter, as Qdrant's Count and the local index do).
type countingStore struct {
	fakeStore
	all []Chunk
}

func (s *countingStore) Count(_ context.Context, f Filters) (int64, error) {
	var n int64
	for i := range s.all {
		if f.Match(&s.all[i]) {
			n++
		}
	}
	return n, nil
}

// An expected page the search scored no chunk of is found by counting
// its chunks: "N chunks, none matches a word of the question", not "not
// in the collection"; a page no chunk has still is not.
func TestDiagnoseUnscoredPage(t *testing.T) {
	a, b := sc("a", 0.9, "x"), sc("b", 0.5, "y")
	silent := Chunk{ID: "c1", DocPath: "docs/c.md", Text: "z"}
	silent2 := Chunk{ID: "c2", DocPath: "docs/c.md", Text: "w"}
	store := &countingStore{fakeStore: fakeStore{hits: []ScoredChunk{a, b}}, all: []Chunk{a.Chunk, b.Chunk, silent, silent2}}
	p, _ := newPipeline(store)
	refs := []ExpectRef{{Raw: "c.md", DocPath: "c.md"}, {Raw: "docs/gone.md", DocPath: "docs/gone.md"}, ModuleRef("m9")}
	_, d, err := p.Diagnose(context.Background(), Query{Question: "q", TopK: 1}, refs, false)
	if err != nil {
		t.Fatal(err)
	}
	e := d.Expected[0]
	if e.Cut != CutNoMatch || e.Chunks != 2 || !e.Found() || e.Rank != 0 ||
		e.Sentence() != "expected c.md: in the collection (2 chunks), but the search returned none of them" {
		t.Errorf("unscored page: %+v: %s", e, e.Sentence())
	}
	if e := d.Expected[1]; e.Found() || e.Sentence() != "expected docs/gone.md not in the collection" {
		t.Errorf("missing page: %+v", e)
	}
	if e := d.Expected[2]; e.Found() || e.Sentence() != "expected module m9 not in the collection" {
		t.Errorf("missing module: %+v", e)
	}
}
