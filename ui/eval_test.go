package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
	"ragscope/ui/evalview"
	"ragscope/ui/settings"
)

// fakeReport is a fixed run of five cases: two ranking hits, a ranking
// miss, a no-answer case and a selected-text case.
func fakeReport() eval.Report {
	f := func(v float64) *float64 { return &v }
	normal := func(q string, k int) retrieval.Query {
		return retrieval.Query{Question: q, Mode: retrieval.ModeNormal, TopK: k, Threshold: 0.3}
	}
	cases := []eval.CaseResult{
		{Index: 0, ID: "ros2-nodes", Question: "How do nodes talk?", Category: "module-1-ros2", Kind: eval.KindRanking, Mode: retrieval.ModeNormal,
			Query: normal("How do nodes talk?", 4), Status: eval.StatusPass, HitAt1: true, HitAtK: true, FirstRelevantRank: 1, ReciprocalRank: 1, NDCG: 1, Recall: 1,
			TopScore: f(0.9), Latency: eval.Latency{EmbedMS: 4, SearchMS: 8, PostMS: 0.3, TotalMS: 12.3}},
		{Index: 1, ID: "sim-lidar", Question: "How does a simulated LiDAR publish?", Category: "module-2-simulation", Kind: eval.KindRanking, Mode: retrieval.ModeNormal,
			Query: normal("How does a simulated LiDAR publish?", 5), Status: eval.StatusPass, HitAtK: true, FirstRelevantRank: 3, ReciprocalRank: 1.0 / 3, NDCG: 0.5, Recall: 1,
			TopScore: f(0.71), Latency: eval.Latency{TotalMS: 15.1}},
		{Index: 2, ID: "isaac-costmap", Question: "What do costmaps mark?", Category: "module-3-isaac", Kind: eval.KindRanking, Mode: retrieval.ModeNormal,
			Query: normal("What do costmaps mark?", 5), Status: eval.StatusMiss, Reasons: []string{"no relevant hit in the top 5"},
			TopScore: f(0.42), Latency: eval.Latency{TotalMS: 14.2}},
		{Index: 3, ID: "off-topic", Question: "What temperature should I bake bread at?", Kind: eval.KindNoAnswer, Mode: retrieval.ModeNormal,
			Query: normal("What temperature should I bake bread at?", 5), Status: eval.StatusPass, Latency: eval.Latency{TotalMS: 11}},
		{Index: 4, ID: "explain-selection", Question: "Explain this in simpler words.", Category: "module-1-ros2", Kind: eval.KindSelectedText, Mode: retrieval.ModeSelectedText,
			Query:  retrieval.Query{Question: "Explain this in simpler words.", Mode: retrieval.ModeSelectedText, TopK: 5, SelectedText: "Topics carry messages.", SourceDocPath: "docs/module-1-ros2/02-nodes.md"},
			Status: eval.StatusPass, Latency: eval.Latency{TotalMS: 0.1}},
	}
	return eval.Report{
		Schema: eval.Schema, Set: "fake-set", Source: "fake", Cases: cases, Summary: eval.Summarize(cases),
		Passed: false, Reasons: []string{"hit@k 0.67 is below the minimum 0.80 (missed: isaac-costmap)"},
	}
}

// fakeEval streams rep's cases in reverse order (the UI keeps set order)
// and returns it. A path ending in "missing.yaml" fails like a file that
// does not exist; with block, it stops after the first case until ctx ends.
type fakeEval struct {
	rep   eval.Report
	block bool

	mu       sync.Mutex
	paths    []string
	modes    []string
	settings []evalview.Settings
}

func (f *fakeEval) Run(ctx context.Context, path string, s evalview.Settings, progress func(done, total int), onCase func(eval.CaseResult)) (eval.Report, error) {
	f.mu.Lock()
	f.paths = append(f.paths, path)
	f.modes = append(f.modes, s.SearchMode)
	f.settings = append(f.settings, s)
	f.mu.Unlock()
	if strings.HasSuffix(path, "missing.yaml") {
		return eval.Report{}, fmt.Errorf("golden set %s does not exist: check the path", path)
	}
	n := len(f.rep.Cases)
	for i := range f.rep.Cases {
		onCase(f.rep.Cases[n-1-i])
		progress(i+1, n)
		if f.block {
			<-ctx.Done()
			return eval.Report{Cases: f.rep.Cases[n-1:]}, ctx.Err()
		}
	}
	return f.rep, nil
}

// evalModel is a sized model with the fake eval, focus on the results.
func evalModel(t *testing.T, fe *fakeEval) (Model, *fakeRetriever) {
	t.Helper()
	f := &fakeRetriever{}
	opts, _ := testOptions(f)
	opts.Eval = fe.Run
	opts.EvalDefault = "demo golden set"
	m := sized(t, opts, 120, 40)
	return feed(t, m, keyType(tea.KeyEsc)), f
}

// step sends msg without running the commands it returns.
func step(m Model, msg tea.Msg) Model {
	next, _ := m.Update(msg)
	return next.(Model)
}

// startAsync presses enter in the eval path input and runs the eval in the
// background; the test reads its messages with nextEvalMsg.
func startAsync(t *testing.T, m Model) Model {
	t.Helper()
	next, cmd := m.Update(keyType(tea.KeyEnter))
	m = next.(Model)
	b, ok := cmd().(tea.BatchMsg)
	if !ok || len(b) == 0 {
		t.Fatalf("enter did not start an eval: %T", cmd())
	}
	go b[0]() // evalRunCmd comes first
	return m
}

// nextEvalMsg reads the running eval's next message.
func nextEvalMsg(t *testing.T, m Model) tea.Msg {
	t.Helper()
	ch := make(chan tea.Msg, 1)
	go func() { ch <- m.evals.Listen()() }()
	select {
	case msg := <-ch:
		return msg
	case <-time.After(3 * time.Second):
		t.Fatal("no eval message")
	}
	return nil
}

func TestEvalRunListsCasesInSetOrder(t *testing.T) {
	fe := &fakeEval{rep: fakeReport()}
	m, _ := evalModel(t, fe)
	m = feed(t, m, keyRunes("e"))
	if m.Focus() != "eval path" {
		t.Fatalf("focus = %s", m.Focus())
	}
	m = feed(t, m, keyType(tea.KeyEnter))
	if m.EvalRunning() {
		t.Fatal("still running after the report")
	}
	if len(fe.paths) != 1 || fe.paths[0] != "" {
		t.Fatalf("paths = %q (empty means the default set)", fe.paths)
	}
	var ids []string
	for _, c := range m.eval.Cases {
		ids = append(ids, c.ID)
	}
	if got := strings.Join(ids, ","); got != "ros2-nodes,sim-lidar,isaac-costmap,off-topic,explain-selection" {
		t.Fatalf("cases = %s", got)
	}
	if m.Focus() != "eval cases" || m.eval.Report == nil || m.eval.Label != "fake-set" {
		t.Fatalf("focus %s report %v label %q", m.Focus(), m.eval.Report != nil, m.eval.Label)
	}
	if want := "Eval failed: hit@k 0.67 is below the minimum 0.80 (missed: isaac-costmap)"; m.Status() != want || m.statusKind != statusErr {
		t.Errorf("status %q, want %q", m.Status(), want)
	}
	view := screen(m)
	for _, want := range []string{"hit@1 0.33 · hit@k 0.67 · MRR 0.44 · p95 15.1 ms · 4 pass · 1 miss · 0 fail",
		"#3", "miss", "MISS", "no-answer", "selection", "12.3 ms", "FAILED", "missed: isaac-costmap"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q", want)
		}
	}
}

func TestEvalProgressCasesAndStaleMessages(t *testing.T) {
	fe := &fakeEval{rep: fakeReport(), block: true}
	m, _ := evalModel(t, fe)
	m = feed(t, m, keyRunes("e"))
	m = startAsync(t, m)
	if !m.EvalRunning() || !m.evals.Current(1) || !m.eval.Running {
		t.Fatal("eval did not start")
	}
	if !strings.Contains(screen(m), "loading…") {
		t.Fatal("no progress line before the first case")
	}
	// The fake sends the last case, then progress 1/5, then blocks.
	m = step(m, nextEvalMsg(t, m))
	m = step(m, nextEvalMsg(t, m))
	if len(m.eval.Cases) != 1 || m.eval.Done != 1 || m.eval.Total != 5 {
		t.Fatalf("cases %d progress %d/%d", len(m.eval.Cases), m.eval.Done, m.eval.Total)
	}
	if v := screen(m); !strings.Contains(v, "1/5") || !strings.Contains(v, "esc cancels") || !strings.Contains(v, "█") {
		t.Fatalf("no progress bar:\n%s", v)
	}
	// Messages of an older run are dropped.
	c := fakeReport().Cases[0]
	m = step(m, evalview.CaseMsg{Seq: 0, Case: c})
	m = step(m, evalview.ProgressMsg{Seq: 0, Done: 4, Total: 5})
	m = step(m, evalview.DoneMsg{Seq: 0, Err: errors.New("old run failed")})
	if len(m.eval.Cases) != 1 || m.eval.Done != 1 || !m.EvalRunning() || m.eval.ErrText != "" {
		t.Fatalf("a stale message was applied: cases %d done %d running %v err %q", len(m.eval.Cases), m.eval.Done, m.EvalRunning(), m.eval.ErrText)
	}
	// A case of this run lands in set order.
	m = step(m, evalview.CaseMsg{Seq: 1, Case: c})
	if m.eval.Cases[0].ID != "ros2-nodes" || m.eval.Cases[1].ID != "explain-selection" {
		t.Fatalf("order = %s, %s", m.eval.Cases[0].ID, m.eval.Cases[1].ID)
	}
	m.stop()
}

func TestEvalEscCancels(t *testing.T) {
	fe := &fakeEval{rep: fakeReport(), block: true}
	m, _ := evalModel(t, fe)
	m = feed(t, m, keyRunes("e"))
	m = startAsync(t, m)
	m = step(m, nextEvalMsg(t, m))
	m = step(m, nextEvalMsg(t, m))
	if h := ansi.Strip(m.helpView()); !strings.Contains(h, "cancel eval") {
		t.Fatalf("help while running = %q", h)
	}
	m = step(m, keyType(tea.KeyEsc))
	if m.Focus() != "eval cases" || !strings.Contains(m.Status(), "Cancelling") {
		t.Fatalf("esc while running: focus %s status %q", m.Focus(), m.Status())
	}
	msg := nextEvalMsg(t, m)
	done, ok := msg.(evalview.DoneMsg)
	if !ok || !errors.Is(done.Err, context.Canceled) {
		t.Fatalf("after cancel: %#v", msg)
	}
	m = step(m, done)
	if m.EvalRunning() || !strings.Contains(m.Status(), "Eval cancelled after 1 of 5 cases") {
		t.Fatalf("running %v status %q", m.EvalRunning(), m.Status())
	}
	if len(m.eval.Cases) != 1 || m.eval.ErrText != "" {
		t.Fatalf("partial run not kept: %d cases, err %q", len(m.eval.Cases), m.eval.ErrText)
	}
	// Esc when nothing runs goes back to the results.
	m = step(m, keyType(tea.KeyEsc))
	if m.Focus() != "results" {
		t.Fatalf("focus = %s", m.Focus())
	}
}

func TestNewEvalCancelsTheOldOne(t *testing.T) {
	fe := &fakeEval{rep: fakeReport(), block: true}
	m, _ := evalModel(t, fe)
	m = feed(t, m, keyRunes("e"))
	m = startAsync(t, m)
	old := m.evals.Listen() // reads the first run's stream
	m = step(m, nextEvalMsg(t, m))
	next, _ := m.Update(ctrl('r')) // re-run: seq 2
	m = next.(Model)
	if !m.evals.Current(2) || len(m.eval.Cases) != 0 {
		t.Fatalf("not the second run, %d cases", len(m.eval.Cases))
	}
	// The first run's context is cancelled: it ends with its own seq.
	var last tea.Msg
	deadline := time.After(3 * time.Second)
	for {
		ch := make(chan tea.Msg, 1)
		go func() { ch <- old() }()
		select {
		case last = <-ch:
		case <-deadline:
			t.Fatal("the first run was not cancelled")
		}
		if _, ok := last.(evalview.DoneMsg); ok {
			break
		}
	}
	if d := last.(evalview.DoneMsg); d.Seq != 1 || !errors.Is(d.Err, context.Canceled) {
		t.Fatalf("old run ended with %+v", d)
	}
	m = step(m, last)
	if !m.EvalRunning() || strings.Contains(m.Status(), "cancelled") {
		t.Fatalf("the old run's end disturbed the new one: %q", m.Status())
	}
	m.stop()
}

func TestEvalOpenCaseAsQuery(t *testing.T) {
	fe := &fakeEval{rep: fakeReport()}
	m, f := evalModel(t, fe)
	m = feed(t, m, keyRunes("e"), keyType(tea.KeyEnter))
	m = feed(t, m, keyRunes("g"), keyType(tea.KeyEnter))
	if m.Focus() != "results" {
		t.Fatalf("focus = %s", m.Focus())
	}
	q := f.last()
	if q.Question != "How do nodes talk?" || q.TopK != 4 || q.Threshold != 0.3 || q.Mode != retrieval.ModeNormal {
		t.Fatalf("query = %+v", q)
	}
	if !strings.HasPrefix(m.Status(), "case ros2-nodes (pass) · 3 results") {
		t.Fatalf("status = %q", m.Status())
	}
	if got := m.Turns(); len(got) != 1 || got[0] != "How do nodes talk?" {
		t.Fatalf("turns = %q", got)
	}
	if m.query.Value() != "How do nodes talk?" || m.params.TopK != 4 || m.params.Threshold != 0.3 {
		t.Fatalf("input %q params %+v", m.query.Value(), m.params)
	}
	if len(m.results.Items) == 0 || !m.detail.Has || !m.ctxPane.Has {
		t.Fatal("the case's result is not in the results, detail and context panes")
	}
	// Back to the eval: the list and cursor are as they were.
	m = feed(t, m, keyRunes("e"), keyRunes("G"), keyType(tea.KeyEnter))
	q = f.last()
	if q.Mode != retrieval.ModeSelectedText || q.SelectedText != "Topics carry messages." || m.mode != retrieval.ModeSelectedText {
		t.Fatalf("selected-text case opened as %+v (mode %s)", q, m.mode)
	}
	if got := m.Turns(); len(got) != 2 {
		t.Fatalf("turns = %q", got)
	}
}

func TestEvalBadPathShowsErrorAndStaysUsable(t *testing.T) {
	fe := &fakeEval{rep: fakeReport()}
	m, f := evalModel(t, fe)
	m = feed(t, m, keyRunes("e"))
	m = feed(t, m, typeText("sets/missing.yaml")...)
	m = feed(t, m, keyType(tea.KeyEnter))
	if fe.paths[0] != "sets/missing.yaml" {
		t.Fatalf("path = %q", fe.paths[0])
	}
	if m.statusKind != statusErr || !strings.Contains(m.Status(), "Eval failed: golden set sets/missing.yaml does not exist") {
		t.Fatalf("status = %q", m.Status())
	}
	if !strings.Contains(screen(m), "✗ Eval failed") {
		t.Fatal("the pane does not show the error")
	}
	// The keyboard is back in the path input: clear it, run the default set.
	if m.Focus() != "eval path" {
		t.Fatalf("focus after a failed load: %s", m.Focus())
	}
	m = feed(t, m, ctrl('u'), keyType(tea.KeyEnter))
	if m.Focus() != "eval cases" {
		t.Fatalf("focus after a run: %s", m.Focus())
	}
	m = feed(t, m, keyType(tea.KeyTab))
	if m.Focus() != "eval path" {
		t.Fatalf("tab from the cases: %s", m.Focus())
	}
	m = feed(t, m, keyType(tea.KeyTab))
	if m.eval.ErrText != "" || len(m.eval.Cases) != 5 {
		t.Fatalf("retry: err %q, %d cases", m.eval.ErrText, len(m.eval.Cases))
	}
	m = feed(t, m, keyRunes("i"))
	m = ask(t, m, "nodes")
	if f.last().Question != "nodes" || m.statusKind != statusOK {
		t.Fatalf("query after eval: %q", m.Status())
	}
}

func TestEvalKeyIsTextWhileTypingAndHiddenWithoutEval(t *testing.T) {
	fe := &fakeEval{rep: fakeReport()}
	opts, _ := testOptions(&fakeRetriever{})
	opts.Eval = fe.Run
	m := sized(t, opts, 120, 40)
	m = feed(t, m, keyRunes("e"))
	if m.Focus() != "query" || m.query.Value() != "e" {
		t.Fatalf("e while typing: focus %s, query %q", m.Focus(), m.query.Value())
	}
	m = feed(t, m, keyType(tea.KeyEsc))
	if h := ansi.Strip(m.helpView()); !strings.Contains(h, "e eval") {
		t.Fatalf("help = %q", h)
	}
	// In the path input, letters are text too.
	m = feed(t, m, keyRunes("e"), keyRunes("q"), keyRunes("e"))
	if m.Focus() != "eval path" || m.eval.Path() != "qe" {
		t.Fatalf("focus %s path %q", m.Focus(), m.eval.Path())
	}

	opts.Eval = nil
	m = sized(t, opts, 120, 40)
	m = feed(t, m, keyType(tea.KeyEsc), keyRunes("e"))
	if m.Focus() != "results" || strings.Contains(ansi.Strip(m.helpView()), "e eval") {
		t.Fatalf("without Eval: focus %s help %q", m.Focus(), ansi.Strip(m.helpView()))
	}
	m = feed(t, m, keyRunes("?"))
	if v := screen(m); !strings.Contains(v, "Keys") || strings.Contains(v, "eval") {
		t.Fatal("full help offers eval without one")
	}
}

// A batched case's latency is its batch's search, not its own: only the
// cases run alone for the latency sample show one, and p95 is theirs.
func TestEvalLatencyOnlyForCasesRunAlone(t *testing.T) {
	rep := fakeReport()
	rep.LatencySample = &eval.LatencySample{Method: eval.SampleMethod, IDs: []string{"ros2-nodes"}, Cases: 1, P50MS: 12.3, P95MS: 12.3}
	m, _ := evalModel(t, &fakeEval{rep: rep})
	m = feed(t, m, keyRunes("e"))
	m = feed(t, m, keyType(tea.KeyEnter))
	view := screen(m)
	if !strings.Contains(view, "MRR 0.44 · p95 12.3 ms (1 run alone) · 4 pass") {
		t.Errorf("summary lacks the sample's p95:\n%s", view)
	}
	for _, line := range strings.Split(view, "\n") {
		switch {
		case strings.Contains(line, "ros2-nodes") && !strings.Contains(line, "12.3 ms"),
			strings.Contains(line, "sim-lidar") && (!strings.Contains(line, "batched") || strings.Contains(line, "15.1")):
			t.Errorf("row %q", line)
		}
	}
}

// The eval view runs with the explorer's settings: with rerank turned on
// and top_k and threshold changed, `e` runs the set with that rerank model,
// top_k and threshold, and its title says so (issue 25 #10).
func TestEvalRunsWithTheExplorersRerankTopKAndThreshold(t *testing.T) {
	opts, _ := newRerankOptions(t, orderReranker{name: "order-rr", order: everyMove})
	fe := &fakeEval{rep: fakeReport()}
	opts.Eval = fe.Run
	m := sized(t, opts, 200, 40)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyRunes("r")) // rerank on
	m = feed(t, m, keyRunes("s"))
	m = toRow(t, m, settings.RowTopK)
	m = feed(t, m, keyRunes("l"))
	m = toRow(t, m, settings.RowThreshold)
	m = feed(t, m, keyRunes("l"))
	m = feed(t, m, rerunMsg{Seq: m.rerunSeq})
	m = feed(t, m, keyType(tea.KeyEsc))
	if !m.params.Rerank.On {
		t.Fatal("rerank is not on")
	}
	m = feed(t, m, keyRunes("e"))
	m = feed(t, m, keyType(tea.KeyEnter))
	if len(fe.settings) != 1 {
		t.Fatalf("%d runs", len(fe.settings))
	}
	got := fe.settings[0]
	if !got.Rerank.On || got.RerankModel != "order-rr" || got.TopK != m.params.TopK || got.Threshold != m.params.Threshold || got.TopK == retrieval.DefaultTopK || got.Threshold == 0 {
		t.Fatalf("eval ran with %+v; explorer top_k %d threshold %.2f rerank %v", got, m.params.TopK, m.params.Threshold, m.params.Rerank.On)
	}
	want := "top_k " + fmt.Sprint(m.params.TopK) + " · threshold " + fmt.Sprintf("%.2f", m.params.Threshold) + " · rerank order-rr"
	if v := screen(m); !strings.Contains(v, want) {
		t.Errorf("the eval title does not name the settings %q:\n%s", want, v)
	}
}

// Settings a run cannot apply are named in the title, not dropped
// silently.
func TestEvalTitleNamesTheSettingsItIgnores(t *testing.T) {
	fe := &fakeEval{rep: fakeReport()}
	m, _ := evalModel(t, fe)
	m.params.NoDedup = true
	m.params.Filters.Modules = []string{"module-1-ros2"}
	m = feed(t, m, keyRunes("e"))
	m = feed(t, m, keyType(tea.KeyEnter))
	v := screen(m)
	for _, want := range []string{"rerank off", "ignores dedup off, filters"} {
		if !strings.Contains(v, want) {
			t.Errorf("title lacks %q:\n%s", want, v)
		}
	}
}
