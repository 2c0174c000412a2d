package ui

import (
	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/ui/common"
	"ragscope/ui/results"
)

// ExpectSetup offers "Why not this chunk?": the expected-source picker
// (key w) and the ANN check (key W) (results.ExpectSetup). Zero hides
// both.
type ExpectSetup = results.ExpectSetup

// openExpect opens the expected-source picker over the results for the
// question on show.
func (m *Model) openExpect() tea.Cmd {
	t := m.turns.Current()
	switch {
	case m.opts.Expect.Diagnose == nil:
		m.setStatus(statusErr, "This backend cannot say where an expected source went.")
		return nil
	case t == nil:
		m.setStatus(statusErr, "Ask a question first, then pick the source you expected (w).")
		return nil
	case t.Query.Mode == retrieval.ModeSelectedText:
		m.setStatus(statusErr, "Selected text searches nothing: an expected source explains a search.")
		return nil
	}
	m.pickFrom = m.focus
	m.results.Pick = results.NewExpectPicker(m.keys, m.st)
	var cmd tea.Cmd
	switch {
	case m.sources != nil:
		m.results.Pick.SetSources(m.sources.list, m.sources.err)
	case m.opts.Expect.Sources == nil:
		m.results.Pick.SetSources(nil, nil)
	default:
		ctx, cancel := common.WithTimeout(m.base, m.opts.Timeout)
		cmd = results.SourcesCmd(ctx, cancel, m.opts.Expect.Sources)
	}
	m.setStatus(statusInfo, "Pick the page or section you expected for this question; its rank, score and what cut it show in the results.")
	return tea.Batch(cmd, m.setFocus(focusResults))
}

// expectSources are the picker's sources, listed once.
type expectSources struct {
	list []results.DocSource
	err  error
}

// updateSources hands the sources to the picker and keeps them.
func (m *Model) updateSources(msg results.SourcesMsg) {
	if msg.Err == nil {
		m.sources = &expectSources{list: msg.Sources}
	}
	if m.results.Pick != nil {
		m.results.Pick.SetSources(msg.Sources, msg.Err)
	}
}

// updatePicker gives a key or paste to the open picker.
func (m *Model) updatePicker(msg tea.Msg) tea.Cmd {
	pick, done, cmd := m.results.Pick.Update(msg)
	if done {
		// Closed without a pick: the keyboard goes back where it was
		// (the results, the detail…), never on to the Ask box.
		m.results.Pick = nil
		from := m.pickFrom
		if from == "" || from == focusQuery || from == focusSelText {
			from = focusResults
		}
		return tea.Batch(cmd, m.setFocus(from))
	}
	if pick == "" {
		return cmd
	}
	if _, err := retrieval.ParseExpectRef(pick); err != nil {
		m.setStatus(statusErr, "Not a source: give a doc path (docs/module-1/ros2.md), a citation URL or a point id.")
		return cmd
	}
	m.results.Pick = nil
	m.syncBindings()
	t := m.turns.Current()
	if t == nil {
		return cmd
	}
	refs := results.ToggleExpected(t.Expect, pick)
	m.expect, m.expectQuestion = refs, t.Query.Question
	t.Expect = refs
	if len(refs) == 0 {
		if t.Diag != nil {
			t.Diag.Expected = nil
		}
		m.results.SetExpected(nil)
		m.setStatus(statusInfo, "No expected source for this question.")
		return tea.Batch(cmd, m.syncDetail())
	}
	m.setStatus(statusInfo, "Finding where the expected "+present.Plural(len(refs), "source", "sources")+" went…")
	return tea.Batch(cmd, m.diagnose(t, false))
}

// diagnose runs the diagnosis of t (its expected sources; with ann the
// ANN check too).
func (m *Model) diagnose(t *common.Turn, ann bool) tea.Cmd {
	ctx, cancel := common.WithTimeout(m.base, m.opts.Timeout)
	model := ""
	if t.Query.Rerank.On {
		model = m.rerankModel
	}
	m.diagSeq++
	t.DiagSeq = m.diagSeq
	return m.opts.Expect.DiagnoseCmd(ctx, cancel, t.N, m.diagSeq, t.Query, model, t.Expect, ann)
}

// runANNCheck runs the ANN check for the question on show.
func (m *Model) runANNCheck() tea.Cmd {
	t := m.turns.Current()
	switch {
	case m.opts.Expect.Diagnose == nil || !m.opts.Expect.ANN:
		m.setStatus(statusErr, "The ANN check compares Qdrant's approximate search with an exact one: this backend searches exactly.")
		return nil
	case t == nil:
		m.setStatus(statusErr, "Ask a question first, then W checks its approximate search against an exact one.")
		return nil
	case t.Query.Mode == retrieval.ModeSelectedText:
		m.setStatus(statusErr, "Selected text searches nothing: the ANN check explains a search.")
		return nil
	}
	m.setStatus(statusInfo, "Searching exactly to check the approximate search…")
	return m.diagnose(t, true)
}

// updateDiag records a diagnosis on its turn and shows it when the turn
// is on show.
func (m *Model) updateDiag(msg results.DiagMsg) tea.Cmd {
	t := m.turns.ByN(msg.N)
	if t == nil || msg.Seq != t.DiagSeq {
		return nil // the turn is gone, or a later diagnosis of it runs
	}
	if msg.Err != nil {
		m.setStatus(statusErr, common.ErrorText(msg.Err))
		return nil
	}
	d := msg.Diag
	if !msg.ANN && t.Diag != nil && d.ANN == nil {
		d.ANN = t.Diag.ANN
	}
	t.Diag = &d
	if m.turns.Current() != t {
		return nil
	}
	m.results.SetExpected(d.Expected)
	var sources []results.DocSource
	if m.sources != nil {
		sources = m.sources.list
	}
	kind, text, bad := statusOK, "", false
	if text, bad = results.DiagStatus(&d, msg.ANN, sources); bad {
		kind = statusErr
	}
	m.setStatus(kind, text)
	return m.syncDetail()
}
