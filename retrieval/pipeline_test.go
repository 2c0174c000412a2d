package retrieval

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// failingEmbedder and failingStore fail the test when called.
type failingEmbedder struct{ t *testing.T }

func (f failingEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	f.t.Fatal("Embedder called in selected-text mode")
	return nil, nil
}
func (failingEmbedder) Name() string { return "failing" }
func (failingEmbedder) Dim() int     { return 2 }

type failingStore struct{ t *testing.T }

func (f failingStore) Search(context.Context, SearchRequest) ([]ScoredChunk, error) {
	f.t.Fatal("Store called in selected-text mode")
	return nil, nil
}
func (f failingStore) Stats(context.Context) (Stats, error) {
	f.t.Fatal("Store called in selected-text mode")
	return Stats{}, nil
}

// fakeEmbedder counts calls and returns a fixed vector.
type fakeEmbedder struct {
	calls atomic.Int32
	last  atomic.Value
}

func (f *fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	f.calls.Add(1)
	f.last.Store(texts[0])
	return [][]float32{{1, 0}}, nil
}
func (*fakeEmbedder) Name() string { return "fake-model" }
func (*fakeEmbedder) Dim() int     { return 2 }

// fakeStore returns its chunks in the order given (possibly unsorted), cut
// to the request's limit after applying filters.
type fakeStore struct {
	hits []ScoredChunk
	err  error

	mu  sync.Mutex
	req SearchRequest // the last request (batches search concurrently)
}

func (f *fakeStore) Search(_ context.Context, req SearchRequest) ([]ScoredChunk, error) {
	f.mu.Lock()
	f.req = req
	f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	var out []ScoredChunk
	for _, h := range f.hits {
		if req.Filters.Match(&h.Chunk) {
			out = append(out, h)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if len(out) > req.Limit {
		out = out[:req.Limit]
	}
	return out, nil
}
func (f *fakeStore) Stats(context.Context) (Stats, error) { return Stats{Status: StatusReady}, nil }

func sc(id string, score float64, text string) ScoredChunk {
	return ScoredChunk{Score: score, Chunk: Chunk{ID: id, Text: text, Title: "T-" + id, Section: "S-" + id, DocPath: "docs/" + id + ".md"}}
}

func newPipeline(store Store) (*Pipeline, *fakeEmbedder) {
	e := &fakeEmbedder{}
	return &Pipeline{Embedder: e, Store: store, Backend: "test", Collection: "c", URLs: URLBuilder{DocsBase: "/docs/"}}, e
}

func TestSelectedTextNeverTouchesSeams(t *testing.T) {
	p := &Pipeline{Embedder: failingEmbedder{t}, Store: failingStore{t}, URLs: URLBuilder{DocsBase: "/book/docs/"}}
	res, err := p.Retrieve(context.Background(), Query{
		Question: "what does this mean?", Mode: ModeSelectedText, TopK: 5,
		SelectedText: "Embodiment means the body shapes cognition.", SourceDocPath: "docs/m1/01-intro.md", SourceSection: "Embodiment",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 {
		t.Fatalf("hits = %d, want 1", len(res.Hits))
	}
	h := res.Hits[0]
	if h.Chunk.ID != "selection" || h.Score != 1.0 || h.Rank != 1 {
		t.Fatalf("synthetic hit = %+v", h)
	}
	if h.Citation.URL != "/book/docs/m1/intro#embodiment" {
		t.Errorf("citation = %q", h.Citation.URL)
	}
	g := res.Grounded
	if !g.Sufficient || g.Instruction != InstructionSelectedText || g.Context != "Embodiment means the body shapes cognition." {
		t.Errorf("grounded = %+v", g)
	}
	if res.Mode != ModeSelectedText {
		t.Errorf("mode = %s", res.Mode)
	}
	// RetrieveVector routes the same way.
	if _, err := p.RetrieveVector(context.Background(), Query{Question: "q", Mode: ModeSelectedText, TopK: 5, SelectedText: "x"}, nil, 0); err != nil {
		t.Fatal(err)
	}
}

func TestValidation(t *testing.T) {
	p, e := newPipeline(&fakeStore{})
	tests := []struct {
		name string
		q    Query
		want error
	}{
		{"empty", Query{Question: "", TopK: 5}, ErrEmptyQuestion},
		{"whitespace", Query{Question: " \t\n ", TopK: 5}, ErrEmptyQuestion},
		{"empty selection", Query{Question: "q", Mode: ModeSelectedText, SelectedText: "  ", TopK: 5}, ErrEmptySelection},
		{"top_k 0", Query{Question: "q", TopK: 0}, ErrTopKRange},
		{"top_k 101", Query{Question: "q", TopK: 101}, ErrTopKRange},
		{"threshold 1.5", Query{Question: "q", TopK: 5, Threshold: 1.5}, ErrThresholdRange},
		{"threshold -0.1", Query{Question: "q", TopK: 5, Threshold: -0.1}, ErrThresholdRange},
		{"mode", Query{Question: "q", TopK: 5, Mode: "fuzzy"}, ErrUnknownMode},
		{"only punctuation", Query{Question: "?!?! ... --", TopK: 5}, ErrNoWords},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.Retrieve(context.Background(), tt.q)
			if !errors.Is(err, tt.want) || !errors.Is(err, ErrInvalidQuery) {
				t.Fatalf("err = %v, want %v and ErrInvalidQuery", err, tt.want)
			}
			if strings.Contains(strings.ToLower(err.Error()), "invalid input") || len(err.Error()) < 20 {
				t.Errorf("message not actionable: %q", err)
			}
		})
	}
	if e.calls.Load() != 0 {
		t.Fatalf("embedder called %d times for invalid queries", e.calls.Load())
	}
	_, err := p.Retrieve(context.Background(), Query{Question: "q", TopK: 101})
	if !strings.Contains(err.Error(), "101") {
		t.Errorf("message should name the bad value: %q", err)
	}
}

func TestTruncation(t *testing.T) {
	p, e := newPipeline(&fakeStore{})
	long := strings.Repeat("é", 5000)
	res, err := p.Retrieve(context.Background(), Query{Question: long, TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || res.OriginalLength != 5000 {
		t.Fatalf("truncated=%v original=%d", res.Truncated, res.OriginalLength)
	}
	if got := []rune(e.last.Load().(string)); len(got) != MaxQuestionLen {
		t.Fatalf("embedded %d runes, want %d", len(got), MaxQuestionLen)
	}
	res, _ = p.Retrieve(context.Background(), Query{Question: strings.Repeat("a", 1000), TopK: 5})
	if res.Truncated {
		t.Fatal("a 1000-character question is not truncated")
	}
}

func TestOrderingThresholdRanks(t *testing.T) {
	st := &fakeStore{hits: []ScoredChunk{
		sc("c", 0.50, "gamma text about gazebo"),
		sc("a", 0.90, "alpha text about ros"),
		sc("b", 0.70, "beta text about urdf"),
		sc("d", 0.20, "delta text about isaac"),
	}}
	p, _ := newPipeline(st)
	res, err := p.Retrieve(context.Background(), Query{Question: "q", TopK: 10, Threshold: 0.45})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i, h := range res.Hits {
		ids = append(ids, h.Chunk.ID)
		if h.Rank != i+1 {
			t.Errorf("rank %d at %d", h.Rank, i)
		}
		if h.Score < 0.45 {
			t.Errorf("score %v under threshold", h.Score)
		}
	}
	if !reflect.DeepEqual(ids, []string{"a", "b", "c"}) {
		t.Fatalf("order = %v", ids)
	}
	if len(res.Dropped) != 1 || res.Dropped[0].Reason != ReasonBelowThreshold || res.Dropped[0].Chunk.ID != "d" {
		t.Fatalf("dropped = %+v", res.Dropped)
	}
	if st.req.Limit != 10 {
		t.Errorf("limit asked = %d", st.req.Limit)
	}
	if res.Params.Model != "fake-model" || res.Params.Backend != "test" || res.Params.Collection != "c" || res.Params.TopK != 10 || res.Params.Threshold != 0.45 {
		t.Errorf("params = %+v", res.Params)
	}
}

func TestEmptyResultIsNotAnError(t *testing.T) {
	p, _ := newPipeline(&fakeStore{})
	res, err := p.Retrieve(context.Background(), Query{Question: "nothing", TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 || res.Hits == nil {
		t.Fatalf("hits = %#v, want empty non-nil", res.Hits)
	}
	if res.Grounded.Sufficient || res.Grounded.Instruction != InstructionRefusal || res.Grounded.Context != "" {
		t.Fatalf("grounded = %+v", res.Grounded)
	}
}

func TestDeterministicTies(t *testing.T) {
	hits := []ScoredChunk{sc("z", 0.5, "zz one"), sc("m", 0.5, "mm two"), sc("a", 0.5, "aa three")}
	for round := 0; round < 5; round++ {
		// Present the tie in a different order each time.
		perm := []ScoredChunk{hits[round%3], hits[(round+1)%3], hits[(round+2)%3]}
		p, _ := newPipeline(&fakeStore{hits: perm})
		res, err := p.Retrieve(context.Background(), Query{Question: "q", TopK: 3})
		if err != nil {
			t.Fatal(err)
		}
		got := []string{res.Hits[0].Chunk.ID, res.Hits[1].Chunk.ID, res.Hits[2].Chunk.ID}
		if !reflect.DeepEqual(got, []string{"a", "m", "z"}) {
			t.Fatalf("round %d: order %v", round, got)
		}
	}
}

func TestFiltersMatch(t *testing.T) {
	c := Chunk{Module: "m1", Chapter: "c1", ContentType: "concept", Tags: []string{"ros2", "dds"}}
	tests := []struct {
		f    Filters
		want bool
	}{
		{Filters{}, true},
		{Filters{Modules: []string{"m2", "m1"}}, true},
		{Filters{Modules: []string{"m2"}}, false},
		{Filters{Modules: []string{"m1"}, Chapters: []string{"c2"}}, false},
		{Filters{Modules: []string{"m1"}, Chapters: []string{"c1"}, ContentTypes: []string{"concept"}}, true},
		{Filters{Tags: []string{"gazebo", "dds"}}, true},
		{Filters{Tags: []string{"gazebo"}}, false},
		{Filters{Tags: []string{"ros2"}, ContentTypes: []string{"lab"}}, false},
	}
	for i, tt := range tests {
		if got := tt.f.Match(&c); got != tt.want {
			t.Errorf("%d: Match(%+v) = %v", i, tt.f, got)
		}
	}
	// Filters pass through to the store unchanged.
	st := &fakeStore{hits: []ScoredChunk{sc("a", 0.9, "x")}}
	p, _ := newPipeline(st)
	f := Filters{Modules: []string{"nope"}}
	res, err := p.Retrieve(context.Background(), Query{Question: "q", TopK: 5, Filters: f})
	if err != nil || len(res.Hits) != 0 {
		t.Fatalf("unknown filter value: %v, %d hits (want empty result, no error)", err, len(res.Hits))
	}
	if !reflect.DeepEqual(st.req.Filters, f) {
		t.Fatalf("store got filters %+v", st.req.Filters)
	}
}

func TestDedup(t *testing.T) {
	base := strings.Repeat("the robot arm moves its joints with care ", 3) + "and many more words " +
		"like sensors actuators controllers planners perception localisation mapping navigation grasping " +
		"kinematics dynamics trajectories torque velocity position encoders lidar cameras imu odometry"
	nearly := base + " extra" // one extra token: Jaccard = n/(n+1) >= 0.95
	other := "a completely different paragraph about simulation worlds and physics engines"
	hashA := sc("h1", 0.6, "text one about hashing")
	hashA.Chunk.ContentHash = "abc"
	hashB := sc("h2", 0.55, "different words entirely but same hash")
	hashB.Chunk.ContentHash = "abc"
	st := &fakeStore{hits: []ScoredChunk{
		sc("a", 0.9, base), sc("b", 0.85, nearly), sc("c", 0.8, other), sc("d", 0.7, base), hashA, hashB,
	}}
	p, _ := newPipeline(st)
	res, err := p.Retrieve(context.Background(), Query{Question: "q", TopK: 10})
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, h := range res.Hits {
		kept = append(kept, h.Chunk.ID)
	}
	if !reflect.DeepEqual(kept, []string{"a", "c", "h1"}) {
		t.Fatalf("kept = %v", kept)
	}
	want := map[string]int{"b": 1, "d": 1, "h2": 3}
	if len(res.Dropped) != 3 {
		t.Fatalf("dropped = %+v", res.Dropped)
	}
	for _, d := range res.Dropped {
		if d.Reason != ReasonDuplicate || d.DuplicateOf != want[d.Chunk.ID] {
			t.Errorf("dropped %s: reason %s of #%d, want duplicate of #%d", d.Chunk.ID, d.Reason, d.DuplicateOf, want[d.Chunk.ID])
		}
		if d.Rank != 0 {
			t.Errorf("dropped hit has rank %d", d.Rank)
		}
	}
	// Below 0.95 is kept.
	if sim := Jaccard(TokenSet("a b c d e f g h i j"), TokenSet("a b c d e f g h i k")); sim >= DedupJaccard {
		t.Fatalf("jaccard %v", sim)
	}
	// --no-dedup keeps everything.
	res, _ = p.Retrieve(context.Background(), Query{Question: "q", TopK: 10, NoDedup: true})
	if len(res.Hits) != 6 || len(res.Dropped) != 0 || res.Params.Dedup {
		t.Fatalf("no-dedup: %d hits, %d dropped", len(res.Hits), len(res.Dropped))
	}
}

func TestJaccardHandComputed(t *testing.T) {
	a := TokenSet("one two three four")
	b := TokenSet("three four five six")
	if got := Jaccard(a, b); got != 2.0/6.0 {
		t.Fatalf("Jaccard = %v, want 1/3", got)
	}
	if got := Jaccard(TokenSet("Same SAME same"), TokenSet("same")); got != 1 {
		t.Fatalf("case-folded sets differ: %v", got)
	}
}

func TestContextAssembly(t *testing.T) {
	mk := func(id, doc string, idx int, score float64) ScoredChunk {
		c := sc(id, score, "text "+id)
		c.Chunk.DocPath = doc
		c.Chunk.Title = "Title " + doc
		c.Chunk.Section = "Sec " + id
		c.Chunk.ChunkIndex = IntPtr(idx)
		return c
	}
	st := &fakeStore{hits: []ScoredChunk{
		mk("b2", "docs/b.md", 2, 0.95), // doc b best score 0.95
		mk("a1", "docs/a.md", 1, 0.90), // doc a best 0.90
		mk("b0", "docs/b.md", 0, 0.60), // b's earlier chunk comes first within b
		mk("a0", "docs/a.md", 0, 0.50),
	}}
	p, _ := newPipeline(st)
	res, err := p.Retrieve(context.Background(), Query{Question: "q", TopK: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := "[Source 1: Title docs/b.md - Sec b0]\ntext b0\n\n" +
		"[Source 2: Title docs/b.md - Sec b2]\ntext b2\n\n" +
		"[Source 3: Title docs/a.md - Sec a0]\ntext a0\n\n" +
		"[Source 4: Title docs/a.md - Sec a1]\ntext a1\n"
	if res.Grounded.Context != want {
		t.Fatalf("context:\n%s\nwant:\n%s", res.Grounded.Context, want)
	}
	if res.Grounded.Instruction != InstructionNormal || !res.Grounded.Sufficient {
		t.Fatalf("grounded = %+v", res.Grounded)
	}
	if len(res.Grounded.Sources) != 4 || res.Grounded.Sources[0].Section != "Sec b0" {
		t.Fatalf("sources = %+v", res.Grounded.Sources)
	}
}

func TestInstructionsVerbatim(t *testing.T) {
	// The instruction's exact wording, as the original contract states it.
	if InstructionSelectedText != "Answer ONLY from the following selected text. Do not use any other knowledge. If the text does not contain enough information to answer, say so." {
		t.Fatal("selected-text instruction changed")
	}
	if InstructionNormal != "Answer based on the following textbook excerpts. Cite the source for each fact. If the excerpts don't contain enough information, explicitly state that." {
		t.Fatal("normal instruction changed")
	}
}

func TestStoreErrorWrapped(t *testing.T) {
	p, _ := newPipeline(&fakeStore{err: ErrUnavailable})
	_, err := p.Retrieve(context.Background(), Query{Question: "q", TopK: 5})
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
}

func TestTimingsAndVector(t *testing.T) {
	p, e := newPipeline(&fakeStore{hits: []ScoredChunk{sc("a", 0.9, "x")}})
	res, err := p.RetrieveVector(context.Background(), Query{Question: "q", TopK: 5}, []float32{1, 0}, 1234)
	if err != nil {
		t.Fatal(err)
	}
	if e.calls.Load() != 0 {
		t.Fatal("RetrieveVector embedded again")
	}
	if res.Timings.Embed != 1234 || res.Timings.Total < res.Timings.Embed {
		t.Fatalf("timings = %+v", res.Timings)
	}
	if _, err := p.RetrieveVector(context.Background(), Query{Question: "q", TopK: 5}, []float32{1, 0, 0}, 0); err == nil {
		t.Fatal("want error for a vector of the wrong size")
	}
}

// barrierEmbedder embeds only once the store's check has started.
type barrierEmbedder struct {
	fakeEmbedder
	checkStarted, embedStarted chan struct{}
}

func (b *barrierEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	close(b.embedStarted)
	select {
	case <-b.checkStarted:
	case <-ctx.Done():
		return nil, fmt.Errorf("the check never started while embedding: %w", ctx.Err())
	}
	return b.fakeEmbedder.Embed(ctx, texts)
}

// checkingStore's check waits for the embedding to start, then fails with
// err (nil: passes).
type checkingStore struct {
	fakeStore
	emb      *barrierEmbedder
	checkErr error
	dim      int
	searched bool
}

func (c *checkingStore) CheckVectorSize(ctx context.Context, dim int) error {
	c.dim = dim
	close(c.emb.checkStarted)
	select {
	case <-c.emb.embedStarted:
	case <-ctx.Done():
		return fmt.Errorf("the embedding never started while checking: %w", ctx.Err())
	}
	return c.checkErr
}

func (c *checkingStore) Search(ctx context.Context, req SearchRequest) ([]ScoredChunk, error) {
	c.searched = true
	return c.fakeStore.Search(ctx, req)
}

// The collection check runs beside the first embedding (each waits for
// the other to start, so run one after the other they would time out),
// and a failed check wins: no search is sent.
func TestCollectionCheckConcurrentWithEmbedding(t *testing.T) {
	for _, checkErr := range []error{nil, fmt.Errorf("collection gone: %w", ErrNotFound)} {
		emb := &barrierEmbedder{checkStarted: make(chan struct{}), embedStarted: make(chan struct{})}
		st := &checkingStore{fakeStore: fakeStore{hits: []ScoredChunk{sc("a", 0.9, "text")}}, emb: emb, checkErr: checkErr}
		p := &Pipeline{Embedder: emb, Store: st, URLs: URLBuilder{DocsBase: "/docs/"}}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		res, err := p.Retrieve(ctx, Query{Question: "what is a node?", TopK: 3})
		cancel()
		if st.dim != 2 {
			t.Errorf("checked dim %d, want the embedder's 2", st.dim)
		}
		if checkErr == nil {
			if err != nil || len(res.Hits) != 1 || !st.searched {
				t.Errorf("passing check: %v %+v", err, res.Hits)
			}
			continue
		}
		if !errors.Is(err, ErrNotFound) || st.searched {
			t.Errorf("failed check: err %v, searched %v", err, st.searched)
		}
	}
}
