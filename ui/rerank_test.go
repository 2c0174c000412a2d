package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/ui/results"
	"ragscope/ui/settings"
	"ragscope/ui/turns"
)

// rerankEmbedder returns one fixed vector: the fake store ignores it.
type rerankEmbedder struct{}

func (rerankEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, nil
}
func (rerankEmbedder) Name() string { return "fake-embed-v1" }
func (rerankEmbedder) Dim() int     { return 2 }

// rerankStore answers fakeCorpus with scores 0.9, 0.88, 0.86, … (the
// third chunk duplicates the first), best first, cut to the limit.
type rerankStore struct {
	mu     sync.Mutex
	limits []int
}

func (s *rerankStore) Search(_ context.Context, req retrieval.SearchRequest) ([]retrieval.ScoredChunk, error) {
	s.mu.Lock()
	s.limits = append(s.limits, req.Limit)
	s.mu.Unlock()
	var out []retrieval.ScoredChunk
	for i, sc := range fakeCorpus(30) {
		sc.Score = 0.9 - 0.02*float64(i)
		if sc.Score >= req.Threshold && req.Filters.Match(&sc.Chunk) && len(out) < req.Limit {
			out = append(out, sc)
		}
	}
	return out, nil
}

func (s *rerankStore) Stats(context.Context) (retrieval.Stats, error) {
	return retrieval.Stats{Status: retrieval.StatusReady, Points: 30}, nil
}

// orderReranker ranks the candidates at the indexes of order first (in
// that order, relevance 0.95, 0.85, …, in smaller steps for more than
// nine) and scores no others. With the
// rerank store's corpus (vector top 5: chunks 0, 1, 3, 4, 5) its default
// order gives every movement: chunk 1 ↑1, chunk 0 ↓1, chunk 6 new,
// chunk 4 =, chunk 9 new; chunks 3 and 5 fall out.
type orderReranker struct {
	name  string
	order []int
	err   error
}

func (r orderReranker) Rerank(_ context.Context, _ string, docs []string, topN int) ([]retrieval.Relevance, error) {
	if r.err != nil {
		return nil, r.err
	}
	step := 0.1
	if len(r.order) > 9 {
		step = 0.9 / float64(len(r.order))
	}
	var out []retrieval.Relevance
	for j, i := range r.order {
		if i < len(docs) && len(out) < topN {
			out = append(out, retrieval.Relevance{Index: i, Score: 0.95 - step*float64(j)})
		}
	}
	return out, nil
}

func (r orderReranker) Name() string { return r.name }

var everyMove = []int{1, 0, 6, 4, 9}

// fixedTimings answers through a real pipeline with fixed timings, so
// views do not depend on the clock.
type fixedTimings struct{ p *retrieval.Pipeline }

func (f fixedTimings) Retrieve(ctx context.Context, q retrieval.Query) (retrieval.Result, error) {
	res, err := f.p.Retrieve(ctx, q)
	res.Timings = retrieval.Timings{Embed: 12300 * time.Microsecond, Search: 4500 * time.Microsecond, Post: 200 * time.Microsecond, Total: 17 * time.Millisecond}
	if res.Rerank != nil {
		res.Timings.Rerank = 2100 * time.Microsecond
		res.Timings.Total += res.Timings.Rerank
	}
	return res, err
}

// rerankSetup is a test explorer's rerank setup: one pipeline per model
// of rerankers, the plain one without.
type rerankSetup struct {
	store   *rerankStore
	plain   *retrieval.Pipeline
	mu      sync.Mutex
	opened  []string
	openErr error
}

func newRerankOptions(t *testing.T, rerankers ...retrieval.Reranker) (Options, *rerankSetup) {
	t.Helper()
	st := &rerankStore{}
	urls := retrieval.URLBuilder{DocsBase: "https://book.example.org/docs/"}
	rs := &rerankSetup{store: st, plain: &retrieval.Pipeline{Embedder: rerankEmbedder{}, Store: st, URLs: urls, Backend: "demo", Collection: "fake"}}
	byName := map[string]retrieval.Reranker{}
	var models []string
	for _, r := range rerankers {
		byName[r.Name()] = r
		models = append(models, r.Name())
	}
	opts, _ := testOptions(&fakeRetriever{})
	opts.Retriever = fixedTimings{rs.plain}
	opts.Rerank = RerankSetup{
		Models: models,
		Retriever: func(_ context.Context, model string) (Retriever, error) {
			rs.mu.Lock()
			defer rs.mu.Unlock()
			rs.opened = append(rs.opened, model)
			if rs.openErr != nil {
				return nil, rs.openErr
			}
			p := *rs.plain
			p.Reranker = byName[model]
			return fixedTimings{&p}, nil
		},
		Label: func(m string) string { return "rerank " + m + " (test)" },
	}
	return opts, rs
}

func (rs *rerankSetup) models() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return slices.Clone(rs.opened)
}

// The toggle key reranks the current question as a new turn, the list
// shows movement and both scores, and the key turns it off again.
func TestRerankToggle(t *testing.T) {
	opts, rs := newRerankOptions(t, orderReranker{name: "order-rr", order: everyMove})
	m := sized(t, opts, 120, 40)
	if v := screen(m); !strings.Contains(v, "rerank off") {
		t.Fatalf("header without rerank on:\n%s", v)
	}
	// In the question box r is text.
	if m = feed(t, m, keyRunes("r")); m.params.Rerank.On || m.query.Value() != "r" {
		t.Fatalf("r in the question box: rerank %v, question %q", m.params.Rerank.On, m.query.Value())
	}
	m = feed(t, m, keyType(tea.KeyBackspace))
	m = ask(t, m, "nodes")
	if m.results.Res.Rerank != nil || strings.Contains(screen(m), "vector #") {
		t.Fatal("the first question was reranked with rerank off")
	}
	m = feed(t, m, keyRunes("r"))
	if turns := m.Turns(); len(turns) != 2 || turns[1] != "nodes" {
		t.Fatalf("turns = %q", turns)
	}
	if got := rs.models(); len(got) != 1 || got[0] != "order-rr" {
		t.Fatalf("rerank retriever opened for %q", got)
	}
	v := screen(m)
	for _, want := range []string{
		"rerank order-rr (test)", "reranked by order-rr",
		"↑1   Services", "↓1   Nodes and Topics", "new  Nodes and Topics", "=    Launch Files",
		"vector #2 0.880", "vector #1 0.900", "vector #4 0.820", "candidate #7 0.780",
		"fell out of the vector top 5: #3 Actions",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("screen lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatal(v)
	}
	if st := m.Status(); !strings.Contains(st, "rerank 2.1 ms") || m.statusKind != statusOK {
		t.Fatalf("status = %q", st)
	}
	// Candidates: top_k × 4 searched.
	if l := rs.store.limits; l[len(l)-1] != 20 {
		t.Fatalf("search limits %v", l)
	}
	// r again: vector order, a third turn.
	m = feed(t, m, keyRunes("r"))
	if turns := m.Turns(); len(turns) != 3 || m.results.Res.Rerank != nil || !strings.Contains(screen(m), "rerank off") {
		t.Fatalf("rerank not turned off: turns %q", turns)
	}
	// Selected-text questions never rerank.
	m = feed(t, m, keyRunes("r"))
	if q := m.buildQuery(); !q.Rerank.On {
		t.Fatal("rerank on does not reach the query")
	}
	m.mode = retrieval.ModeSelectedText
	if q := m.buildQuery(); q.Rerank.On {
		t.Fatal("a selected-text query asks for reranking")
	}
}

// Without a reranker the key is off, absent from the help, and the
// settings rows say so.
func TestRerankUnavailable(t *testing.T) {
	f := &fakeRetriever{}
	opts, _ := testOptions(f)
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyRunes("r"))
	if len(m.Turns()) != 1 || f.last().Rerank.On {
		t.Fatal("r reranked without a reranker")
	}
	m = feed(t, m, keyRunes("?"))
	if v := screen(m); strings.Contains(v, "rerank") {
		t.Fatalf("help offers rerank:\n%s", v)
	}
	m = feed(t, m, keyType(tea.KeyEsc), keyRunes("s"))
	if v := screen(m); !strings.Contains(v, "not available with this backend") || strings.Contains(v, "rerank off") {
		t.Fatalf("settings:\n%s", v)
	}
}

// ragscope --rerank MODEL starts with reranking on; the settings rows
// change the model, the candidates and the relevance threshold, each
// re-running the question.
func TestRerankSettings(t *testing.T) {
	opts, rs := newRerankOptions(t, orderReranker{name: "first", order: everyMove}, orderReranker{name: "second", order: []int{9, 8, 7, 6, 5}})
	opts.Rerank.On, opts.Rerank.Candidates = true, 3
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	if m.results.Res.Rerank == nil || m.results.Res.Rerank.Model != "first" || !strings.Contains(screen(m), "rerank first (test)") {
		t.Fatalf("not reranked at start:\n%s", screen(m))
	}
	if l := rs.store.limits; l[0] != 15 {
		t.Fatalf("search limit %v, want 5 × 3", l)
	}
	m = feed(t, m, keyRunes("s"))
	m = toRow(t, m, settings.RowRerankModel)
	// The model row: → picks the second model and re-runs.
	next, cmd := m.Update(keyRunes("l"))
	m = feed(t, next.(Model), runCmd(t, cmd)...)
	if v := screen(m); !strings.Contains(v, "‹ second › (2/2)") {
		t.Fatalf("model row:\n%s", v)
	}
	m = feed(t, m, rerunMsg{Seq: m.rerunSeq})
	if m.results.Res.Rerank == nil || m.results.Res.Rerank.Model != "second" || len(m.Turns()) != 2 {
		t.Fatalf("model change did not re-run with it: %+v", m.results.Res.Rerank)
	}
	// Candidates 3 → 4, relevance threshold 0 → 0.05 → … → 0.7.
	next, cmd = m.Update(keyRunes("j"))
	m = feed(t, next.(Model), runCmd(t, cmd)...)
	next, cmd = m.Update(keyRunes("l"))
	m = feed(t, next.(Model), runCmd(t, cmd)...)
	m = feed(t, m, keyRunes("j"))
	for range 14 {
		m = feed(t, m, keyRunes("l"))
	}
	m = feed(t, m, rerunMsg{Seq: m.rerunSeq})
	res := m.results.Res
	if q := res.Params; q.TopK != 5 || res.Rerank == nil || res.Rerank.Threshold != 0.7 || rs.store.limits[len(rs.store.limits)-1] != 20 {
		t.Fatalf("rerank settings not applied: %+v, limits %v", res.Rerank, rs.store.limits)
	}
	// Relevance 0.95, 0.85, 0.75 pass 0.7; 0.65 and 0.55 do not.
	if len(res.Hits) != 3 {
		t.Fatalf("hits %d with relevance ≥ 0.7", len(res.Hits))
	}
	// While rerank is off, its rows change nothing that re-runs.
	m = feed(t, m, keyRunes("r"))
	turns := len(m.Turns())
	next, cmd = m.Update(keyRunes("l"))
	m = next.(Model)
	if msgs := runCmd(t, cmd); len(msgs) != 1 {
		t.Fatalf("settings change: %v", msgs)
	} else if m = feed(t, m, msgs...); m.rerunSeq != 0 && len(m.Turns()) != turns {
		t.Fatal("a rerank setting re-ran with rerank off")
	}
}

// A failed rerank (the call, or opening the reranker) leaves the vector
// results showing with the error in the status line.
func TestRerankError(t *testing.T) {
	refused := errors.New("cohere rejected the API key (401): check COHERE_API_KEY")
	opts, rs := newRerankOptions(t, orderReranker{name: "broken", err: refused})
	opts.Rerank.On = true
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	st := m.Status()
	if m.statusKind != statusErr || !strings.Contains(st, "Rerank failed, showing the vector order: cohere rejected the API key (401)") || !strings.Contains(st, "4 results · 1 left out") {
		t.Fatalf("status = %q", st)
	}
	v := screen(m)
	if !strings.Contains(v, "rerank failed: vector order") || strings.Contains(v, "vector #") || strings.Contains(v, "fell out") {
		t.Fatalf("screen:\n%s", v)
	}
	if ids := hitIDs(m.results.Res.Hits); !slices.Equal(ids, []string{"chunk-00", "chunk-01", "chunk-03", "chunk-04"}) {
		t.Fatalf("hits %v, want the vector order", ids)
	}

	rs.mu.Lock()
	rs.openErr = errors.New("no Cohere API key: set COHERE_API_KEY")
	rs.mu.Unlock()
	opts2, _ := newRerankOptions(t, orderReranker{name: "unopened", order: everyMove})
	opts2.Rerank.Retriever = opts.Rerank.Retriever
	opts2.Rerank.On = true
	m = sized(t, opts2, 120, 40)
	m = ask(t, m, "nodes")
	if st := m.Status(); m.statusKind != statusErr || !strings.Contains(st, "open reranker unopened: no Cohere API key") || len(m.results.Res.Hits) != 4 {
		t.Fatalf("open error: status %q, %d hits", st, len(m.results.Res.Hits))
	}
}

func hitIDs(hs []retrieval.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Chunk.ID
	}
	return out
}

// Turn compare of rerank off against on for one question: the settings
// that differ, what the scores are, and every chunk's move.
func TestRerankCompareTurns(t *testing.T) {
	opts, _ := newRerankOptions(t, orderReranker{name: "order-rr", order: everyMove})
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyRunes("r"), keyRunes("t"))
	v := screen(m)
	for _, want := range []string{
		"#1 nodes · 4 hits", "#2 [rerank order-rr] nodes", "#2 (on show) against #1", "rerank off→on",
		"scores: now order-rr relevance · was vector similarity",
		"  1  0.950    2  0.880  ↑1    Services",
		"  2  0.850    1  0.900  ↓1    Nodes and Topics",
		"  4  0.650    4  0.820  =     Launch Files",
		"  -           3  0.840  gone  Actions",
		"r rerank on/off: a new turn to compare",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("turns lack %q", want)
		}
	}
	if t.Failed() {
		t.Fatal(v)
	}
}

// The detail pane shows the hit's vector rank and similarity and its
// rerank rank, relevance and move.
func TestRerankDetail(t *testing.T) {
	opts, _ := newRerankOptions(t, orderReranker{name: "order-rr", order: everyMove})
	opts.Rerank.On = true
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyRunes("j"))
	v := screen(m)
	for _, want := range []string{"vector      #1 · similarity 0.9000", "rerank      #2 · relevance 0.8500 · ↓1 from vector #1"} {
		if !strings.Contains(v, want) {
			t.Fatalf("detail lacks %q:\n%s", want, v)
		}
	}
}

func TestRerankRenderHelpers(t *testing.T) {
	for _, tt := range []struct {
		m    retrieval.Movement
		want string
	}{
		{retrieval.Movement{Kind: retrieval.MoveUp, By: 3, From: 4}, "↑3  "},
		{retrieval.Movement{Kind: retrieval.MoveDown, By: 12, From: 1}, "↓12 "},
		{retrieval.Movement{Kind: retrieval.MoveNew}, "new "},
		{retrieval.Movement{Kind: retrieval.MoveSame, From: 2}, "=   "},
	} {
		if got := results.MoveCell(tt.m); got != tt.want {
			t.Errorf("moveCell(%v) = %q, want %q", tt.m, got, tt.want)
		}
	}
	up := retrieval.Movement{Kind: retrieval.MoveUp, By: 1, From: 3}
	if got := results.VectorCell(&retrieval.Hit{VectorRank: 4, VectorScore: 0.6123}, up, "vector"); got != "vector #3 0.612" {
		t.Errorf("vectorCell = %q", got)
	}
	// On the local index the store's order is the hybrid's or BM25's.
	if got := results.VectorCell(&retrieval.Hit{VectorRank: 4, VectorScore: 0.4311}, up, present.FirstStage("hybrid")); got != "hybrid #3 0.431" {
		t.Errorf("vectorCell(hybrid) = %q", got)
	}
	if got := results.VectorCell(&retrieval.Hit{VectorRank: 9, VectorScore: 0.5}, retrieval.Movement{Kind: retrieval.MoveNew}, "vector"); got != "candidate #9 0.500" {
		t.Errorf("vectorCell(new) = %q", got)
	}
	on := retrieval.Query{TopK: 5, Rerank: retrieval.RerankOptions{On: true, Candidates: 4}}
	off := retrieval.Query{TopK: 5}
	if d := turns.ParamsDiff(off, on); d != "rerank off→on" {
		t.Errorf("paramsDiff = %q", d)
	}
	more := on
	more.Rerank.Candidates, more.Rerank.Threshold = 8, 0.2
	if d := turns.ParamsDiff(on, more); d != "candidates ×4→×8 · relevance ≥ 0.00→0.20" {
		t.Errorf("paramsDiff = %q", d)
	}
	off2 := off
	off2.Rerank.Candidates = 9 // ignored while off
	if d := turns.ParamsDiff(off, off2); d != "same settings" {
		t.Errorf("paramsDiff = %q", d)
	}
	if rerankChanged(off.Rerank, off2.Rerank, "a", "b") || !rerankChanged(on.Rerank, on.Rerank, "a", "b") || !rerankChanged(off.Rerank, on.Rerank, "a", "a") {
		t.Error("rerankChanged")
	}
	hostile := retrieval.Result{Rerank: &retrieval.RerankInfo{Model: "m\x1b[31m", Vector: make([]retrieval.Hit, 5),
		FellOut: []retrieval.Hit{{Rank: 2, Chunk: retrieval.Chunk{Title: "Evil\x1b]0;pwned\x07"}}}}}
	for _, s := range []string{results.FellOutLine(&hostile), results.RerankTitle(&hostile), turns.RerankTag(&hostile)} {
		if strings.ContainsAny(s, "\x1b\x07") {
			t.Errorf("control sequence reaches the screen: %q", s)
		}
	}
}

// TestGoldenRerank snapshots the results of a reranked question (movement,
// both scores, what fell out) like TestGolden; regenerate with:
// go test ./ui -run TestGoldenRerank -update
func TestGoldenRerank(t *testing.T) {
	for _, tt := range []struct {
		name string
		w, h int
	}{{"results", 120, 40}, {"narrow", 70, 24}} {
		t.Run(tt.name, func(t *testing.T) {
			opts, _ := newRerankOptions(t, orderReranker{name: "order-rr", order: everyMove})
			opts.Rerank.On = true
			tm := teatest.NewTestModel(t, New(opts), teatest.WithInitialTermSize(tt.w, tt.h),
				teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
			tm.Type("How do nodes talk?")
			tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
			waitFor(t, tm, "rerank 2.1 ms")
			time.Sleep(50 * time.Millisecond)
			if err := tm.Quit(); err != nil {
				t.Fatal(err)
			}
			fm := tm.FinalModel(t, teatest.WithFinalTimeout(3*time.Second)).(Model)
			golden.RequireEqual(t, []byte(screen(fm)))
		})
	}
}

// rerankedBenchModel is a 200x60 model and a result of 100 hits reranked
// from 100 candidates (the most the pipeline reranks): reversed, so every
// row moves.
func rerankedBenchModel(b *testing.B) (Model, retrieval.Result) {
	b.Helper()
	order := make([]int, 100)
	for i := range order {
		order[i] = 99 - i
	}
	opts, _ := newRerankOptions(&testing.T{}, orderReranker{name: "rev", order: order})
	opts.Rerank.On = true
	opts.Defaults = retrieval.Query{TopK: 100, NoDedup: true}
	r, err := opts.Rerank.Retriever(context.Background(), "rev")
	if err != nil {
		b.Fatal(err)
	}
	// The rerank store has 30 chunks: make 100 by widening it.
	p := r.(fixedTimings).p
	p.Store = wideStore{n: 100}
	res, err := r.Retrieve(context.Background(), retrieval.Query{Question: "q", TopK: 100, NoDedup: true, Rerank: retrieval.RerankOptions{On: true}})
	if err != nil || len(res.Hits) != 100 || res.Rerank.Returned != 100 {
		b.Fatalf("reranked %d hits: %v", len(res.Hits), err)
	}
	return sized(b, opts, 200, 60), res
}

// wideStore answers n chunks with falling scores.
type wideStore struct{ n int }

func (s wideStore) Search(_ context.Context, req retrieval.SearchRequest) ([]retrieval.ScoredChunk, error) {
	var out []retrieval.ScoredChunk
	for i := 0; i < min(s.n, req.Limit); i++ {
		c := retrieval.Chunk{ID: fmt.Sprintf("c%03d", i), Text: fakeText(i, "Topic "+fmt.Sprint(i)), Title: fmt.Sprintf("Page %d", i), Section: "Section", Module: "m", Chapter: "c", DocPath: fmt.Sprintf("docs/m/p%d.md", i)}
		out = append(out, retrieval.ScoredChunk{Chunk: c, Score: 1 - float64(i)/200})
	}
	return out, nil
}

func (wideStore) Stats(context.Context) (retrieval.Stats, error) { return retrieval.Stats{}, nil }

// BenchmarkShowReranked100 is the update that shows a reranked result of
// 100 hits: movements, rows, the detail of the first.
func BenchmarkShowReranked100(b *testing.B) {
	m, res := rerankedBenchModel(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.seq, m.running = i+1, true
		next, _ := m.Update(resultMsg{Seq: i + 1, Query: retrieval.Query{Question: "q", TopK: 100}, Result: res})
		m = next.(Model)
	}
}

// BenchmarkViewReranked100 draws the screen of a reranked result of 100
// hits (movement and both scores on every row, the fell-out line).
func BenchmarkViewReranked100(b *testing.B) {
	m, res := rerankedBenchModel(b)
	m = feed(b, m, resultMsg{Seq: 0, Query: retrieval.Query{Question: "q", TopK: 100}, Result: res}, keyType(tea.KeyEsc))
	if !strings.Contains(screen(m), "↑99") {
		b.Fatal("no movement on screen")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = m.View()
	}
}
