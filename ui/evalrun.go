package ui

import (
	"context"
	"errors"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
	"ragscope/termsafe"
	"ragscope/ui/common"
	"ragscope/ui/evalview"
)

// EvalFunc runs the golden set at path ("" is the default set) with the
// explorer's settings s, and reports each finished case to onCase, then
// progress to progress; both are never called concurrently. It returns
// the report, or the report so far and ctx's error when ctx ends first.
type EvalFunc func(ctx context.Context, path string, s evalview.Settings, progress func(done, total int), onCase func(eval.CaseResult)) (eval.Report, error)

// evalSettings are the settings the explorer searches with now.
func (m *Model) evalSettings() evalview.Settings {
	s := evalview.Settings{SearchMode: m.searchModeFor(retrieval.ModeNormal), TopK: m.params.TopK, Threshold: m.params.Threshold}
	if r := m.rerankFor(retrieval.ModeNormal); r.On {
		s.Rerank, s.RerankModel = r, m.rerankModel
	}
	return s
}

// evalIgnored names the explorer settings a run does not apply: each
// golden case brings its own filters, and runs are deduplicated.
func (m *Model) evalIgnored() []string {
	var out []string
	if m.params.NoDedup {
		out = append(out, "dedup off")
	}
	if !m.params.Filters.IsEmpty() {
		out = append(out, "filters (cases set their own)")
	}
	return out
}

// evalProgressMsg reports how many cases of a run have finished.
type evalProgressMsg struct {
	Seq   int
	Done  int
	Total int
}

// evalCaseMsg carries one finished case of a run.
type evalCaseMsg struct {
	Seq  int
	Case eval.CaseResult
}

// evalDoneMsg ends a run: the report, or an error (with the report so far
// when the run was cancelled).
type evalDoneMsg struct {
	Seq    int
	Report eval.Report
	Err    error
}

// evalStream carries a run's progress and cases to Update in order. The
// run closes events after putting its final message in done, so a reader
// sees every event before the end.
type evalStream struct {
	events chan tea.Msg
	done   chan evalDoneMsg
}

// evalBuffer lets a run get ahead of the screen without waiting on it.
const evalBuffer = 256

func newEvalStream() *evalStream {
	return &evalStream{events: make(chan tea.Msg, evalBuffer), done: make(chan evalDoneMsg, 1)}
}

// evalRunCmd runs the set at path under ctx, streaming its progress to s.
// It captures everything it needs and never touches the model. When ctx
// ends (cancelled, or replaced by a newer run) it stops sending, so an
// abandoned stream never blocks it.
func evalRunCmd(ctx context.Context, run EvalFunc, seq int, path string, set evalview.Settings, s *evalStream) tea.Cmd {
	return func() tea.Msg {
		send := func(msg tea.Msg) {
			select {
			case s.events <- msg:
			case <-ctx.Done():
			}
		}
		rep, err := run(ctx, path, set,
			func(done, total int) { send(evalProgressMsg{Seq: seq, Done: done, Total: total}) },
			func(c eval.CaseResult) { send(evalCaseMsg{Seq: seq, Case: c}) },
		)
		s.done <- evalDoneMsg{Seq: seq, Report: rep, Err: err}
		close(s.events)
		return nil
	}
}

// evalRun is the lifecycle of golden-set runs: one at a time, each under
// its own context with the next sequence number; messages of an older run
// are dropped by the root (Current).
type evalRun struct {
	fn      EvalFunc
	base    context.Context
	seq     int
	running bool
	cancel  context.CancelFunc
	stream  *evalStream
}

// Start cancels the run in flight and starts the set at path, searched
// with set: run does the work, listen brings its first message.
func (r *evalRun) Start(path string, set evalview.Settings) (run, listen tea.Cmd) {
	r.Cancel()
	r.seq++
	ctx, cancel := context.WithCancel(r.base)
	r.cancel, r.running, r.stream = cancel, true, newEvalStream()
	return evalRunCmd(ctx, r.fn, r.seq, path, set, r.stream), evalListenCmd(r.stream)
}

// Cancel stops the run in flight; its last message says how far it got.
func (r *evalRun) Cancel() {
	if r.cancel != nil {
		r.cancel()
	}
}

// Current reports whether seq is the latest run's.
func (r *evalRun) Current(seq int) bool { return seq == r.seq }

// Listen waits for the run's next message.
func (r *evalRun) Listen() tea.Cmd { return evalListenCmd(r.stream) }

// Done ends the run after its last message.
func (r *evalRun) Done() {
	r.running, r.stream = false, nil
	if r.cancel != nil {
		r.cancel()
		r.cancel = nil
	}
}

// evalListenCmd waits for a run's next message; Update asks again after
// each one until the run is done.
func evalListenCmd(s *evalStream) tea.Cmd {
	return func() tea.Msg {
		if msg, ok := <-s.events; ok {
			return msg
		}
		return <-s.done
	}
}

// evalErrorText is the message for a failed run: classified backend
// errors say what to do; others (a bad file) are shown as they are.
func evalErrorText(err error) string {
	for _, class := range []error{retrieval.ErrConfig, retrieval.ErrAuth, retrieval.ErrNotFound, retrieval.ErrUnavailable, context.DeadlineExceeded} {
		if errors.Is(err, class) {
			return "Eval failed: " + common.ErrorText(err)
		}
	}
	return "Eval failed: " + err.Error()
}

// openEval shows the eval view: the path input before the first run, the
// case list after.
func (m *Model) openEval() tea.Cmd {
	if m.opts.Eval == nil {
		return nil
	}
	if len(m.eval.Cases) == 0 && !m.eval.Running {
		return m.setFocus(focusEvalPath)
	}
	return m.setFocus(focusEvalCases)
}

// startEval cancels a run in flight and starts the set in the path input
// with the next sequence number under its own context.
func (m *Model) startEval() tea.Cmd {
	if m.opts.Eval == nil {
		return nil
	}
	path := m.eval.Path()
	label := path
	if label == "" {
		label = m.opts.EvalDefault
		if label == "" {
			label = "default set"
		}
	}
	// The set is searched the way the explorer searches now (local search
	// mode, top_k, threshold, rerank): after switching the local search
	// to bm25 or turning rerank on, the eval scores that.
	set := m.evalSettings()
	spin := !m.running && !m.evals.running
	m.eval.Start(label, set, m.evalIgnored())
	m.eval.RunPath = path
	if set.SearchMode != "" {
		label += " (" + set.SearchMode + ")"
	}
	m.setStatus(statusInfo, "Evaluating "+label+" with "+set.Text()+"…")
	run, listen := m.evals.Start(path, set)
	cmds := []tea.Cmd{run, listen, m.setFocus(focusEvalCases)}
	if spin {
		cmds = append(cmds, m.spinner.Tick)
	}
	return tea.Batch(cmds...)
}

// cancelEval stops the run in flight; its reply says how far it got.
func (m *Model) cancelEval() {
	m.evals.Cancel()
	m.setStatus(statusInfo, "Cancelling the eval…")
}

// updateEval handles a run's messages, dropping those of an older run.
func (m Model) updateEval(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case evalProgressMsg:
		if !m.evals.Current(msg.Seq) {
			return m, nil
		}
		m.eval.Progress(msg.Done, msg.Total)
		if !m.running {
			m.setStatus(statusInfo, "Evaluating "+m.eval.Label+"… "+strconv.Itoa(msg.Done)+"/"+strconv.Itoa(msg.Total))
		}
	case evalCaseMsg:
		if !m.evals.Current(msg.Seq) {
			return m, nil
		}
		m.eval.AddCase(msg.Case)
	case evalDoneMsg:
		if !m.evals.Current(msg.Seq) {
			return m, nil
		}
		return m.finishEval(msg)
	}
	return m, m.evals.Listen()
}

// finishEval shows the end of a run. A run that failed before any case
// gives the keyboard back to the path input, to fix the path.
func (m Model) finishEval(msg evalDoneMsg) (Model, tea.Cmd) {
	m.evals.Done()
	rep := msg.Report
	switch {
	case msg.Err != nil && errors.Is(msg.Err, context.Canceled):
		m.eval.Finish(nil, "")
		m.setStatus(statusInfo, "Eval cancelled after "+strconv.Itoa(len(m.eval.Cases))+" of "+strconv.Itoa(m.eval.Total)+" cases.")
	case msg.Err != nil:
		text := evalErrorText(msg.Err)
		m.eval.Finish(nil, text)
		m.setStatus(statusErr, text)
		if m.focus == focusEvalCases && len(m.eval.Cases) == 0 {
			return m, m.setFocus(focusEvalPath)
		}
	case rep.Passed:
		m.eval.Finish(&rep, "")
		m.setStatus(passedStatus(rep))
	default:
		m.eval.Finish(&rep, "")
		m.setStatus(statusErr, "Eval failed: "+strings.Join(rep.Reasons, "; "))
	}
	return m, nil
}

// passedStatus is the status line of a run that passed: unlabelled cases
// neither pass nor fail, so a set of them only did not "pass".
func passedStatus(rep eval.Report) (statusKind, string) {
	const open = " Enter on a case opens it as a query."
	n := len(rep.Cases)
	u := eval.UnlabelledRan(rep.Cases)
	switch {
	case n > 0 && u == n:
		return statusInfo, "Eval ran " + present.Count(n, "unlabelled case", "unlabelled cases") + ": no labels, so nothing to pass or fail." + open
	case u > 0:
		return statusOK, "Eval passed: " + present.Count(n-u, "labelled case", "labelled cases") + " (" + strconv.Itoa(u) + " unlabelled ran without a check)." + open
	}
	return statusOK, "Eval passed: " + present.Count(n, "case", "cases") + "." + open
}

// openCase runs the case under the cursor as a normal query turn, with
// the case's own settings so the turn shows what the eval measured.
func (m *Model) openCase() tea.Cmd {
	c, ok := m.eval.Selected()
	if !ok {
		return nil
	}
	q := c.Query
	if q.Question == "" {
		q.Question = c.Question
	}
	q.TopK = retrieval.TopKOrDefault(q.TopK)
	m.restoreInputs(q)
	q.Mode = m.mode
	focus := m.setFocus(focusResults)
	run := m.runQuery(q)
	m.caseSeq, m.caseLabel = m.seq, "case "+termsafe.Line(c.ID)+" ("+c.Status.String()+")"
	expect := c.Expect
	m.caseExpect, m.caseFile = &expect, m.eval.RunPath
	m.setStatus(statusInfo, "Case "+termsafe.Line(c.ID)+": searching with its settings (top_k "+strconv.Itoa(q.TopK)+
		", threshold "+present.Score(q.Threshold, 2)+")…")
	return tea.Batch(focus, run)
}
