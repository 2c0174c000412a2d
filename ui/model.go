package ui

import (
	"cmp"
	"context"
	"errors"
	"slices"
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
	"ragscope/retrieval/assess/eval"
	"ragscope/termsafe"
	"ragscope/ui/answer"
	"ragscope/ui/chunksview"
	"ragscope/ui/common"
	"ragscope/ui/contextpane"
	"ragscope/ui/detail"
	"ragscope/ui/evalview"
	"ragscope/ui/history"
	"ragscope/ui/keyhelp"
	"ragscope/ui/pageview"
	"ragscope/ui/query"
	"ragscope/ui/results"
	"ragscope/ui/selection"
	"ragscope/ui/settings"
	"ragscope/ui/split"
	"ragscope/ui/turns"
)

// focusID names a registered pane (what has the keyboard).
type focusID string

// The explorer's panes.
const (
	focusQuery      focusID = "query"
	focusSelText    focusID = "selection"
	focusSelDoc     focusID = "source doc"
	focusSelSection focusID = "section"
	focusResults    focusID = "results"
	focusDetail     focusID = "detail"
	focusContext    focusID = "context"
	focusTurns      focusID = "turns"
	focusSettings   focusID = "settings"
	focusAnswer     focusID = "answer"
	focusEvalPath   focusID = "eval path"
	focusEvalCases  focusID = "eval cases"
	focusPage       focusID = "page"
	focusChunks     focusID = "chunks"
)

// Minimum window size.
const (
	minWidth  = 60
	minHeight = 15
	// wideWidth is the width from which results and the right pane sit
	// side by side; narrower windows show one of them.
	wideWidth = 90
	// rerunDelay debounces settings changes.
	rerunDelay = 250 * time.Millisecond
)

// statusKind colours the status line.
type statusKind int

const (
	statusInfo statusKind = iota
	statusOK
	statusErr
)

// Model is the explorer's root model. It routes messages to its panes and
// owns the retrieval lifecycle (sequence numbers, cancellation). What
// belongs together is grouped in the small structs it embeds.
type Model struct {
	opts   Options
	base   context.Context
	keys   *common.KeyMap
	st     *common.Styles
	width  int
	height int

	// slots are the registered panes, in tab order.
	slots []slot
	focus focusID
	right focusID
	mode  retrieval.Mode

	panes

	params      retrieval.Query
	rerankModel string
	showDropped bool
	stats       *retrieval.Stats
	backend     BackendInfo

	runState

	// clip is where copies go (tmux, the system clipboard, OSC 52).
	clip clipEnv

	// links checks the citation URLs of the result on show.
	links *linkPool

	// evals runs golden sets for the eval view.
	evals evalRun
	// open is the backend opening after the first frame (Options.Open).
	open backendOpen
	// judging is the judge run in flight (key J).
	judging judgeRun

	expectState
	explainState
	caseState
	goldenState
	statusLine
}

// panes are the explorer's panes. They are pointers: a key press copies
// the root, not the text areas and viewports (the root stays small
// enough to copy per Update).
type panes struct {
	query    *query.Model
	sel      *selection.Model
	results  *results.Model
	detail   *detail.Model
	ctxPane  *contextpane.Model
	turns    *turns.Model
	settings *settings.Model
	answer   *answer.Model
	eval     *evalview.Model
	page     *pageview.Model
	chunks   *chunksview.Model
	split    *split.Model
	// splitDetail is the split view's own detail pane.
	splitDetail *detail.Model
	help        help.Model
	fullHelp    bool
	keyHelp     *keyhelp.Model
	search      *searchBar
	spinner     spinner.Model
}

// runState is the retrieval lifecycle: the sequence number of the
// retrieval whose reply counts, whether it runs and how to cancel it,
// the last query and the debounced re-run's number.
type runState struct {
	seq      int
	running  bool
	cancel   context.CancelFunc
	last     *retrieval.Query
	rerunSeq int
}

// expectState is the expected-source diagnosis (key w).
type expectState struct {
	// expect are the expected sources picked for expectQuestion,
	// carried to its re-runs; sources are the picker's list, read once.
	expect         []string
	expectQuestion string
	sources        *expectSources
	// pickFrom is the pane the expected-source picker (w) was opened from:
	// esc gives it the keyboard back.
	pickFrom focusID
	diagSeq  int
}

// explainState is the explanation (key X) and the what-if edit (key E).
type explainState struct {
	// explainSeq and editSeq are the explanation and the edit whose
	// replies count.
	explainSeq, editSeq int
	// editArea is the what-if text area while open (no $EDITOR).
	editArea *editArea
}

// caseState is an eval case opened as a query.
type caseState struct {
	// caseSeq is the retrieval of an opened eval case, named caseLabel
	// in its status line.
	caseSeq   int
	caseLabel string
	// caseExpect is the opened case's expectation: its result's hits that
	// match get their marks back.
	caseExpect *eval.Expect
	// caseFile is the golden file the opened case came from ("" for the
	// built-in set): its turn saves back into it.
	caseFile string
}

// goldenState is where S saves the turn on show.
type goldenState struct {
	// goldenPath is the golden file S saves the turn on show to;
	// confirmSave is the turn whose next S replaces the case asking the
	// same question (0: none waits).
	goldenPath  string
	confirmSave int
}

// statusLine is the status line's text, colour and layout.
type statusLine struct {
	status     string
	statusKind statusKind
	// statusH is the status line's height at the last layout, drawn
	// for statusAt.
	statusH  int
	statusAt statusState
}

func newModel(ctx context.Context, opts Options, st *common.Styles) Model {
	keys := common.DefaultKeyMap()
	setAvailable(keys, opts)
	params := retrieval.Query{
		TopK:      retrieval.TopKOrDefault(opts.Defaults.TopK),
		Threshold: opts.Defaults.Threshold,
		NoDedup:   opts.Defaults.NoDedup,
		Filters:   settings.CloneFilters(opts.Defaults.Filters),
	}
	hmax := opts.HistoryMax
	if hmax <= 0 {
		hmax = history.DefaultMax
	}
	links := newLinkPool(ctx, opts.Timeout, opts.LinkStatus)
	h := help.New()
	sp := spinner.New(spinner.WithSpinner(spinner.Dot))
	splitDetail := ptr(detail.New(keys, st, links.states))
	m := Model{
		opts: opts, base: ctx, keys: keys, st: st,
		right: focusDetail, mode: retrieval.ModeNormal,
		panes: panes{
			query:       ptr(query.New(keys, st, hmax)),
			sel:         ptr(selection.New(keys, st)),
			results:     ptr(results.New(keys, st, links.states)),
			detail:      ptr(detail.New(keys, st, links.states)),
			ctxPane:     ptr(contextpane.New(keys, st)),
			turns:       ptr(turns.New(keys, st)),
			settings:    ptr(settings.New(keys, st, params)),
			eval:        ptr(evalview.New(keys, st, opts.EvalDefault)),
			page:        ptr(pageview.New(keys, st)),
			chunks:      ptr(chunksview.New(keys, st)),
			split:       ptr(split.New(keys, st, splitDetail)),
			splitDetail: splitDetail,
			answer:      ptr(answer.New(ctx, keys, st, links.states, opts.Generator, opts.ChatHint)),
			help:        h,
			keyHelp:     ptr(keyhelp.New(st)),
			search:      ptr(newSearchBar(st)),
			spinner:     sp,
		},
		params:      params,
		backend:     opts.Backend,
		links:       links,
		clip:        newClipEnv(opts),
		evals:       evalRun{fn: opts.Eval, base: ctx},
		statusLine:  statusLine{status: opts.Note},
		goldenState: goldenState{goldenPath: cmp.Or(opts.GoldenFile, settings.DefaultGoldenFile)},
	}
	if m.status == "" {
		m.status = readyStatus
	}
	m.initRerank()
	m.initLocalSearch()
	m.initJudge()
	m.settings.AutoAnswer = &m.answer.Auto
	m.settings.Golden = m.goldenPath
	m.beginOpen()
	m.initSplit()
	m.registerPanes()
	m.registerSplit()
	m.applyStyles()
	m.setFocus(focusQuery)
	return m
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }

// restyle rebuilds the styles for the terminal's background and colour
// profile, which Bubble Tea reports after start, and renders the detail
// again when the markdown theme changes.
func (m *Model) restyle(dark bool, profile colorprofile.Profile) tea.Cmd {
	if m.st.Dark == dark && m.st.Profile == profile {
		return nil
	}
	*m.st = *common.DefaultStyles(dark, profile)
	m.applyStyles()
	return tea.Batch(m.detail.Restyle(), m.splitDetail.Restyle())
}

// applyStyles hands the styles to the Bubbles components, which keep
// copies of their own.
func (m *Model) applyStyles() {
	st := m.st
	m.help.Styles = help.DefaultStyles(st.Dark)
	m.help.Styles.ShortKey = st.Highlight
	m.help.Styles.FullKey = st.Highlight
	m.spinner.Style = st.Spinner
	m.query.Input.SetStyles(st.TextInput())
	m.search.input.SetStyles(st.TextInput())
	m.sel.Restyle()
	m.eval.Restyle()
}

// Init loads the history and the collection's stats, asks the terminal
// for its background when there are colours to pick (the reply restyles
// the screen; nothing waits for it), and schedules Options.Settle.
func (m Model) Init() tea.Cmd {
	var bg tea.Cmd
	if common.HasColor(m.st.Profile) {
		bg = tea.RequestBackgroundColor
	}
	return tea.Batch(
		m.query.Focus(),
		loadHistoryCmd(m.opts.HistoryFile, m.query.Max),
		statsCmd(m.base, m.opts.Timeout, m.opts.Stats),
		bg,
		m.openOrSettleCmd(),
	)
}

// stop cancels work in flight (on quit).
func (m *Model) stop() {
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	m.links.Stop()
	m.evals.Cancel()
	m.answer.Cancel()
	m.cancelJudge(false)
	m.page.Stop()
	m.chunks.Stop()
	m.split.Stop()
}

// Update routes msg (see route), then lays the screen out again when the
// status line's height changed: a long error wraps onto more lines, and
// the panes give them room, so it can be read in full.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	next, cmd := m.route(msg)
	nm, ok := next.(Model)
	// Returning next as it is spares boxing the large Model a second time
	// on every key press.
	if !ok || nm.width == 0 || nm.tooSmall() || nm.statusState() == nm.statusAt {
		return next, cmd
	}
	return nm.fitStatusRows(cmd)
}

// route handles msg: sizes and keys first, then replies to their owners.
func (m Model) route(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, m.layout()
	case tea.KeyPressMsg:
		cmd := m.updateKey(msg)
		return m, cmd
	case tea.MouseWheelMsg:
		return m, m.updateWheel(msg)
	case tea.MouseClickMsg:
		return m, m.updateClick(msg)
	case tea.PasteMsg:
		cmd := m.updatePaste(msg)
		return m, cmd
	case tea.BackgroundColorMsg:
		return m, m.restyle(msg.IsDark(), m.st.Profile)
	case tea.ColorProfileMsg:
		return m, m.restyle(m.st.Dark, msg.Profile)
	}
	if next, cmd := m.routeReply(msg); next != nil {
		return next, cmd
	}
	if next, cmd := m.routeFeature(msg); next != nil {
		return next, cmd
	}
	// Cursor blinks and other component messages.
	var c1, c2, c3, c4 tea.Cmd
	c1 = m.query.Update(msg)
	c2 = m.sel.Update(msg)
	c3 = m.eval.Update(msg)
	m.search.input, c4 = m.search.input.Update(msg)
	return m, tea.Batch(c1, c2, c3, c4)
}

// routeReply hands a command's reply (a result, stats, the opened
// backend, history, link states, the clipboard, a re-run) to its owner;
// nil when msg is none of them.
func (m Model) routeReply(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case resultMsg:
		return m.updateResult(msg)
	case statsMsg:
		return m.updateStats(msg), nil
	case pageview.Msg:
		m.updatePage(msg)
		return m, nil
	case chunksview.Msg:
		m.updateAudit(msg)
		return m, nil
	case chunksview.TickMsg:
		return m, m.updateAuditTick(msg)
	case split.Msg:
		return m, m.updateSplit(msg)
	case backendOpenedMsg:
		return m.updateOpened(msg)
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
		url, cmd := m.links.Update(msg)
		if url != "" {
			m.detail.LinkChanged(url)
			m.splitDetail.LinkChanged(url)
			m.answer.LinkChanged(url)
		}
		return m, cmd
	case clipboardMsg:
		m.setStatus(clipboardStatus(msg))
		if msg.OSC52 != "" {
			return m, tea.SetClipboard(msg.OSC52)
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
	}
	return nil, nil
}

// routeFeature hands a feature's message (settings, rendering, expected
// sources, explanation and what-if, golden file, turns, eval, answer,
// judge, spinners) to its owner; nil when msg is none of them.
func (m Model) routeFeature(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case settings.ChangedMsg:
		return m.updateSettings(msg)
	case settings.CompareMsg:
		m.setCompare(msg.Setup)
		return m, nil
	case common.RenderedMsg:
		var cmd tea.Cmd
		cmd = m.detail.Update(msg)
		return m, tea.Batch(cmd, m.splitDetail.Update(msg))
	case sourcesMsg:
		m.updateSources(msg)
		return m, nil
	case diagMsg:
		return m, m.updateDiag(msg)
	case explainedMsg:
		return m, m.updateExplained(msg)
	case editReadyMsg:
		return m, m.updateEditReady(msg)
	case editedMsg:
		return m, m.updateEdited(msg)
	case whatIfMsg:
		return m, m.updateWhatIf(msg)
	case savedMsg:
		m.updateSaved(msg)
		return m, nil
	case settings.GoldenMsg:
		m.goldenPath, m.confirmSave = msg.Path, 0
		m.setStatus(statusOK, "S now saves the turn on show to "+termsafe.Line(msg.Path)+".")
		return m, nil
	case turns.ShowMsg:
		return m, m.bringBack(msg.Index)
	case evalProgressMsg, evalCaseMsg, evalDoneMsg:
		return m.updateEval(msg)
	case answer.DeltaMsg, answer.DoneMsg:
		return m, m.answer.Update(msg)
	case judgedMsg:
		return m, m.updateJudged(msg)
	case spinner.TickMsg:
		if msg.ID == m.answer.Spin.ID() {
			return m, m.answer.Update(msg)
		}
		if msg.ID == m.split.Spin.ID() {
			return m, m.split.Tick(msg)
		}
		if !m.busy() {
			return m, nil
		}
		var cmd tea.Cmd
		m.spinner, cmd = m.spinner.Update(msg)
		return m, cmd
	}
	return nil, nil
}

// typing reports whether keys go to a text box.
func (m *Model) typing() bool {
	if m.search.typing {
		return true
	}
	s := m.slot(m.focus)
	return s.text || common.IsModal(s.pane(m))
}

// inEval reports whether the eval view has the keyboard.
func (m *Model) inEval() bool { return m.slot(m.focus).rings&ringEval != 0 }

// globals are the keys that act wherever the focus is (letters only
// outside text boxes: their bindings are disabled while typing).
func (m *Model) globals() []action {
	k := m.keys
	// One allocation: the keys below and the panes' open keys.
	acts := make([]action, 0, 24+len(m.slots))
	acts = append(acts, []action{
		{&k.NextPane, func(m *Model) tea.Cmd { return m.cycleFocus(1) }},
		{&k.PrevPane, func(m *Model) tea.Cmd { return m.cycleFocus(-1) }},
		{&k.ToggleMode, (*Model).toggleMode},
		{&k.RunAny, func(m *Model) tea.Cmd {
			if m.inEval() {
				return m.startEval()
			}
			return m.runAndLook()
		}},
		{&k.Help, (*Model).toggleKeys},
		{&k.Leave, (*Model).leave},
		{&k.Eval, (*Model).openEval},
		{&k.Dropped, func(m *Model) tea.Cmd {
			next, cmd := m.updateSettings(settings.ChangedMsg{Params: m.params, ToggleDropped: true})
			*m = next.(Model)
			return cmd
		}},
		{&k.Rerank, (*Model).toggleRerank},
		{&k.CopyURL, (*Model).copyURL},
		{&k.CopyContext, (*Model).copyContext},
		{&k.OpenURL, (*Model).openURL},
		{&k.Search, (*Model).startSearch},
		{&k.Answer, (*Model).askAnswer},
		{&k.Page, (*Model).openPage},
		{&k.Chunks, (*Model).openChunks},
		{&k.Expect, (*Model).openExpect},
		{&k.ANNCheck, (*Model).runANNCheck},
		{&k.Split, (*Model).toggleSplit},
		{&k.Judge, (*Model).startJudge},
		{&k.Explain, (*Model).explainSelected},
		{&k.Edit, (*Model).editSelected},
	}...)
	for i := range m.slots {
		if s := &m.slots[i]; s.open != nil {
			id := s.id
			acts = append(acts, action{s.open, func(m *Model) tea.Cmd { return m.setFocus(id) }})
		}
	}
	return acts
}

// updateKey handles global keys, then gives the key to the focused pane.
func (m *Model) updateKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if m.editArea != nil {
		return m.updateEditArea(msg)
	}
	if key.Matches(msg, k.Quit, k.QuitQ) {
		m.stop()
		return tea.Quit
	}
	if m.tooSmall() {
		return nil
	}
	if m.confirmSave != 0 && !key.Matches(msg, k.SaveCase) {
		m.confirmSave = 0
		m.setStatus(statusInfo, "Not replaced: the golden file keeps its case.")
	}
	if cmd, ok := m.updateSearchKey(msg); ok {
		return cmd
	}
	if m.focus == focusResults && m.results.Pick != nil {
		return m.updatePicker(msg)
	}
	if common.IsModal(m.slot(m.focus).pane(m)) {
		cmd := m.updateFocused(msg)
		m.syncBindings()
		return cmd
	}
	if m.fullHelp && !m.typing() && m.keyHelp.Scroll(k, msg) {
		return nil
	}
	for _, a := range m.globals() {
		if key.Matches(msg, *a.key) {
			cmd := a.do(m)
			return cmd
		}
	}
	return m.updateFocused(msg)
}

// updatePaste puts pasted text in the text box it is meant for.
func (m *Model) updatePaste(msg tea.PasteMsg) tea.Cmd {
	if m.tooSmall() {
		return nil
	}
	if m.search.typing {
		return m.editSearch(msg)
	}
	var cmd tea.Cmd
	if !m.typing() {
		target := focusQuery
		if m.mode == retrieval.ModeSelectedText {
			target = focusSelText
		}
		cmd = m.setFocus(target)
	}
	before := m.askChars()
	cmd = tea.Batch(cmd, m.slot(m.focus).pane(m).Update(msg))
	m.notePasteCut(before, msg.Content)
	return cmd
}

// updateFocused gives a key to the focused pane only, after the keys its
// registration binds to the root.
func (m *Model) updateFocused(msg tea.KeyPressMsg) tea.Cmd {
	s := m.slot(m.focus)
	for _, a := range s.actions {
		if key.Matches(msg, *a.key) {
			cmd := a.do(m)
			return cmd
		}
	}
	p := s.pane(m)
	cmd := p.Update(msg)
	if common.IsModal(p) {
		m.syncBindings()
	}
	if s.after != nil {
		cmd = tea.Batch(cmd, s.after(m))
	}
	return cmd
}

// ring is the tab order for the current view and mode, in registration
// order.
func (m *Model) ring() []focusID {
	want := ringNormal
	switch {
	case m.inEval():
		want = ringEval
	case m.split.Open:
		want = ringSplit
	case m.mode == retrieval.ModeSelectedText:
		want = ringSelected
	}
	var ids []focusID
	for _, s := range m.slots {
		if s.rings&want != 0 {
			ids = append(ids, s.id)
		}
	}
	return ids
}

// cycleFocus moves the focus dir steps along the ring; from a pane
// outside the ring (settings) it enters at the end.
func (m *Model) cycleFocus(dir int) tea.Cmd {
	ring := m.ring()
	i := -1
	for j, f := range ring {
		if f == m.focus {
			i = j
		}
	}
	if i < 0 {
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
	if m.inEval() && m.evals.running {
		m.cancelEval()
		return nil
	}
	if m.judgeBusy() && !m.inEval() {
		m.cancelJudge(true)
		return nil
	}
	if m.inSplit() {
		return m.splitLeave()
	}
	if m.focus == focusResults {
		return m.setFocus(focusQuery)
	}
	if m.focus == focusPage {
		return m.closePage()
	}
	if m.focus == focusChunks {
		return m.closeChunks()
	}
	return m.setFocus(focusResults)
}

// setFocus moves the keyboard to f, updating what the side column shows
// and which bindings are live.
func (m *Model) setFocus(f focusID) tea.Cmd {
	s := m.slot(m.splitFocus(f))
	m.focus = s.id
	if s.place == placeSide {
		m.right = s.id
	}
	m.answerLeft()
	m.syncBindings()
	for i := range m.slots {
		m.slots[i].pane(m).Blur()
	}
	return tea.Batch(s.pane(m).Focus(), m.layout())
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
	q.Filters = settings.CloneFilters(m.params.Filters)
	q.Rerank = m.rerankFor(q.Mode)
	q.SearchMode = m.searchModeFor(q.Mode)
	q.Exact = m.params.Exact && q.Mode != retrieval.ModeSelectedText
	return q
}

// run starts a retrieval for what the user typed.
func (m *Model) run() tea.Cmd {
	q := m.buildQuery()
	if _, _, _, err := retrieval.Normalize(q); err != nil {
		m.setStatus(statusErr, common.ErrorText(err))
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
	m.answer.Cancel()
	m.seq++
	ctx, cancel := common.WithTimeout(m.base, m.opts.Timeout)
	m.cancel = cancel
	m.running = true
	last := q
	m.last = &last
	m.setStatus(statusInfo, "Searching…")
	if q.Mode == retrieval.ModeSelectedText {
		m.setStatus(statusInfo, "Grounding on the selection…")
	}
	return tea.Batch(m.retrieveOrHoldCmd(ctx, q), m.spinner.Tick)
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
		m.setStatus(statusErr, common.ErrorText(msg.Err))
		return m, m.backToAsk()
	}
	n := len(m.turns.Turns)
	if n > 0 {
		n = m.turns.Turns[n-1].N
	}
	m.turns.Remember(m.results.SelectedKey())
	nt := common.Turn{N: n + 1, Query: msg.Query, Result: msg.Result}
	// The expected sources stay with their question: its re-runs (other
	// settings, rerank) say again where they went.
	var diag tea.Cmd
	if len(m.expect) > 0 && msg.Query.Question == m.expectQuestion && msg.Query.Mode != retrieval.ModeSelectedText && m.opts.Expect.Diagnose != nil {
		nt.Expect = slices.Clone(m.expect)
	} else {
		m.expect, m.expectQuestion = nil, ""
	}
	nt.Marks = m.carriedMarks(msg)
	nt.CaseFile = m.carriedCaseFile(msg)
	i := m.turns.Add(nt)
	if len(nt.Expect) > 0 {
		diag = m.diagnose(&m.turns.Turns[i], false)
	}
	cmd := tea.Batch(m.showTurn(i), diag)
	res := msg.Result
	text := strconv.Itoa(len(res.Hits)) + " " + present.Plural(len(res.Hits), "result", "results")
	if d := len(res.Dropped); d > 0 {
		text += " · " + strconv.Itoa(d) + " left out"
	}
	if res.Truncated {
		text += " · question cut to " + present.Int(retrieval.MaxQuestionLen) + " of " + present.Int(res.OriginalLength) + " chars"
	}
	text += " · " + present.Timings(res.Timings, res.Mode)
	if msg.Seq == m.caseSeq && m.caseLabel != "" {
		text = m.caseLabel + " · " + text
	}
	kind := statusOK
	if e := rerankFailure(res); e != "" {
		kind, text = statusErr, e+" · "+text
	}
	m.setStatus(kind, text)
	return m, tea.Batch(cmd, m.links.Check(res), m.autoAnswer(), m.carryJudge(&m.turns.Turns[i]))
}

// showTurn puts turn i in the result, detail and context panes.
func (m *Model) showTurn(i int) tea.Cmd {
	if i < 0 || i >= len(m.turns.Turns) {
		return nil
	}
	m.turns.SetCurrent(i)
	t := &m.turns.Turns[i]
	m.ctxPane.SetResult(t.Result)
	if i != len(m.turns.Turns)-1 {
		m.setStatus(statusInfo, "Showing turn #"+strconv.Itoa(t.N)+": "+termsafe.Line(t.Query.Question))
	}
	var expected []retrieval.Expected
	if t.Diag != nil {
		expected = t.Diag.Expected
	}
	m.results.Marks = t.Marks
	m.results.Judge = t.Judge
	m.results.SetResult(t.Result, expected)
	m.results.SelectKey(t.Selected)
	m.answer.Show(t)
	return tea.Batch(m.syncDetail(), m.splitFollow())
}

// followCursor shows the result under the cursor in the detail pane when
// a key moved it.
func (m *Model) followCursor() tea.Cmd {
	if !m.results.Moved {
		return nil
	}
	m.results.Moved = false
	return m.syncDetail()
}

// syncDetail shows the selected result in the detail pane. It runs in the
// Update that moved the selection: a command would let replies of keys
// pressed together land out of order and leave the detail behind.
func (m *Model) syncDetail() tea.Cmd {
	it, _ := m.results.Selected()
	return m.detail.SetItem(it)
}

// updateStats records the collection's stats.
func (m Model) updateStats(msg statsMsg) Model {
	if msg.Err != nil {
		m.setStatus(statusErr, common.ErrorText(msg.Err))
		return m
	}
	st := msg.Stats
	m.stats = &st
	if st.Points > 0 || m.backend.Points < 0 {
		m.backend.Points = st.Points
	}
	if st.Search != "" {
		m.backend.Search = st.Search
	}
	m.settings.SetFacets(st.Facets)
	if st.Status == retrieval.StatusNotFound {
		m.setStatus(statusErr, "Collection "+termsafe.Line(st.Collection)+" not found. Set QDRANT_COLLECTION to an existing collection.")
	}
	return m
}

// updateSettings applies new settings and schedules a re-run.
func (m Model) updateSettings(msg settings.ChangedMsg) (tea.Model, tea.Cmd) {
	changed := m.params.TopK != msg.Params.TopK || m.params.Threshold != msg.Params.Threshold ||
		m.params.NoDedup != msg.Params.NoDedup || present.Filters(m.params.Filters) != present.Filters(msg.Params.Filters) ||
		rerankChanged(m.params.Rerank, msg.Params.Rerank, m.rerankModel, cmp.Or(msg.RerankModel, m.rerankModel)) ||
		m.keepSearchMode(msg.Params.SearchMode) != m.params.SearchMode || m.params.Exact != msg.Params.Exact
	m.params = m.withParamsFrom(msg.Params)
	m.applyRerankModel(msg.RerankModel)
	m.settings.Params = m.params
	m.settings.Params.Filters = settings.CloneFilters(m.params.Filters)
	var cmds []tea.Cmd
	if msg.ToggleDropped {
		m.showDropped = !m.showDropped
		m.results.SetShowDropped(m.showDropped)
		cmds = append(cmds, m.syncDetail())
		m.noteNothingLeftOut()
	}
	m.settings.ShowDropped = m.showDropped
	if changed && m.last != nil {
		m.rerunSeq++
		cmds = append(cmds, rerunCmd(rerunDelay, m.rerunSeq))
	}
	return m, tea.Batch(cmds...)
}

// noteNothingLeftOut says in the status line that the left-out toggle
// has nothing to show in the result on show (issue 25, point 12: x gave
// no feedback).
func (m *Model) noteNothingLeftOut() {
	state := "hidden"
	if m.showDropped {
		state = "shown"
	}
	switch {
	case !m.results.Has:
		m.setStatus(statusInfo, "Hits left out will be "+state+": no result yet.")
	case len(m.results.Res.Dropped) == 0:
		m.setStatus(statusInfo, "Nothing was left out of this result (no hit below the threshold or duplicate); hits left out will be "+state+".")
	}
}

func (m *Model) withParamsFrom(p retrieval.Query) retrieval.Query {
	return retrieval.Query{TopK: p.TopK, Threshold: p.Threshold, NoDedup: p.NoDedup, Filters: settings.CloneFilters(p.Filters), Rerank: m.keepRerank(p),
		SearchMode: m.keepSearchMode(p.SearchMode), Exact: p.Exact}
}

// keepRerank is the rerank settings p leaves: a selected-text query
// reranks nothing and names none, so the ones set now stay; a query that
// leaves the candidates open gets the default's number.
func (m *Model) keepRerank(p retrieval.Query) retrieval.RerankOptions {
	r := p.Rerank
	if p.Mode == retrieval.ModeSelectedText {
		r = m.params.Rerank
	}
	if r.Candidates == 0 {
		r.Candidates = retrieval.DefaultRerankCandidates
	}
	return r
}

// copyURL copies the selected hit's citation URL.
func (m *Model) copyURL() tea.Cmd {
	u, ok := m.citationURL("copy", func(err error) string {
		return "Not copied: " + err.Error() + "; it could run commands when pasted."
	})
	if !ok {
		return nil
	}
	return m.copy("the citation URL", u)
}

// citationURL returns the selected hit's citation URL once termsafe.URL
// passes it. Otherwise it says why in the status line, "No citation URL
// to <verb>: …" or refused's words for termsafe's error, and reports
// false.
func (m *Model) citationURL(verb string, refused func(error) string) (string, bool) {
	it, ok := m.actionItem()
	switch {
	case !ok:
		m.setStatus(statusErr, "No citation URL to "+verb+": select a result first.")
		return "", false
	case it.Hit.Citation.URL == "":
		m.setStatus(statusErr, "No citation URL to "+verb+": this result has none (its chunk has neither a URL nor a doc path).")
		return "", false
	}
	u, err := termsafe.URL(it.Hit.Citation.URL)
	if err != nil {
		m.setStatus(statusErr, refused(err))
		return "", false
	}
	return u, true
}

// copyContext copies the grounded instruction and context.
func (m *Model) copyContext() tea.Cmd {
	if !m.ctxPane.Has {
		m.setStatus(statusErr, "No grounded context yet: run a query first.")
		return nil
	}
	g := m.ctxPane.Grounded
	text := termsafe.Outbound(g.Instruction + "\n\n" + g.Context)
	return m.copy("the grounded context ("+present.Int(len([]rune(text)))+" chars)", text)
}

// openURL opens the selected hit's citation in the browser.
func (m *Model) openURL() tea.Cmd {
	u, ok := m.citationURL("open", func(err error) string { return "Not opened: " + err.Error() + "." })
	if !ok {
		return nil
	}
	open := m.opts.OpenURL
	if open == nil {
		open = DefaultOpenURL
	}
	return openURLCmd(open, u)
}

func (m *Model) setStatus(kind statusKind, text string) {
	m.statusKind, m.status = kind, termsafe.Line(text)
}

func (m *Model) tooSmall() bool { return m.width < minWidth || m.height < minHeight }

// Focus returns the name of the focused pane (for tests).
func (m Model) Focus() string { return string(m.focus) }

// Status returns the status line's text (for tests).
func (m Model) Status() string { return m.status }

// busy reports whether work the status line spins for is in flight: a
// retrieval, an eval or a judge run.
func (m *Model) busy() bool { return m.running || m.evals.running || m.judgeBusy() }

// Running reports whether a retrieval is in flight (for tests).
func (m Model) Running() bool { return m.running }

// EvalRunning reports whether an eval is in flight (for tests).
func (m Model) EvalRunning() bool { return m.evals.running }

// Turns returns the questions of the session's turns, oldest first (for
// tests).
func (m Model) Turns() []string {
	out := make([]string, len(m.turns.Turns))
	for i, t := range m.turns.Turns {
		out[i] = t.Query.Question
	}
	return out
}
