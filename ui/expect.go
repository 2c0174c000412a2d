package ui

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/termsafe"
	"ragscope/ui/common"
)

// DocSource is one entry of the expected-source picker: a page (Ref is
// its doc path) or a section of it (Ref is "doc path#anchor").
type DocSource struct {
	// Ref is what the diagnosis is given (retrieval.ParseExpectRef).
	Ref string
	// Label is what the picker shows and matches ("docs/a.md ·
	// Section"); Ref when empty.
	Label string
}

// ExpectSetup offers "Why not this chunk?" in the explorer: a picker of
// expected sources (key w) whose rank, score and cut show in the results,
// and the ANN check (key W, Qdrant). Zero hides both.
type ExpectSetup struct {
	// Sources lists the collection's doc paths and sections for the
	// picker; nil leaves only typing or pasting a ref.
	Sources func(ctx context.Context) ([]DocSource, error)
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

// expectPicker chooses an expected source by typing part of a doc path
// or section, or takes a pasted URL or path as it is.
type expectPicker struct {
	common.FuzzyList
	st      *common.Styles
	sources []DocSource
	loading bool
	err     string
}

func newExpectPicker(keys *common.KeyMap, st *common.Styles) *expectPicker {
	return &expectPicker{FuzzyList: common.NewFuzzyList(keys, st, "type part of a doc path or section, or paste a URL", 2000), st: st, loading: true}
}

// SetSources gives the picker the collection's sources.
func (f *expectPicker) SetSources(src []DocSource, err error) {
	f.loading = false
	if err != nil {
		f.err = common.ErrorText(err)
	}
	f.sources = src
	labels := make([]string, len(src))
	for i, s := range src {
		labels[i] = cmp.Or(s.Label, s.Ref)
	}
	f.SetLabels(labels)
}

// choice is the ref enter picks: a typed URL as it is; else the source
// under the cursor; else the typed text.
func (f *expectPicker) choice() string {
	typed := strings.TrimSpace(f.Input.Value())
	i, ok := f.Current()
	if strings.Contains(typed, "://") || !ok {
		return typed
	}
	return f.sources[i].Ref
}

// Update handles a key or a paste: arrows move, enter picks (pick),
// esc closes (done), anything else is text.
func (f *expectPicker) Update(msg tea.Msg) (pick string, done bool, cmd tea.Cmd) {
	act, cmd := f.HandleKey(msg)
	switch act {
	case common.PickClose:
		return "", true, nil
	case common.PickToggle:
		return f.choice(), false, nil
	}
	return "", false, cmd
}

// View draws the input and as many matches as fit in w x h, marking the
// sources already expected.
func (f *expectPicker) View(w, h int, active []string) string {
	st := f.st
	var b strings.Builder
	name := "expected source"
	count := strconv.Itoa(len(f.Shown)) + "/" + strconv.Itoa(len(f.sources))
	f.Input.SetWidth(max(w-len(name)-len(count)-6, 4))
	b.WriteString(common.Truncate(st.FocusedTitle.Render(name+" › ")+f.Input.View()+" "+st.Meta.Render(count), w))
	b.WriteString("\n" + st.Meta.Render(common.Truncate("enter picks (again: drops it) · a typed or pasted URL or path is taken as it is · esc closes", w)))
	rows := f.Rows(h - 2)
	switch {
	case f.loading:
		b.WriteString("\n" + st.Meta.Render("listing the collection's pages…"))
	case f.err != "":
		b.WriteString("\n" + st.Missing.Render(common.Truncate("cannot list the pages: "+f.err+"; type or paste a doc path or URL", w)))
	case len(f.Shown) == 0 && strings.TrimSpace(f.Input.Value()) != "":
		b.WriteString("\n" + st.Missing.Render(common.Truncate("no page matches: enter takes the text as it is", w)))
	}
	f.WriteRows(&b, st, w, rows, func(i int) bool { return slices.Contains(active, f.sources[i].Ref) })
	return b.String()
}

// ShortHelp is the picker's help line.
func (f *expectPicker) ShortHelp() []key.Binding {
	k := f.Keys
	return []key.Binding{k.PickDown, pickHelp(k), k.PickClose, k.Quit}
}

func pickHelp(k *common.KeyMap) key.Binding {
	return key.NewBinding(key.WithKeys(k.PickToggle.Keys()...), key.WithHelp("enter", "pick / drop"))
}

// sourcesMsg carries the picker's sources.
type sourcesMsg struct {
	Sources []DocSource
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

func sourcesCmd(ctx context.Context, fn func(context.Context) ([]DocSource, error)) tea.Cmd {
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
	m.results.pick = newExpectPicker(m.keys, m.st)
	var cmd tea.Cmd
	switch {
	case m.sources != nil:
		m.results.pick.SetSources(m.sources.list, m.sources.err)
	case m.opts.Expect.Sources == nil:
		m.results.pick.SetSources(nil, nil)
	default:
		ctx, cancel := common.WithTimeout(m.base, m.opts.Timeout)
		fn := m.opts.Expect.Sources
		cmd = sourcesCmd(ctx, func(ctx context.Context) ([]DocSource, error) {
			defer cancel()
			return fn(ctx)
		})
	}
	m.setStatus(statusInfo, "Pick the page or section you expected for this question; its rank, score and what cut it show in the results.")
	return tea.Batch(cmd, m.setFocus(focusResults))
}

// expectSources are the picker's sources, listed once.
type expectSources struct {
	list []DocSource
	err  error
}

// updateSources hands the sources to the picker and keeps them.
func (m *Model) updateSources(msg sourcesMsg) {
	if msg.Err == nil {
		m.sources = &expectSources{list: msg.Sources}
	}
	if m.results.pick != nil {
		m.results.pick.SetSources(msg.Sources, msg.Err)
	}
}

// updatePicker gives a key or paste to the open picker.
func (m *Model) updatePicker(msg tea.Msg) tea.Cmd {
	pick, done, cmd := m.results.pick.Update(msg)
	if done {
		// Closed without a pick: the keyboard goes back where it was
		// (the results, the detail…), never on to the Ask box.
		m.results.pick = nil
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
	m.results.pick = nil
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
func (m *Model) diagnose(t *turn, ann bool) tea.Cmd {
	ctx, cancel := common.WithTimeout(m.base, m.opts.Timeout)
	model := ""
	if t.Query.Rerank.On {
		model = m.rerankModel
	}
	m.diagSeq++
	t.diagSeq = m.diagSeq
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
	if t == nil || msg.Seq != t.diagSeq {
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
func (m *Model) diagStatus(t *turn, ann bool) (statusKind, string) {
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
			text += " · missed exact #" + strconv.Itoa(miss.ExactRank) + " " + miss.DocPath + sectionText(miss.Section)
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

func sectionText(s string) string {
	if s == "" {
		return ""
	}
	return " · " + s
}

// docPathsOf is the distinct doc paths of the sources.
func docPathsOf(src []DocSource) []string {
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

// expectItem is the results row of an expected source the results do
// not hold: marked, at its real rank, with its score and what cut it.
func expectItem(e *retrieval.Expected) common.Item {
	text := "The results do not hold this source's best chunk for the question."
	if e.DocPath != "" {
		text += " Press p to read its page's chunks in order."
	}
	c := retrieval.Chunk{ID: e.PointID, DocPath: e.DocPath, Section: e.Section, Text: text}
	if c.ID == "" {
		c.ID = "expected:" + e.Ref
	}
	h := retrieval.Hit{Rank: e.Rank, Chunk: c}
	if e.Score != nil {
		h.Score = *e.Score
	}
	return common.Item{Hit: h, Expect: e, Pseudo: true}
}

// expectCompare says how the expected sources moved from old to cur:
// "expected docs/a.md #23 → #4 (cut by top_k 5 → in the results at #4)".
func expectCompare(old, cur *turn) []string {
	var out []string
	for _, ref := range cur.Expect {
		ne := findExpected(cur, ref)
		oe := findExpected(old, ref)
		if ne == nil && oe == nil {
			continue
		}
		out = append(out, "expected "+termsafe.Line(ref)+" "+expectRank(oe)+" → "+expectRank(ne)+" ("+expectCut(oe)+" → "+expectCut(ne)+")")
	}
	return out
}

func findExpected(t *turn, ref string) *retrieval.Expected {
	if t == nil || t.Diag == nil {
		return nil
	}
	for i := range t.Diag.Expected {
		if t.Diag.Expected[i].Ref == ref {
			return &t.Diag.Expected[i]
		}
	}
	return nil
}

func expectRank(e *retrieval.Expected) string {
	switch {
	case e == nil:
		return "?"
	case !e.Found():
		return "none"
	}
	return cmp.Or(e.RankText(), "?")
}

func expectCut(e *retrieval.Expected) string {
	switch {
	case e == nil:
		return "not diagnosed"
	case e.Cut == retrieval.CutNone:
		return "kept"
	}
	return e.Detail
}
