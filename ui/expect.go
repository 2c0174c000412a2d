package ui

import (
	"context"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/ui/common"
	"ragscope/ui/results"
)

// ExpectSetup offers "Why not this chunk?" in the explorer: a picker of
// expected sources (key w) whose rank, score and cut show in the results,
// and the ANN check (key W, Qdrant). Zero hides both.
type ExpectSetup struct {
	// Sources lists the collection's doc paths and sections for the
	// picker; nil leaves only typing or pasting a ref.
	Sources func(ctx context.Context) ([]results.DocSource, error)
	// Diagnose says where each of refs went for q (the query on show,
	// rerankModel naming the rerank model when q reranks), and with
	// annCheck compares its search with an exact one: the diagnosis
	// `query --expect --ann-check` prints (retrieval.Pipeline.Diagnose).
	Diagnose func(ctx context.Context, q retrieval.Query, rerankModel string, refs []retrieval.ExpectRef, annCheck bool) (retrieval.Diagnosis, error)
	// ANN offers the ANN check (an approximate store: Qdrant).
	ANN bool
}

// maxExpected bounds the expected sources of a question.
const maxExpected = 8

// sourcesMsg carries the picker's sources.
type sourcesMsg struct {
	Sources []results.DocSource
	Err     error
}

// diagMsg carries the diagnosis of turn N.
type diagMsg struct {
	N    int
	Seq  int
	ANN  bool
	Diag retrieval.Diagnosis
	Err  error
}

func sourcesCmd(ctx context.Context, fn func(context.Context) ([]results.DocSource, error)) tea.Cmd {
	return func() tea.Msg {
		src, err := fn(ctx)
		return sourcesMsg{Sources: src, Err: err}
	}
}

func diagCmd(ctx context.Context, cancel context.CancelFunc, fn func(context.Context, retrieval.Query, string, []retrieval.ExpectRef, bool) (retrieval.Diagnosis, error), n, seq int, q retrieval.Query, model string, refs []string, ann bool) tea.Cmd {
	return func() tea.Msg {
		defer cancel()
		parsed := make([]retrieval.ExpectRef, 0, len(refs))
		for _, r := range refs {
			if p, err := retrieval.ParseExpectRef(r); err == nil {
				parsed = append(parsed, p)
			}
		}
		d, err := fn(ctx, q, model, parsed, ann)
		return diagMsg{N: n, Seq: seq, ANN: ann, Diag: d, Err: err}
	}
}

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
		fn := m.opts.Expect.Sources
		cmd = sourcesCmd(ctx, func(ctx context.Context) ([]results.DocSource, error) {
			defer cancel()
			return fn(ctx)
		})
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
func (m *Model) updateSources(msg sourcesMsg) {
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
	refs := slices.Clone(t.Expect)
	if i := slices.Index(refs, pick); i >= 0 {
		refs = slices.Delete(refs, i, i+1)
	} else {
		if len(refs) >= maxExpected {
			refs = refs[1:]
		}
		refs = append(refs, pick)
	}
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
	return diagCmd(ctx, cancel, m.opts.Expect.Diagnose, t.N, m.diagSeq, t.Query, model, slices.Clone(t.Expect), ann)
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
func (m *Model) updateDiag(msg diagMsg) tea.Cmd {
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
	m.setStatus(m.diagStatus(t, msg.ANN))
	return m.syncDetail()
}

// diagStatus is the status line after a diagnosis: the ANN check when it
// ran, else where each expected source went.
func (m *Model) diagStatus(t *common.Turn, ann bool) (statusKind, string) {
	d := t.Diag
	if ann && d.ANN == nil && len(d.Notes) > 0 {
		// The server refused exact search: say so.
		return statusErr, strings.Join(d.Notes, " · ")
	}
	if ann && d.ANN != nil {
		c := d.ANN
		text := c.Summary()
		if qs := c.QuantizationSummary(); qs != "" {
			text += " · " + qs
		}
		for i, miss := range c.Missed {
			if i == 3 {
				text += " · …"
				break
			}
			text += " · missed exact #" + strconv.Itoa(miss.ExactRank) + " " + miss.DocPath + results.SectionText(miss.Section)
		}
		kind := statusOK
		if len(c.Missed) > 0 {
			kind = statusErr
		}
		return kind, text
	}
	var parts []string
	kind := statusOK
	for i := range d.Expected {
		e := &d.Expected[i]
		s := e.Sentence()
		if !e.Found() {
			kind = statusErr
			if m.sources != nil {
				paths := docPathsOf(m.sources.list)
				ref, _, _ := strings.Cut(e.Ref, "#")
				if close := retrieval.Closest(ref, paths, 3); len(close) > 0 {
					s += "; closest: " + strings.Join(close, ", ")
				}
			}
		} else if e.Cut != retrieval.CutNone {
			kind = statusErr
		}
		parts = append(parts, s)
	}
	parts = append(parts, d.Notes...)
	return kind, strings.Join(parts, " · ")
}

// docPathsOf is the distinct doc paths of the sources.
func docPathsOf(src []results.DocSource) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range src {
		p, _, _ := strings.Cut(s.Ref, "#")
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
