package ui

import (
	"strconv"

	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/termsafe"
	"ragscope/ui/evalview"
	"ragscope/ui/goldencase"
)

// EvalFunc runs a golden set for the eval view (evalview.Func).
type EvalFunc = evalview.Func

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
	spin := !m.running && !m.evals.Running()
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
	case evalview.ProgressMsg:
		if !m.evals.Current(msg.Seq) {
			return m, nil
		}
		m.eval.Progress(msg.Done, msg.Total)
		if !m.running {
			m.setStatus(statusInfo, "Evaluating "+m.eval.Label+"… "+strconv.Itoa(msg.Done)+"/"+strconv.Itoa(msg.Total))
		}
	case evalview.CaseMsg:
		if !m.evals.Current(msg.Seq) {
			return m, nil
		}
		m.eval.AddCase(msg.Case)
	case evalview.DoneMsg:
		if !m.evals.Current(msg.Seq) {
			return m, nil
		}
		// A run that failed before any case gives the keyboard back to
		// the path input, to fix the path.
		m.evals.Done()
		kind, text := m.eval.End(msg)
		m.setStatus(kind, text)
		if m.eval.ErrText != "" && m.focus == focusEvalCases && len(m.eval.Cases) == 0 {
			return m, m.setFocus(focusEvalPath)
		}
		return m, nil
	}
	return m, m.evals.Listen()
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
	expect := c.Expect
	m.opened = goldencase.Opened{Seq: m.seq, Label: "case " + termsafe.Line(c.ID) + " (" + c.Status.String() + ")", Expect: &expect, File: m.eval.RunPath}
	m.setStatus(statusInfo, "Case "+termsafe.Line(c.ID)+": searching with its settings (top_k "+strconv.Itoa(q.TopK)+
		", threshold "+present.Score(q.Threshold, 2)+")…")
	return tea.Batch(focus, run)
}
