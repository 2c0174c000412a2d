package ui

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/termsafe"
	"ragscope/ui/history"
)

// focusID names what has the keyboard.
type focusID int

const (
	focusQuery focusID = iota
	focusSelText
	focusSelDoc
	focusSelSection
	focusEvalPath
	focusResults
	focusDetail
	focusContext
	focusTurns
	focusSettings
	focusEvalCases
)

// String names the focus (for tests and debugging).
func (f focusID) String() string {
	return [...]string{"query", "selection", "source doc", "section", "eval path", "results", "detail", "context", "turns", "settings", "eval cases"}[f]
}

// isText reports whether the focus is a text input.
func (f focusID) isText() bool { return f <= focusEvalPath }

// isEval reports whether the focus is in the eval view.
func (f focusID) isEval() bool { return f == focusEvalPath || f == focusEvalCases }

// isRight reports whether the focus is a pane of the right column.
func (f focusID) isRight() bool { return f >= focusDetail && f <= focusSettings }

// Minimum window size.
const (
	minWidth  = 60
	minHeight = 15
	// wideWidth is the width from which results and the right pane sit
	// side by side; narrower windows show one of them.
	wideWidth = 90
	// rerunDelay debounces settings changes.
	rerunDelay = 250 * time.Millisecond
	// linkWorkers bounds concurrent link checks.
	linkWorkers = 4
)

// statusKind colours the status line.
type statusKind int

const (
	statusInfo statusKind = iota
	statusOK
	statusErr
)

// Model is the explorer's root model. It routes messages to its panes and
// owns the retrieval lifecycle (sequence numbers, cancellation).
type Model struct {
	opts   Options
	base   context.Context
	keys   *KeyMap
	st     *Styles
	width  int
	height int

	focus focusID
	right focusID
	mode  retrieval.Mode

	query    queryPane
	sel      selectionPane
	results  resultsPane
	detail   detailPane
	ctxPane  contextPane
	turns    turnsPane
	settings settingsPane
	eval     evalPane
	help     help.Model
	fullHelp bool
	spinner  spinner.Model

	params      retrieval.Query
	showDropped bool
	stats       *retrieval.Stats
	backend     BackendInfo

	seq      int
	running  bool
	cancel   context.CancelFunc
	last     *retrieval.Query
	rerunSeq int

	links      map[string]LinkStatus
	linkQueue  []string
	linkActive int
	linkCtx    context.Context
	linkBatch  int
	linkCancel context.CancelFunc

	evalSeq     int
	evalRunning bool
	evalCancel  context.CancelFunc
	evalStream  *evalStream
	// caseSeq is the retrieval of an opened eval case, named caseLabel
	// in its status line.
	caseSeq   int
	caseLabel string

	status     string
	statusKind statusKind
}

func newModel(ctx context.Context, opts Options, st *Styles) Model {
	keys := DefaultKeyMap()
	keys.evalOff = opts.Eval == nil
	params := retrieval.Query{
		TopK:      opts.Defaults.TopK,
		Threshold: opts.Defaults.Threshold,
		NoDedup:   opts.Defaults.NoDedup,
		Filters:   cloneFilters(opts.Defaults.Filters),
	}
	if params.TopK == 0 {
		params.TopK = retrieval.DefaultTopK
	}
	hmax := opts.HistoryMax
	if hmax <= 0 {
		hmax = history.DefaultMax
	}
	links := map[string]LinkStatus{}
	h := help.New()
	sp := spinner.New(spinner.WithSpinner(spinner.Dot))
	m := Model{
		opts: opts, base: ctx, keys: keys, st: st,
		right: focusDetail, mode: retrieval.ModeNormal,
		query:    newQueryPane(keys, st, hmax),
		sel:      newSelectionPane(st),
		results:  newResultsPane(keys, st, links),
		detail:   newDetailPane(keys, st, links),
		ctxPane:  newContextPane(keys, st),
		turns:    newTurnsPane(keys, st),
		settings: newSettingsPane(keys, st, params),
		eval:     newEvalPane(keys, st, opts.EvalDefault),
		help:     h,
		spinner:  sp,
		params:   params,
		backend:  opts.Backend,
		links:    links,
		status:   opts.Note,
	}
	if m.status == "" {
		m.status = "Ready. Type a question and press enter."
	}
	m.applyStyles()
	m.setFocus(focusQuery)
	return m
}

// restyle rebuilds the styles for the terminal's background and colour
// profile, which Bubble Tea reports after start, and renders the detail
// again when the markdown theme changes.
func (m *Model) restyle(dark bool, profile colorprofile.Profile) tea.Cmd {
	if m.st.Dark == dark && m.st.Profile == profile {
		return nil
	}
	*m.st = *DefaultStyles(dark, profile)
	m.applyStyles()
	return m.detail.Restyle()
}

// applyStyles hands the styles to the Bubbles components, which keep
// copies of their own.
func (m *Model) applyStyles() {
	st := m.st
	m.help.Styles = help.DefaultStyles(st.Dark)
	m.help.Styles.ShortKey = st.Highlight
	m.help.Styles.FullKey = st.Highlight
	m.spinner.Style = st.Spinner
	m.query.input.SetStyles(st.textInput())
	m.sel.restyle()
	m.eval.restyle()
}

// Init loads the history and the collection's stats, and asks the
// terminal for its background when there are colours to pick (the reply
// restyles the screen; nothing waits for it).
func (m Model) Init() tea.Cmd {
	var bg tea.Cmd
	if hasColor(m.st.Profile) {
		bg = tea.RequestBackgroundColor
	}
	return tea.Batch(
		m.query.Focus(),
		loadHistoryCmd(m.opts.HistoryFile, m.query.max),
		statsCmd(m.base, m.opts.Timeout, m.opts.Stats),
		bg,
	)
}

// stop cancels work in flight (on quit).
func (m *Model) stop() {
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	if m.linkCancel != nil {
		m.linkCancel()
		m.linkCancel = nil
	}
	if m.evalCancel != nil {
		m.evalCancel()
		m.evalCancel = nil
	}
}

// Update routes msg: sizes and keys first, then replies to their owners.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, m.layout()
	case tea.KeyPressMsg:
		return m.updateKey(msg)
	case tea.PasteMsg:
		return m.updatePaste(msg)
	case tea.BackgroundColorMsg:
		return m, m.restyle(msg.IsDark(), m.st.Profile)
	case tea.ColorProfileMsg:
		return m, m.restyle(m.st.Dark, msg.Profile)
	case resultMsg:
		return m.updateResult(msg)
	case statsMsg:
		return m.updateStats(msg), nil
	case historyLoadedMsg:
		if msg.Err != nil {
			m.setStatus(statusErr, "History: "+msg.Err.Error())
		}
		m.query.AddPast(msg.Entries)
		return m, nil
	case historySavedMsg:
		if msg.Err != nil {
			m.setStatus(statusErr, "History not saved: "+msg.Err.Error())
		}
		return m, nil
	case linkStatusMsg:
		return m.updateLink(msg)
	case clipboardMsg:
		if msg.Err != nil {
			// The OSC 52 copy went out, but whether the terminal took it
			// cannot be known.
			m.setStatus(statusInfo, "Sent "+msg.What+" to the terminal's clipboard (OSC 52); "+msg.Err.Error())
		} else {
			m.setStatus(statusOK, "Copied "+msg.What+" to the clipboard.")
		}
		return m, nil
	case openedMsg:
		if msg.Err != nil {
			m.setStatus(statusErr, "Could not open the link: "+msg.Err.Error())
		} else {
			m.setStatus(statusOK, "Opened "+termsafe.Line(msg.URL))
		}
		return m, nil
	case rerunMsg:
		if msg.Seq != m.rerunSeq || m.last == nil {
			return m, nil
		}
		return m, m.runQuery(m.withParams(*m.last))
	case settingsChangedMsg:
		return m.updateSettings(msg)
	case renderedMsg:
		var cmd tea.Cmd
		m.detail, cmd = m.detail.Update(msg)
		return m, cmd
	case showTurnMsg:
		return m, m.showTurn(msg.Index)
	case evalProgressMsg, evalCaseMsg, evalDoneMsg:
		return m.updateEval(msg)
	case spinner.TickMsg:
		if !m.running && !m.evalRunning {
			return m, nil
		}
		var cmd tea.Cmd
		m.spinner, cmd = m.spinner.Update(msg)
		return m, cmd
	}
	// Cursor blinks and other component messages.
	var c1, c2, c3 tea.Cmd
	m.query, c1 = m.query.Update(msg)
	m.sel, c2 = m.sel.Update(msg)
	m.eval, c3 = m.eval.Update(msg)
	return m, tea.Batch(c1, c2, c3)
}

// typing reports whether keys go to a text box.
func (m Model) typing() bool {
	return m.focus.isText() || (m.focus.isEval() && m.eval.inputFocus)
}

// updateKey handles global keys, then gives the key to the focused pane.
func (m Model) updateKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit), key.Matches(msg, k.QuitQ):
		m.stop()
		return m, tea.Quit
	}
	if m.tooSmall() {
		return m, nil
	}
	switch {
	case key.Matches(msg, k.NextPane):
		return m, m.cycleFocus(1)
	case key.Matches(msg, k.PrevPane):
		return m, m.cycleFocus(-1)
	case key.Matches(msg, k.ToggleMode):
		return m, m.toggleMode()
	case key.Matches(msg, k.RunAny):
		if m.focus.isEval() {
			return m, m.startEval()
		}
		return m, m.run()
	case key.Matches(msg, k.Help):
		m.fullHelp = !m.fullHelp
		return m, m.layout()
	case key.Matches(msg, k.Leave):
		return m, m.leave()
	case key.Matches(msg, k.FocusQuery):
		return m, m.setFocus(focusQuery)
	case key.Matches(msg, k.Context):
		return m, m.setFocus(focusContext)
	case key.Matches(msg, k.Turns):
		return m, m.setFocus(focusTurns)
	case key.Matches(msg, k.Settings):
		return m, m.setFocus(focusSettings)
	case key.Matches(msg, k.Eval):
		return m, m.openEval()
	case key.Matches(msg, k.Dropped):
		return m.updateSettings(settingsChangedMsg{Params: m.params, ToggleDropped: true})
	case key.Matches(msg, k.CopyURL):
		return m, m.copyURL()
	case key.Matches(msg, k.CopyContext):
		return m, m.copyContext()
	case key.Matches(msg, k.OpenURL):
		return m, m.openURL()
	}
	return m.updateFocused(msg)
}

// updatePaste puts pasted text in the text box it is meant for.
func (m Model) updatePaste(msg tea.PasteMsg) (tea.Model, tea.Cmd) {
	if m.tooSmall() {
		return m, nil
	}
	var cmd tea.Cmd
	if !m.typing() {
		target := focusQuery
		if m.mode == retrieval.ModeSelectedText {
			target = focusSelText
		}
		cmd = m.setFocus(target)
	}
	var cmd2 tea.Cmd
	switch m.focus {
	case focusQuery:
		m.query, cmd2 = m.query.Update(msg)
	case focusSelText, focusSelDoc, focusSelSection:
		m.sel, cmd2 = m.sel.Update(msg)
	case focusEvalPath:
		m.eval, cmd2 = m.eval.Update(msg)
	}
	return m, tea.Batch(cmd, cmd2)
}

// updateFocused gives a key to the focused pane only.
func (m Model) updateFocused(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch m.focus {
	case focusQuery:
		if key.Matches(msg, m.keys.Run) {
			return m, m.run()
		}
		m.query, cmd = m.query.Update(msg)
	case focusSelText:
		m.sel, cmd = m.sel.Update(msg)
	case focusSelDoc, focusSelSection:
		if key.Matches(msg, m.keys.Run) {
			return m, m.run()
		}
		m.sel, cmd = m.sel.Update(msg)
	case focusResults:
		if key.Matches(msg, m.keys.Open) {
			return m, m.setFocus(focusDetail)
		}
		old := m.results.cursor
		m.results, cmd = m.results.Update(msg)
		if m.results.cursor != old {
			cmd = tea.Batch(cmd, m.syncDetail())
		}
	case focusDetail:
		m.detail, cmd = m.detail.Update(msg)
	case focusContext:
		m.ctxPane, cmd = m.ctxPane.Update(msg)
	case focusTurns:
		m.turns, cmd = m.turns.Update(msg)
	case focusSettings:
		m.settings, cmd = m.settings.Update(msg)
	case focusEvalPath:
		if key.Matches(msg, m.keys.Run) {
			return m, m.startEval()
		}
		m.eval, cmd = m.eval.Update(msg)
	case focusEvalCases:
		if key.Matches(msg, m.keys.Open) {
			return m, m.openCase()
		}
		m.eval, cmd = m.eval.Update(msg)
	}
	return m, cmd
}

// ring is the tab order for the current mode.
func (m *Model) ring() []focusID {
	if m.focus.isEval() {
		return []focusID{focusEvalPath, focusEvalCases}
	}
	if m.mode == retrieval.ModeSelectedText {
		return []focusID{focusQuery, focusSelText, focusSelDoc, focusSelSection, focusResults, focusDetail, focusContext, focusTurns}
	}
	return []focusID{focusQuery, focusResults, focusDetail, focusContext, focusTurns}
}

func (m *Model) cycleFocus(dir int) tea.Cmd {
	ring := m.ring()
	i := 0
	for j, f := range ring {
		if f == m.focus {
			i = j
		}
	}
	if m.focus == focusSettings {
		i = len(ring) - 1
		if dir < 0 {
			i = len(ring)
		}
	}
	i = ((i+dir)%len(ring) + len(ring)) % len(ring)
	return m.setFocus(ring[i])
}

// leave is esc: from a right pane back to the results, from the results
// or a text box to the results as well (letters become commands again).
func (m *Model) leave() tea.Cmd {
	if m.fullHelp {
		m.fullHelp = false
		return m.layout()
	}
	if m.focus.isEval() && m.evalRunning {
		m.cancelEval()
		return nil
	}
	if m.focus == focusResults {
		return m.setFocus(focusQuery)
	}
	return m.setFocus(focusResults)
}

// setFocus moves the keyboard to f, updating what the right column shows
// and which bindings are live.
func (m *Model) setFocus(f focusID) tea.Cmd {
	m.focus = f
	if f.isRight() {
		m.right = f
	}
	m.keys.setTextFocus(f.isText())
	m.query.Blur()
	m.sel.Blur()
	m.eval.Blur()
	m.results.focus = f == focusResults
	m.detail.focus = f == focusDetail
	m.ctxPane.focus = f == focusContext
	m.turns.focus = f == focusTurns
	m.settings.focus = f == focusSettings
	var cmd tea.Cmd
	switch f {
	case focusQuery:
		cmd = m.query.Focus()
	case focusSelText:
		cmd = m.sel.Focus(selText)
	case focusSelDoc:
		cmd = m.sel.Focus(selDoc)
	case focusSelSection:
		cmd = m.sel.Focus(selSection)
	case focusEvalPath:
		cmd = m.eval.Focus(true)
	case focusEvalCases:
		cmd = m.eval.Focus(false)
	}
	return tea.Batch(cmd, m.layout())
}

// toggleMode switches between normal and selected-text mode.
func (m *Model) toggleMode() tea.Cmd {
	if m.mode == retrieval.ModeNormal {
		m.mode = retrieval.ModeSelectedText
		m.setStatus(statusInfo, "Selected-text mode: paste text, type a question, ctrl+r runs. No vector search. ctrl+t goes back.")
		return m.setFocus(focusSelText)
	}
	m.mode = retrieval.ModeNormal
	m.setStatus(statusInfo, "Normal mode: questions are embedded and searched.")
	return m.setFocus(focusQuery)
}

// buildQuery captures the inputs and settings into a query.
func (m *Model) buildQuery() retrieval.Query {
	q := m.withParams(retrieval.Query{Question: m.query.Value(), Mode: m.mode})
	if m.mode == retrieval.ModeSelectedText {
		q.SelectedText, q.SourceDocPath, q.SourceSection = m.sel.Values()
	}
	return q
}

// withParams applies the current settings to q.
func (m *Model) withParams(q retrieval.Query) retrieval.Query {
	q.TopK, q.Threshold, q.NoDedup = m.params.TopK, m.params.Threshold, m.params.NoDedup
	q.Filters = cloneFilters(m.params.Filters)
	return q
}

// run starts a retrieval for what the user typed.
func (m *Model) run() tea.Cmd {
	q := m.buildQuery()
	if _, _, _, err := retrieval.Normalize(q); err != nil {
		m.setStatus(statusErr, errorText(err))
		return nil
	}
	var save tea.Cmd
	if m.query.Remember(q.Question) {
		save = appendHistoryCmd(m.opts.HistoryFile, strings.TrimSpace(q.Question))
	}
	return tea.Batch(save, m.runQuery(q))
}

// runQuery cancels the retrieval in flight and starts q with the next
// sequence number under its own context.
func (m *Model) runQuery(q retrieval.Query) tea.Cmd {
	if m.cancel != nil {
		m.cancel()
	}
	m.seq++
	ctx, cancel := withTimeout(m.base, m.opts.Timeout)
	m.cancel = cancel
	m.running = true
	last := q
	m.last = &last
	m.setStatus(statusInfo, "Searching…")
	if q.Mode == retrieval.ModeSelectedText {
		m.setStatus(statusInfo, "Grounding on the selection…")
	}
	return tea.Batch(retrieveCmd(ctx, m.opts.Retriever, m.seq, q), m.spinner.Tick)
}

// updateResult shows a retrieval's reply, dropping stale ones.
func (m Model) updateResult(msg resultMsg) (tea.Model, tea.Cmd) {
	if msg.Seq != m.seq {
		return m, nil
	}
	m.running = false
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	if msg.Err != nil {
		if errors.Is(msg.Err, context.Canceled) {
			m.setStatus(statusInfo, "Cancelled.")
			return m, nil
		}
		m.setStatus(statusErr, errorText(msg.Err))
		return m, nil
	}
	n := len(m.turns.turns)
	if n > 0 {
		n = m.turns.turns[n-1].N
	}
	i := m.turns.Add(turn{N: n + 1, Query: msg.Query, Result: msg.Result})
	cmd := m.showTurn(i)
	res := msg.Result
	text := strconv.Itoa(len(res.Hits)) + " " + present.Plural(len(res.Hits), "result", "results")
	if d := len(res.Dropped); d > 0 {
		text += " · " + strconv.Itoa(d) + " left out"
	}
	if res.Truncated {
		text += " · question cut to " + strconv.Itoa(retrieval.MaxQuestionLen) + " of " + present.Int(res.OriginalLength) + " chars"
	}
	text += " · " + present.Timings(res.Timings, res.Mode)
	if msg.Seq == m.caseSeq && m.caseLabel != "" {
		text = m.caseLabel + " · " + text
	}
	m.setStatus(statusOK, text)
	return m, tea.Batch(cmd, m.checkLinks(res))
}

// showTurn puts turn i in the result, detail and context panes.
func (m *Model) showTurn(i int) tea.Cmd {
	if i < 0 || i >= len(m.turns.turns) {
		return nil
	}
	m.turns.SetCurrent(i)
	t := &m.turns.turns[i]
	m.ctxPane.SetResult(t.Result)
	if i != len(m.turns.turns)-1 {
		m.setStatus(statusInfo, "Showing turn #"+strconv.Itoa(t.N)+": "+termsafe.Line(t.Query.Question))
	}
	m.results.SetResult(t.Result)
	return m.syncDetail()
}

// syncDetail shows the selected result in the detail pane. It runs in the
// Update that moved the selection: a command would let replies of keys
// pressed together land out of order and leave the detail behind.
func (m *Model) syncDetail() tea.Cmd {
	it, _ := m.results.Selected()
	return m.detail.SetItem(it)
}

// checkLinks queues the result's citation URLs for the link checker.
func (m *Model) checkLinks(res retrieval.Result) tea.Cmd {
	if m.opts.LinkStatus == nil {
		return nil
	}
	if m.linkCancel != nil {
		m.linkCancel()
	}
	// The previous result's pending checks are abandoned.
	for u, st := range m.links {
		if st.State == "" {
			delete(m.links, u)
		}
	}
	m.linkQueue, m.linkActive = nil, 0
	m.linkBatch++
	m.linkCtx, m.linkCancel = context.WithCancel(m.base)
	add := func(u string) {
		if u == "" {
			return
		}
		if _, ok := m.links[u]; ok {
			return
		}
		m.links[u] = LinkStatus{}
		m.linkQueue = append(m.linkQueue, u)
	}
	for _, h := range res.Hits {
		add(h.Citation.URL)
	}
	for _, d := range res.Dropped {
		add(d.Citation.URL)
	}
	var cmds []tea.Cmd
	for m.linkActive < linkWorkers && len(m.linkQueue) > 0 {
		cmds = append(cmds, m.nextLink())
	}
	return tea.Batch(cmds...)
}

func (m *Model) nextLink() tea.Cmd {
	u := m.linkQueue[0]
	m.linkQueue = m.linkQueue[1:]
	m.linkActive++
	return linkStatusCmd(m.linkCtx, m.linkBatch, m.opts.Timeout, m.opts.LinkStatus, u)
}

// updateLink records a link state and starts the next check.
func (m Model) updateLink(msg linkStatusMsg) (tea.Model, tea.Cmd) {
	if msg.Batch != m.linkBatch {
		return m, nil
	}
	m.linkActive = max(m.linkActive-1, 0)
	if _, pending := m.links[msg.URL]; pending {
		switch {
		case msg.Err != nil && errors.Is(msg.Err, context.Canceled):
			delete(m.links, msg.URL)
		case msg.Err != nil:
			m.links[msg.URL] = LinkStatus{State: LinkUnknown, Detail: msg.Err.Error()}
		default:
			st := msg.Status
			if st.State == "" {
				st.State = LinkUnknown
			}
			m.links[msg.URL] = st
		}
		m.detail.LinkChanged(msg.URL)
	}
	if len(m.linkQueue) > 0 && m.linkCtx != nil {
		return m, m.nextLink()
	}
	return m, nil
}

// updateStats records the collection's stats.
func (m Model) updateStats(msg statsMsg) Model {
	if msg.Err != nil {
		m.setStatus(statusErr, errorText(msg.Err))
		return m
	}
	st := msg.Stats
	m.stats = &st
	if st.Points > 0 || m.backend.Points < 0 {
		m.backend.Points = st.Points
	}
	m.settings.SetFacets(st.Facets)
	if st.Status == retrieval.StatusNotFound {
		m.setStatus(statusErr, "Collection "+termsafe.Line(st.Collection)+" not found. Set QDRANT_COLLECTION to an existing collection.")
	}
	return m
}

// updateSettings applies new settings and schedules a re-run.
func (m Model) updateSettings(msg settingsChangedMsg) (tea.Model, tea.Cmd) {
	changed := m.params.TopK != msg.Params.TopK || m.params.Threshold != msg.Params.Threshold ||
		m.params.NoDedup != msg.Params.NoDedup || present.Filters(m.params.Filters) != present.Filters(msg.Params.Filters)
	m.params = m.withParamsFrom(msg.Params)
	m.settings.params = m.params
	m.settings.params.Filters = cloneFilters(m.params.Filters)
	var cmds []tea.Cmd
	if msg.ToggleDropped {
		m.showDropped = !m.showDropped
		m.results.SetShowDropped(m.showDropped)
		cmds = append(cmds, m.syncDetail())
	}
	m.settings.showDropped = m.showDropped
	if changed && m.last != nil {
		m.rerunSeq++
		cmds = append(cmds, rerunCmd(rerunDelay, m.rerunSeq))
	}
	return m, tea.Batch(cmds...)
}

func (m *Model) withParamsFrom(p retrieval.Query) retrieval.Query {
	return retrieval.Query{TopK: p.TopK, Threshold: p.Threshold, NoDedup: p.NoDedup, Filters: cloneFilters(p.Filters)}
}

// copyURL copies the selected hit's citation URL.
func (m *Model) copyURL() tea.Cmd {
	it, ok := m.results.Selected()
	if !ok || it.Hit.Citation.URL == "" {
		m.setStatus(statusErr, "No citation URL to copy: select a result first.")
		return nil
	}
	return clipboardCmd(m.clipboard(), "the citation URL", it.Hit.Citation.URL)
}

// copyContext copies the grounded instruction and context.
func (m *Model) copyContext() tea.Cmd {
	if !m.ctxPane.has {
		m.setStatus(statusErr, "No grounded context yet: run a query first.")
		return nil
	}
	g := m.ctxPane.g
	text := g.Instruction + "\n\n" + g.Context
	return clipboardCmd(m.clipboard(), "the grounded context ("+present.Int(len([]rune(text)))+" chars)", text)
}

func (m *Model) clipboard() func(string) error {
	if m.opts.Clipboard != nil {
		return m.opts.Clipboard
	}
	return func(string) error { return errors.New("no clipboard available") }
}

// openURL opens the selected hit's citation in the browser.
func (m *Model) openURL() tea.Cmd {
	it, ok := m.results.Selected()
	if !ok || it.Hit.Citation.URL == "" {
		m.setStatus(statusErr, "No citation URL to open: select a result first.")
		return nil
	}
	open := m.opts.OpenURL
	if open == nil {
		open = DefaultOpenURL
	}
	return openURLCmd(open, it.Hit.Citation.URL)
}

func (m *Model) setStatus(kind statusKind, text string) {
	m.statusKind, m.status = kind, termsafe.Line(text)
}

func (m *Model) tooSmall() bool { return m.width < minWidth || m.height < minHeight }

// Focus returns the name of the focused pane (for tests).
func (m Model) Focus() string { return m.focus.String() }

// Status returns the status line's text (for tests).
func (m Model) Status() string { return m.status }

// Running reports whether a retrieval is in flight (for tests).
func (m Model) Running() bool { return m.running }

// EvalRunning reports whether an eval is in flight (for tests).
func (m Model) EvalRunning() bool { return m.evalRunning }

// Turns returns the questions of the session's turns, oldest first (for
// tests).
func (m Model) Turns() []string {
	out := make([]string, len(m.turns.turns))
	for i, t := range m.turns.turns {
		out[i] = t.Query.Question
	}
	return out
}
