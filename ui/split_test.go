package ui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"ragscope/retrieval"
	"ragscope/ui/common"
	"ragscope/ui/settings"
	"ragscope/ui/split"
)

// fakeSetupB is setup B of the split tests: it reranks A's answer by
// hand (A #3 first, then A #1 as another chunk of the same section, then
// a page A does not have), or fails with err.
type fakeSetupB struct {
	a     *fakeRetriever
	mu    sync.Mutex
	asked []string
	err   error
}

func (b *fakeSetupB) retrieve(ctx context.Context, setup, question string) (retrieval.Result, error) {
	b.mu.Lock()
	b.asked = append(b.asked, setup+": "+question)
	err := b.err
	b.mu.Unlock()
	if err != nil {
		return retrieval.Result{}, err
	}
	ra, err := b.a.Retrieve(ctx, retrieval.Query{Question: question, TopK: 5, Threshold: 0.55})
	if err != nil {
		return retrieval.Result{}, err
	}
	// A ranks nodes (1), services (2), actions (3).
	nodes, actions := ra.Hits[0], ra.Hits[2]
	nodes.Chunk.ID = "other-chunking-7" // matched by doc path and anchor, not id
	urdf := retrieval.Hit{Chunk: retrieval.Chunk{ID: "u1", Title: "URDF Basics", DocPath: "docs/module-1-ros2/05-urdf-basics.md"}}
	res := retrieval.Result{Question: question, Mode: retrieval.ModeNormal}
	for i, h := range []retrieval.Hit{actions, nodes, urdf} {
		h.Rank, h.Score = i+1, 0.8-float64(i)*0.1
		res.Hits = append(res.Hits, h)
	}
	return res, nil
}

func (b *fakeSetupB) calls() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.asked...)
}

// splitModel is a model at w x h whose split compares setup "hybrid" (A,
// the fake corpus) with "bm25" (B).
func splitModel(t testing.TB, w, h int, profile colorprofile.Profile) (Model, *fakeSetupB) {
	t.Helper()
	f := &fakeRetriever{}
	b := &fakeSetupB{a: f}
	opts, _ := testOptions(f)
	opts.Compare = CompareSetup{Name: "hybrid", Setups: []string{"bm25"}, Vs: "bm25", Retrieve: b.retrieve}
	m := newModel(context.Background(), opts, common.DefaultStyles(true, profile))
	m = feed(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	m = feed(t, m, runCmd(t, m.Init())...)
	return m, b
}

// splitRowOf is the screen line of the row whose title starts with title
// on the given side (0 left, 1 right).
func splitRowOf(t *testing.T, view string, side int, title string) string {
	t.Helper()
	for _, ln := range strings.Split(view, "\n") {
		cells := []rune(ln)
		half := len(cells) / 2
		part := string(cells[:half])
		if side == 1 {
			part = string(cells[half:])
		}
		if strings.Contains(part, title) {
			return part
		}
	}
	t.Fatalf("no row %q on side %d:\n%s", title, side, view)
	return ""
}

// TestSplitMarksAndDetail: V splits the results into A and B with each
// row's movement from A to B (hand-checked: actions A #3 → B #1 is ↑2,
// nodes A #1 → B #2 is ↓1, services only in A, URDF only in B), enter
// opens a row's detail on either side, esc goes back and closes.
func TestSplitMarksAndDetail(t *testing.T) {
	m, b := splitModel(t, 120, 40, colorprofile.NoTTY)
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, keyRunes("V"))
	if m.Focus() != string(focusSplitA) || m.split.Loading {
		t.Fatalf("focus %q, loading %v, status %q", m.Focus(), m.split.Loading, m.Status())
	}
	if got := b.calls(); len(got) != 1 || got[0] != "bm25: How do nodes talk?" {
		t.Fatalf("B asked %q", got)
	}
	v := screen(m)
	for _, want := range []string{"A · hybrid · 3 hits", "B · bm25 · 3 hits"} {
		if !strings.Contains(v, want) {
			t.Fatalf("no %q:\n%s", want, v)
		}
	}
	for _, tc := range []struct {
		side        int
		title, mark string
	}{
		{0, "Nodes and Topics", "↓1"}, {0, "Services", "only in A"}, {0, "Actions", "↑2"},
		{1, "Actions", "↑2"}, {1, "Nodes and Topics", "↓1"}, {1, "URDF Basics", "only in B"},
	} {
		if row := splitRowOf(t, v, tc.side, tc.title); !strings.Contains(row, tc.mark) {
			t.Errorf("side %d %s: want %q in %q", tc.side, tc.title, tc.mark, row)
		}
	}

	// A click on B's third row selects it (the body starts on line 5:
	// the border, the title, then two lines a row); enter on A's first
	// row, then on B's third (the one clicked).
	m = feed(t, m, tea.MouseClickMsg{Button: tea.MouseLeft, X: 80, Y: 6 + 1 + 2*2})
	if m.Focus() != string(focusSplitB) || m.split.Half[1].Cursor != 2 {
		t.Fatalf("click: focus %q, B cursor %d", m.Focus(), m.split.Half[1].Cursor)
	}
	m = feed(t, m, tea.MouseClickMsg{Button: tea.MouseLeft, X: 10, Y: 7})
	if m.Focus() != string(focusSplitA) || m.split.Half[0].Cursor != 0 {
		t.Fatalf("click: focus %q, A cursor %d", m.Focus(), m.split.Half[0].Cursor)
	}
	m = feed(t, m, keyType(tea.KeyEnter))
	if v := screen(m); !strings.Contains(v, "Detail of A hybrid #1 · ↓1") || !strings.Contains(v, "chunk-00") {
		t.Fatalf("A's detail:\n%s", v)
	}
	m = feed(t, m, keyType(tea.KeyEsc), keyType(tea.KeyRight))
	if m.Focus() != string(focusSplitB) {
		t.Fatalf("right: focus %q", m.Focus())
	}
	m = feed(t, m, keyType(tea.KeyEnter))
	if v := screen(m); !strings.Contains(v, "Detail of B bm25 #3 · only in B") || !strings.Contains(v, "u1") {
		t.Fatalf("B's detail:\n%s", v)
	}
	// tab goes from B to the question box, the split stays on screen.
	m = feed(t, m, keyType(tea.KeyEsc), keyType(tea.KeyTab))
	if m.Focus() != string(focusQuery) || !strings.Contains(screen(m), "B · bm25") {
		t.Fatalf("tab: focus %q\n%s", m.Focus(), screen(m))
	}
	m = feed(t, m, keyType(tea.KeyEsc))
	if m.Focus() != string(focusSplitB) {
		t.Fatalf("esc from the question box: focus %q", m.Focus())
	}
	m = feed(t, m, keyType(tea.KeyEsc))
	if m.Focus() != string(focusResults) || m.split.Open || strings.Contains(screen(m), "B · bm25") {
		t.Fatalf("esc did not close the split: focus %q\n%s", m.Focus(), screen(m))
	}
}

// TestSplitFollowsNewQuestions: a question asked while the split is open
// keeps the split and asks B again; the same question (a settings re-run)
// does not.
func TestSplitFollowsNewQuestions(t *testing.T) {
	m, b := splitModel(t, 120, 40, colorprofile.NoTTY)
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, keyRunes("V"), keyRunes("i"), ctrl('u'))
	m = feed(t, m, append(typeText("What is a service?"), keyType(tea.KeyEnter))...)
	if m.Focus() != string(focusSplitA) || !m.split.Open {
		t.Fatalf("after asking: focus %q", m.Focus())
	}
	if got := b.calls(); len(got) != 2 || got[1] != "bm25: What is a service?" {
		t.Fatalf("B asked %q", got)
	}
	if m.split.Question != "What is a service?" || len(m.split.Half[1].Rows) != 3 {
		t.Fatalf("split shows %q with %d B rows", m.split.Question, len(m.split.Half[1].Rows))
	}
	// V closes; V again on the same question keeps B's answer.
	m = feed(t, m, keyRunes("V"), keyRunes("V"))
	if got := b.calls(); len(got) != 2 || !m.split.Open {
		t.Fatalf("reopened: B asked %q, open %v", got, m.split.Open)
	}
}

// TestSplitBFails: setup B's provider refusing its key shows in B's
// half; A's ranking stays, the status line is not an error, and closing
// the split leaves the explorer as it was.
func TestSplitBFails(t *testing.T) {
	m, b := splitModel(t, 120, 40, colorprofile.NoTTY)
	b.err = fmt.Errorf("embed query: %w: cohere 401: invalid api token", retrieval.ErrAuth)
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, keyRunes("V"))
	v := screen(m)
	if !strings.Contains(v, "✗ setup bm25:") || !strings.Contains(splitRowOf(t, v, 0, "Services"), "0.800") {
		t.Fatalf("B's error or A's rows missing:\n%s", v)
	}
	if strings.Contains(splitRowOf(t, v, 1, "✗ setup bm25"), "Services") || m.statusKind == statusErr {
		t.Fatalf("the error left B's half: status %q\n%s", m.Status(), v)
	}
	// A stays usable: enter opens A's detail.
	m = feed(t, m, keyType(tea.KeyEnter))
	if !strings.Contains(screen(m), "Detail of A hybrid #1") {
		t.Fatalf("A's detail:\n%s", screen(m))
	}
}

// TestSplitStaleReplyDropped: B's reply after the split closed (its
// request cancelled) changes nothing.
func TestSplitStaleReplyDropped(t *testing.T) {
	m, _ := splitModel(t, 120, 40, colorprofile.NoTTY)
	m = ask(t, m, "How do nodes talk?")
	next, _ := m.Update(keyRunes("V"))
	m = next.(Model)
	if !m.split.Loading {
		t.Fatal("B is not searching")
	}
	seq := m.split.Seq
	m = feed(t, m, keyRunes("V"))
	m = feed(t, m, split.Msg{Seq: seq, Setup: "bm25", Question: "How do nodes talk?", Result: retrieval.Result{Hits: []retrieval.Hit{{Rank: 1}}}})
	if m.split.Half[1].Has || m.split.Open {
		t.Fatalf("stale reply shown: %+v", m.split.Half[1])
	}
}

// TestSplitNarrowAndNoColour: at 80x24 without colours the split is
// still legible: both headers, marks and titles, no line over 80 cells,
// and the focused side told by its heavy border.
func TestSplitNarrowAndNoColour(t *testing.T) {
	m, _ := splitModel(t, 80, 24, colorprofile.Ascii)
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, keyRunes("V"))
	v := ansi.Strip(m.View().Content)
	for i, ln := range strings.Split(v, "\n") {
		if w := ansi.StringWidth(ln); w > 80 {
			t.Fatalf("line %d is %d cells: %q", i, w, ln)
		}
	}
	if !strings.Contains(splitRowOf(t, v, 0, "Actions"), "↑2") || !strings.Contains(splitRowOf(t, v, 1, "URDF"), "only in B") ||
		!strings.Contains(v, "A · hybrid") || !strings.Contains(v, "B · bm25") {
		t.Fatalf("not legible at 80 columns:\n%s", v)
	}
	if row := splitRowOf(t, v, 0, "A · hybrid"); !strings.HasPrefix(row, "┏") && !strings.Contains(row, "┃") {
		t.Fatalf("the focused side has no heavy border: %q", row)
	}
}

// TestSplitWithoutSetupB: without --vs the key's help and the status say
// how to get a setup to compare with; nothing opens.
func TestSplitWithoutSetupB(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	opts.Compare = CompareSetup{Name: "hybrid", Setups: []string{"bm25", "small"}}
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, keyRunes("?"))
	if v := screen(m); !strings.Contains(v, "split vs a setup (--vs NAME, or s: compare with)") {
		t.Fatalf("the full help does not say how to get a B:\n%s", v)
	}
	m = feed(t, m, keyType(tea.KeyEsc), keyRunes("V"))
	if m.split.Open || !strings.Contains(m.Status(), "start with ragscope --vs NAME (setups: bm25, small)") {
		t.Fatalf("open %v, status %q", m.split.Open, m.Status())
	}
	opts.Compare = CompareSetup{}
	m = sized(t, opts, 120, 40)
	m = feed(t, m, keyType(tea.KeyEsc), keyRunes("V"))
	if !strings.Contains(m.Status(), "Add a [setups.NAME] table to ragscope.toml") {
		t.Fatalf("status %q", m.Status())
	}
}

// TestSplitCompareWithSetting: the settings' "compare with" row cycles
// none and the setups; the one chosen is B of the next split, and none
// makes V say how to choose one.
func TestSplitCompareWithSetting(t *testing.T) {
	f := &fakeRetriever{}
	b := &fakeSetupB{a: f}
	opts, _ := testOptions(f)
	opts.Compare = CompareSetup{Name: "hybrid", Setups: []string{"bm25", "small"}, Retrieve: b.retrieve}
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, keyRunes("s"))
	for i := 0; m.settings.Row != settings.RowCompare; i++ {
		if i > settings.RowCount {
			t.Fatal("no compare with row")
		}
		m = feed(t, m, keyType(tea.KeyDown))
	}
	if !strings.Contains(screen(m), "compare with ‹ none ›") {
		t.Fatalf("row:\n%s", screen(m))
	}
	m = feed(t, m, keyType(tea.KeyRight), keyType(tea.KeyRight))
	if !strings.Contains(screen(m), "compare with ‹ small ›") || !strings.Contains(m.Status(), "B small") {
		t.Fatalf("status %q\n%s", m.Status(), screen(m))
	}
	m = feed(t, m, keyType(tea.KeyEsc), keyRunes("V"))
	if got := b.calls(); !m.split.Open || len(got) != 1 || got[0] != "small: How do nodes talk?" || !strings.Contains(screen(m), "B · small · 3 hits") {
		t.Fatalf("split: open %v, B asked %q\n%s", m.split.Open, got, screen(m))
	}
	// Back to none: V explains instead of opening.
	m = feed(t, m, keyRunes("V"), keyRunes("s"), keyType(tea.KeyRight))
	m = feed(t, m, keyType(tea.KeyEsc), keyRunes("V"))
	if m.split.Open || !strings.Contains(m.Status(), "choose one in the settings") {
		t.Fatalf("open %v, status %q", m.split.Open, m.Status())
	}
}

// longPageRetriever answers with two sections of one page whose path is
// longer than half a 120-column screen.
type longPageRetriever struct{}

const longPage = "docs/module-with-a-rather-long-name/chapter-about-the-kinematics-of-humanoid-legs-and-arms.md"

func (longPageRetriever) Retrieve(_ context.Context, q retrieval.Query) (retrieval.Result, error) {
	urls := retrieval.URLBuilder{DocsBase: "https://book.example.org/docs/"}
	res := retrieval.Result{Question: q.Question, Mode: retrieval.ModeNormal, Hits: []retrieval.Hit{}, Dropped: []retrieval.DroppedHit{}}
	res.Params = retrieval.Params{TopK: q.TopK, Threshold: q.Threshold, Backend: "demo", Collection: "fake"}
	for i, sec := range []string{"Joint Types", "Link Frames"} {
		c := retrieval.Chunk{ID: fmt.Sprintf("k%d", i), Title: "Kinematics", Section: sec, DocPath: longPage, Text: "Joints and links of a leg."}
		res.Hits = append(res.Hits, retrieval.Hit{Rank: i + 1, Score: 0.9 - float64(i)*0.1, Chunk: c, Citation: urls.Cite(&c)})
	}
	res.Grounded = retrieval.Grounded{Sufficient: true}
	return res, nil
}

// TestSplitSourcesKeepTheAnchor: at 120x40 and 80x24, the two sections of
// one long page show as two different sources: the path is cut in the
// middle, keeping its end and the anchor.
func TestSplitSourcesKeepTheAnchor(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		opts, _ := testOptions(nil)
		opts.Retriever = longPageRetriever{}
		opts.Compare = CompareSetup{Name: "hybrid", Setups: []string{"bm25"}, Vs: "bm25",
			Retrieve: func(ctx context.Context, _, question string) (retrieval.Result, error) {
				res, err := longPageRetriever{}.Retrieve(ctx, retrieval.Query{Question: question, TopK: 5})
				res.Hits[0], res.Hits[1] = res.Hits[1], res.Hits[0]
				res.Hits[0].Rank, res.Hits[1].Rank = 1, 2
				return res, err
			}}
		m := newModel(context.Background(), opts, common.DefaultStyles(true, colorprofile.Ascii))
		m = feed(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		m = feed(t, m, runCmd(t, m.Init())...)
		m = ask(t, m, "joints and links")
		m = feed(t, m, keyRunes("V"))
		v := ansi.Strip(m.View().Content)
		for _, anchor := range []string{"arms.md#joint-types", "arms.md#link-frames"} {
			if n := strings.Count(v, anchor); n != 2 {
				t.Errorf("%dx%d: %q shows %d times, want once per side:\n%s", size[0], size[1], anchor, n, v)
			}
		}
		if !strings.Contains(v, "docs/module…") && !strings.Contains(v, "docs/…") && !strings.Contains(v, "docs/mo") {
			t.Errorf("%dx%d: the start of the path is gone:\n%s", size[0], size[1], v)
		}
	}
}
