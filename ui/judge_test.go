package ui

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/judge"
	"ragscope/ui/common"
	"ragscope/ui/judgerun"
	"ragscope/ui/settings"
	"ragscope/ui/turns"
)

// fakeJudge grades hits by title (Services: an answer out of the schema;
// Nodes: 3; anything else: 1) and remembers what it graded, as the
// judge's cache does: a hit graded before costs no call.
type fakeJudge struct {
	mu     sync.Mutex
	calls  int
	seen   map[string]bool
	reason string
	// block makes Relevance wait for its context; cancelled is closed
	// when it saw it end.
	block     bool
	cancelled chan struct{}
	// faith is the answer check's claims.
	faith []judge.Claim
	asked []retrieval.Answer
}

func newFakeJudge() *fakeJudge {
	return &fakeJudge{seen: map[string]bool{}, reason: "It says how nodes talk.", cancelled: make(chan struct{})}
}

func (f *fakeJudge) relevance(ctx context.Context, q string, hits []retrieval.Hit) ([]judge.Judgement, judge.Stats, error) {
	if f.block {
		<-ctx.Done()
		close(f.cancelled)
		return make([]judge.Judgement, len(hits)), judge.Stats{}, ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]judge.Judgement, len(hits))
	var st judge.Stats
	for i, h := range hits {
		k := q + "|" + h.Chunk.ID
		cached := f.seen[k]
		if cached {
			st.Cached++
		} else {
			f.calls++
			st.Calls++
		}
		f.seen[k] = true
		switch {
		case strings.Contains(h.Chunk.Title, "Services"):
			out[i] = judge.Judgement{Status: judge.Invalid, Detail: "the answer has no grade: {\"mark\": 3}"}
			st.NotJudged++
		case strings.Contains(h.Chunk.Title, "Nodes"):
			out[i] = judge.Judgement{Grade: retrieval.IntPtr(3), Reason: f.reason, Status: judge.Judged, Cached: cached}
		default:
			out[i] = judge.Judgement{Grade: retrieval.IntPtr(1), Reason: "Related, but about actions.", Status: judge.Judged, Cached: cached}
		}
	}
	return out, st, nil
}

func (f *fakeJudge) faithfulness(_ context.Context, _ retrieval.Result, ans retrieval.Answer) (judge.Faithfulness, judge.Stats, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, ans)
	fs := judge.Faithfulness{Status: judge.Judged, Claims: f.faith}
	for _, c := range f.faith {
		if c.Supported != nil {
			fs.Judged++
			if *c.Supported {
				fs.Supported++
			}
		}
	}
	if fs.Judged > 0 {
		s := float64(fs.Supported) / float64(fs.Judged)
		fs.Share = &s
	}
	return fs, judge.Stats{Calls: 1}, nil
}

func (f *fakeJudge) setup() JudgeSetup {
	return JudgeSetup{Model: "fakeai/judge-1", Relevance: f.relevance, Faithfulness: f.faithfulness}
}

func (f *fakeJudge) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// judgeModel is a 120x40 explorer with f as its judge, showing the
// answer of "How do nodes talk?" when g is set.
func judgeModel(t *testing.T, f *fakeJudge, g retrieval.Generator) Model {
	t.Helper()
	opts := answerOpts(g)
	if g == nil {
		opts.Generator = nil
	}
	opts.Judge = f.setup()
	return sized(t, opts, 120, 40)
}

// rowOf is the screen line of the results row titled title.
func rowOf(t *testing.T, scr, title string) string {
	t.Helper()
	for _, l := range strings.Split(scr, "\n") {
		if strings.Contains(l, title) && strings.Contains(l, "0.") {
			return l
		}
	}
	t.Fatalf("no row %q:\n%s", title, scr)
	return ""
}

func TestJudgeGradesTheHitsOnShow(t *testing.T) {
	f := newFakeJudge()
	m := judgeModel(t, f, nil)
	m = ask(t, m, "How do nodes talk?")
	if strings.Contains(screen(m), "g3") || f.callCount() != 0 {
		t.Fatal("graded before J")
	}
	m = feed(t, m, keyRunes("J"))
	scr := screen(m)
	if f.callCount() != 3 {
		t.Fatalf("%d judge calls, want 3", f.callCount())
	}
	for title, cell := range map[string]string{"Nodes and Topics": "g3", "Services": "g?", "Actions": "g1"} {
		if row := rowOf(t, scr, title); !strings.Contains(row, cell+" "+title) {
			t.Errorf("row %q lacks the grade %s", row, cell)
		}
	}
	if title := m.results.Title(); !strings.HasSuffix(title, " · g = judge grade 0-3") {
		t.Errorf("the results title does not say what g is: %q", title)
	}
	// The detail pane gives the grade's meaning and the reason.
	if !strings.Contains(scr, "judge       3 answers: It says how nodes talk.") {
		t.Errorf("no reason in the detail:\n%s", scr)
	}
	for _, want := range []string{"Judged 3 hits with fakeai/judge-1", "judged precision@3 0.50", "3 judge calls", "1 not judged"} {
		if !strings.Contains(m.Status(), want) {
			t.Errorf("status %q lacks %q", m.Status(), want)
		}
	}
	// A hit the judge could not grade says why.
	m = feed(t, m, keyRunes("j"))
	if scr := screen(m); !strings.Contains(scr, "judge       not judged (invalid): the answer has no grade") {
		t.Errorf("no status for the hit not judged:\n%s", scr)
	}
}

func TestJudgeStaysWithItsTurnAndRerunsCostOnlyNewHits(t *testing.T) {
	f := newFakeJudge()
	opts := answerOpts(nil)
	opts.Generator = nil
	opts.Judge = f.setup()
	opts.Defaults.Threshold = 0.25
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, keyRunes("J"))
	if f.callCount() != 4 {
		t.Fatalf("%d judge calls for 4 hits:\n%s", f.callCount(), screen(m))
	}
	// Another question: not judged, no column.
	m = feed(t, m, keyRunes("i"))
	m = ask(t, m, "What is a launch file?")
	if scr := screen(m); strings.Contains(scr, "g3") || strings.Contains(scr, "g = judge") {
		t.Fatalf("the new question shows grades it was never given:\n%s", scr)
	}
	if f.callCount() != 4 {
		t.Fatalf("a new question was judged unasked: %d calls", f.callCount())
	}
	// Bringing the first turn back brings its grades back.
	m = feed(t, m, keyRunes("t"), keyRunes("k"), keyType(tea.KeyEnter))
	if row := rowOf(t, screen(m), "Nodes and Topics"); !strings.Contains(row, "g3") {
		t.Fatalf("the judged turn lost its grades: %q\n%s", row, screen(m))
	}
	// The turn comparison gives each turn's judged precision.
	if l := turns.TurnLine(m.turns.Current(), ""); !strings.Contains(l, " · 4 hits · judged p 0.33 · best") {
		t.Errorf("the turn list does not give the judged precision: %q", l)
	}

	// A re-run of the judged question with other settings is judged
	// again; only its new hit costs a call.
	m = feed(t, m, keyRunes("J"))
	if f.callCount() != 4 || !strings.Contains(m.Status(), "0 judge calls") {
		t.Fatalf("judging a judged turn again made calls: %d, %q", f.callCount(), m.Status())
	}
	m = feed(t, m, keyRunes("s"))
	m = toRow(t, m, settings.RowTopK)
	m = feed(t, m, keyRunes("l"))
	m = feed(t, m, rerunMsg{Seq: m.rerunSeq})
	if len(m.turns.Turns) != 3 || m.turns.Current().Judge == nil {
		t.Fatalf("the re-run is not judged: %d turns", len(m.turns.Turns))
	}
	if got := f.callCount() - 4; got != 1 {
		t.Errorf("the re-run made %d judge calls, want 1 (its new hit)", got)
	}
	if !strings.Contains(m.Status(), "1 judge calls") || !strings.Contains(m.Status(), "4 cached") {
		t.Errorf("status %q", m.Status())
	}
	if row := rowOf(t, screen(m), "Nodes and Topics"); !strings.Contains(row, "g3") {
		t.Errorf("the re-run is not judged: %q", row)
	}
}

func TestJudgeMarksUnsupportedClaims(t *testing.T) {
	f := newFakeJudge()
	yes, no := true, false
	f.faith = []judge.Claim{
		{Text: "Nodes exchange messages over topics.", Supported: &yes, Sources: []int{1}},
		{Text: "Topics are encrypted by default.", Supported: &no, Sources: []int{2}, Reason: "No source mentions encryption."},
		{Text: "Nodes are cheap.", Sources: []int{}},
	}
	g := newFakeGen("Nodes exchange messages over topics [Source 1]. ", "Topics are encrypted by default [Source 2].")
	m := judgeModel(t, f, g)
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, keyRunes("a"))
	m = feed(t, m, keyRunes("J"))
	if len(f.asked) != 1 || !strings.Contains(f.asked[0].Text, "encrypted") {
		t.Fatalf("the answer was not checked: %+v", f.asked)
	}
	r2 := sourceRank(t, m, 2)
	scr := screen(m)
	for _, want := range []string{
		"Judge · 1 of 2 claims supported (50%)",
		"✗ unsupported: Topics are encrypted by default. [" + strconv.Itoa(r2) + "]",
		"judge: No source mentions encryption.",
		"1 claim without a verdict",
	} {
		if !strings.Contains(scr, want) {
			t.Errorf("the Answer pane lacks %q:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "unsupported: Nodes exchange") {
		t.Errorf("a supported claim is marked unsupported:\n%s", scr)
	}
	if !strings.Contains(m.Status(), "1 of 2 claims supported") {
		t.Errorf("status %q", m.Status())
	}
	// A new answer starts unchecked.
	m = feed(t, m, keyRunes("a"))
	if strings.Contains(screen(m), "Judge ·") {
		t.Errorf("a new answer shows the old one's check:\n%s", screen(m))
	}
}

func TestJudgeWithoutChatModelSaysHowToSetOne(t *testing.T) {
	opts := answerOpts(nil)
	opts.Generator = nil
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, keyRunes("J"))
	if !strings.Contains(m.Status(), "The judge needs a chat model. set CHAT_KEY_FOR_TESTS to enable answers") {
		t.Fatalf("status %q", m.Status())
	}
	if strings.Contains(screen(m), "g = judge") {
		t.Fatal("grades without a judge")
	}
	m = feed(t, m, keyRunes("?"))
	if !regexp.MustCompile(`J +judge: no chat model`).MatchString(screen(m)) {
		t.Fatalf("the keys do not say the judge is unavailable:\n%s", screen(m))
	}
}

func TestJudgeCancelledWithEsc(t *testing.T) {
	f := newFakeJudge()
	f.block = true
	m := judgeModel(t, f, nil)
	m = ask(t, m, "How do nodes talk?")
	next, cmd := m.Update(keyRunes("J"))
	m = next.(Model)
	if !strings.Contains(m.Status(), "Judging 3 hits with fakeai/judge-1… esc cancels.") || !strings.Contains(screen(m), "judging…") {
		t.Fatalf("status %q\n%s", m.Status(), screen(m))
	}
	if row := rowOf(t, screen(m), "Nodes and Topics"); !strings.Contains(row, "g…") {
		t.Fatalf("row while judging: %q", row)
	}
	done := make(chan tea.Msg, 1)
	go func() {
		for _, msg := range runCmdWait(cmd) {
			if _, ok := msg.(judgerun.Msg); ok {
				done <- msg
			}
		}
	}()
	m = feed(t, m, keyType(tea.KeyEscape))
	<-f.cancelled
	m = feed(t, m, <-done)
	if !strings.HasPrefix(m.Status(), "Judge cancelled") || m.Focus() != "results" {
		t.Fatalf("status %q, focus %s", m.Status(), m.Focus())
	}
	if scr := screen(m); strings.Contains(scr, "g…") || strings.Contains(scr, "judging") {
		t.Fatalf("still judging after esc:\n%s", scr)
	}
}

// runCmdWait runs cmd to the end, batches included, and returns its
// messages.
func runCmdWait(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		var out []tea.Msg
		var wg sync.WaitGroup
		var mu sync.Mutex
		for _, c := range msg {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got := runCmdWait(c)
				mu.Lock()
				out = append(out, got...)
				mu.Unlock()
			}()
		}
		wg.Wait()
		return out
	case nil:
		return nil
	default:
		return []tea.Msg{msg}
	}
}

func TestJudgeTextIsSanitised(t *testing.T) {
	f := newFakeJudge()
	f.reason = "Nodes" + evil + " talk."
	no := false
	f.faith = []judge.Claim{{Text: "Claim" + evil, Supported: &no, Reason: "why" + evil}}
	m := judgeModel(t, f, newFakeGen("Nodes talk [Source 1]."))
	m = ask(t, m, "How do nodes talk?")
	views := map[string]string{}
	m = feed(t, m, keyRunes("J"))
	views["results+detail"] = m.View().Content
	m = feed(t, m, keyRunes("a"))
	m = feed(t, m, keyRunes("J"))
	views["answer"] = m.View().Content
	views["status"] = m.Status()
	for name, v := range views {
		v = sgr.ReplaceAllString(v, "")
		if strings.ContainsAny(v, "\x1b\x07\u009b\u202e") || !utf8.ValidString(v) {
			t.Errorf("%s: a control sequence from the judge reached the screen:\n%q", name, v)
		}
	}
	if !strings.Contains(screen(m), "unsupported: Claim") {
		t.Errorf("the claim is not shown:\n%s", screen(m))
	}
}

// Without colours the grades and the unsupported claims still read: the
// column and the mark are text.
func TestJudgeReadsWithoutColour(t *testing.T) {
	f := newFakeJudge()
	no := false
	f.faith = []judge.Claim{{Text: "Topics are encrypted.", Supported: &no, Sources: []int{1}}}
	opts := answerOpts(newFakeGen("Topics are encrypted [Source 1]."))
	opts.Judge = f.setup()
	m := newModel(t.Context(), opts, common.DefaultStyles(true, colorprofile.Ascii))
	m = feed(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, keyRunes("a"))
	m = feed(t, m, keyRunes("J"))
	raw := m.View().Content
	if sgr.ReplaceAllString(raw, "") != screen(m) {
		t.Fatal("escape sequences other than SGR on an ASCII screen")
	}
	plain := screen(m)
	for _, want := range []string{"g3 Nodes and Topics", "g? Services", "✗ unsupported: Topics are encrypted."} {
		if !strings.Contains(plain, want) {
			t.Errorf("no %q without colours:\n%s", want, plain)
		}
	}
}

// BenchmarkView100ResultsJudged is BenchmarkView100Results200x60 with
// every hit graded: the grade column's cost.
func BenchmarkView100ResultsJudged(b *testing.B) {
	m := benchModel(b)
	t := m.turns.Current()
	js := &common.JudgeState{ByID: map[string]*judge.Judgement{}}
	for i := range t.Result.Hits {
		js.Grades = append(js.Grades, judge.Judgement{Grade: retrieval.IntPtr(i % 4), Reason: "r", Status: judge.Judged})
	}
	for i := range js.Grades {
		js.ByID[t.Result.Hits[i].Chunk.ID] = &js.Grades[i]
	}
	t.Judge = js
	m.showJudge(t)
	if !strings.Contains(screen(m), "g3 ") {
		b.Fatal("no grades")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = m.View()
	}
}
