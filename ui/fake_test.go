package ui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ragscope/retrieval"
)

// fakeRetriever answers from a fixed corpus through the real
// post-processing (threshold, dedup, ranking, grounding), with fixed
// timings so views do not depend on the clock.
type fakeRetriever struct {
	mu      sync.Mutex
	queries []retrieval.Query
	// block makes Retrieve wait for its context.
	block bool
	err   error
}

func (f *fakeRetriever) Retrieve(ctx context.Context, q retrieval.Query) (retrieval.Result, error) {
	f.mu.Lock()
	f.queries = append(f.queries, q)
	block, ferr := f.block, f.err
	f.mu.Unlock()
	if block {
		<-ctx.Done()
		return retrieval.Result{}, ctx.Err()
	}
	if ferr != nil {
		return retrieval.Result{}, ferr
	}
	q, truncated, n, err := retrieval.Normalize(q)
	if err != nil {
		return retrieval.Result{}, err
	}
	urls := retrieval.URLBuilder{DocsBase: "https://book.example.org/docs/"}
	res := retrieval.Result{Question: q.Question, Mode: q.Mode, Truncated: truncated, Hits: []retrieval.Hit{}, Dropped: []retrieval.DroppedHit{}}
	if truncated {
		res.OriginalLength = n
	}
	res.Params = retrieval.Params{TopK: q.TopK, Threshold: q.Threshold, Dedup: !q.NoDedup, Filters: q.Filters, Backend: "demo", Collection: "fake"}
	if q.Mode == retrieval.ModeSelectedText {
		c := retrieval.Chunk{ID: "selection", Text: q.SelectedText, DocPath: q.SourceDocPath, Section: q.SourceSection, Title: "Selected text"}
		h := retrieval.Hit{Rank: 1, Score: 1, Chunk: c, Citation: urls.Cite(&c)}
		res.Hits = []retrieval.Hit{h}
		res.Grounded = retrieval.Grounded{Sufficient: true, Instruction: retrieval.InstructionSelectedText, Context: q.SelectedText, Sources: []retrieval.Citation{h.Citation}}
		res.Timings = retrieval.Timings{Post: 100 * time.Microsecond, Total: 200 * time.Microsecond}
		return res, nil
	}
	var scored []retrieval.ScoredChunk
	for _, sc := range fakeCorpus(q.TopK + 2) {
		if q.Filters.Match(&sc.Chunk) {
			scored = append(scored, sc)
		}
	}
	retrieval.PostProcess(scored, q, urls, &res)
	res.Timings = retrieval.Timings{Embed: 12300 * time.Microsecond, Search: 4500 * time.Microsecond, Post: 200 * time.Microsecond, Total: 17 * time.Millisecond}
	return res, nil
}

func (f *fakeRetriever) last() retrieval.Query {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queries[len(f.queries)-1]
}

// fakeCorpus returns n scored chunks; the third duplicates the first.
func fakeCorpus(n int) []retrieval.ScoredChunk {
	titles := []string{"Nodes and Topics", "Services", "Nodes and Topics", "Actions", "Launch Files", "URDF Basics"}
	out := make([]retrieval.ScoredChunk, 0, n)
	for i := 0; i < n; i++ {
		title := titles[i%len(titles)]
		text := fakeText(i, title)
		if i == 2 {
			text = fakeText(0, titles[0]) // a duplicate of chunk 0
		}
		module := "module-1-ros2"
		if i%2 == 1 {
			module = "module-2-simulation"
		}
		out = append(out, retrieval.ScoredChunk{
			Score: 0.9 - float64(i)*0.1,
			Chunk: retrieval.Chunk{
				ID:          fmt.Sprintf("chunk-%02d", i),
				Text:        text,
				DocPath:     fmt.Sprintf("docs/%s/%02d-%s.md", module, i, strings.ReplaceAll(strings.ToLower(title), " ", "-")),
				Title:       title,
				Section:     "Overview",
				Module:      module,
				Chapter:     strings.ReplaceAll(strings.ToLower(title), " ", "-"),
				ChunkIndex:  retrieval.IntPtr(i % 3),
				TotalChunks: retrieval.IntPtr(3),
				ContentType: "concept",
				Tags:        []string{"ros2"},
			},
		})
	}
	return out
}

func fakeText(i int, title string) string {
	return fmt.Sprintf("## %s\n\nA **node** is the unit of computation. Chunk %d explains %s in a few sentences so the detail pane has something to render.", title, i, strings.ToLower(title))
}

// testOptions are Options over f with recording clipboard and opener.
func testOptions(f *fakeRetriever) (Options, *[]string) {
	var copied []string
	return Options{
		Retriever: f,
		Stats: func(context.Context) (retrieval.Stats, error) {
			return retrieval.Stats{Points: 42, Facets: map[string][]string{
				"module": {"module-1-ros2", "module-2-simulation"}, "chapter": {"nodes-and-topics"},
				"content_type": {"concept"}, "tag": {"ros2"},
			}}, nil
		},
		Backend:   BackendInfo{Kind: "demo", Label: "fake", Collection: "fake-book", Model: "fake-embed-v1", Points: -1},
		Defaults:  retrieval.Query{TopK: 5, Threshold: 0.55},
		Clipboard: func(s string) error { copied = append(copied, s); return nil },
		OpenURL:   func(string) error { return nil },
		Getenv:    func(string) string { return "" },
	}, &copied
}

// runCmd runs cmd and returns the messages it produces, flattening batches
// and sequences. Commands that do not return quickly (ticks, blinks,
// debounces) are skipped.
func runCmd(t testing.TB, cmd tea.Cmd) []tea.Msg {
	t.Helper()
	if cmd == nil {
		return nil
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(100 * time.Millisecond):
		return nil
	}
	switch msg := msg.(type) {
	case nil:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, runCmd(t, c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// feed sends msg and then, recursively, the messages its commands
// produce (tick-like commands are dropped), returning the final model.
func feed(t testing.TB, m Model, msgs ...tea.Msg) Model {
	t.Helper()
	queue := append([]tea.Msg(nil), msgs...)
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 500 {
			t.Fatal("message loop did not settle")
		}
		msg := queue[0]
		queue = queue[1:]
		next, cmd := m.Update(msg)
		m = next.(Model)
		for _, out := range runCmd(t, cmd) {
			switch out.(type) {
			case tea.QuitMsg:
				continue
			}
			queue = append(queue, out)
		}
	}
	return m
}

func keyRunes(s string) tea.KeyPressMsg {
	r := []rune(s)
	return tea.KeyPressMsg{Code: r[0], Text: s}
}

func keyType(k rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: k} }

func ctrl(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Mod: tea.ModCtrl} }

// screen is what m draws, as plain text.
func screen(m Model) string { return ansi.Strip(m.View().Content) }

// typeText sends s one rune at a time.
func typeText(s string) []tea.Msg {
	out := make([]tea.Msg, 0, len(s))
	for _, r := range s {
		out = append(out, keyRunes(string(r)))
	}
	return out
}

// sized is a new model at 120x40.
func sized(t testing.TB, opts Options, w, h int) Model {
	t.Helper()
	m := New(opts)
	m = feed(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	return feed(t, m, runCmd(t, m.Init())...)
}

// ask types q and presses enter.
func ask(t testing.TB, m Model, q string) Model {
	t.Helper()
	return feed(t, m, append(typeText(q), keyType(tea.KeyEnter))...)
}
