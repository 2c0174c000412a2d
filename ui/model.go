package ui

import (
	"cmp"
	"context"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"ragscope/retrieval"
	"ragscope/termsafe"
	"ragscope/ui/answer"
	"ragscope/ui/chunksview"
	"ragscope/ui/clipboard"
	"ragscope/ui/common"
	"ragscope/ui/contextpane"
	"ragscope/ui/detail"
	"ragscope/ui/evalview"
	"ragscope/ui/goldencase"
	"ragscope/ui/history"
	"ragscope/ui/judgerun"
	"ragscope/ui/keyhelp"
	"ragscope/ui/linkcheck"
	"ragscope/ui/pageview"
	"ragscope/ui/query"
	"ragscope/ui/results"
	"ragscope/ui/searchbar"
	"ragscope/ui/selection"
	"ragscope/ui/settings"
	"ragscope/ui/split"
	"ragscope/ui/turns"
	"ragscope/ui/whatif"
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

// statusKind colours the status line (common.StatusKind).
type statusKind = common.StatusKind

const (
	statusInfo = common.StatusInfo
	statusOK   = common.StatusOK
	statusErr  = common.StatusErr
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
	clip clipboard.Env

	// links checks the citation URLs of the result on show.
	links *linkcheck.Pool

	// evals runs golden sets for the eval view.
	evals evalview.Runner
	// open is the backend opening after the first frame (Options.Open).
	open backendOpen
	// judging is the judge run in flight (key J).
	judging judgerun.Run

	expectState
	// whatif is the explanation (key X) and the what-if edit (key E).
	whatif *whatif.Model
	// opened is the eval case opened as a query (Enter in the eval view).
	opened goldencase.Opened
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
	search      *searchbar.Model
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
		Filters:   common.CloneFilters(opts.Defaults.Filters),
	}
	hmax := opts.HistoryMax
	if hmax <= 0 {
		hmax = history.DefaultMax
	}
	links := linkcheck.New(ctx, opts.Timeout, opts.LinkStatus)
	h := help.New()
	sp := spinner.New(spinner.WithSpinner(spinner.Dot))
	splitDetail := ptr(detail.New(keys, st, links.States))
	m := Model{
		opts: opts, base: ctx, keys: keys, st: st,
		right: focusDetail, mode: retrieval.ModeNormal,
		panes: panes{
			query:       ptr(query.New(keys, st, hmax)),
			sel:         ptr(selection.New(keys, st)),
			results:     ptr(results.New(keys, st, links.States)),
			detail:      ptr(detail.New(keys, st, links.States)),
			ctxPane:     ptr(contextpane.New(keys, st)),
			turns:       ptr(turns.New(keys, st)),
			settings:    ptr(settings.New(keys, st, params)),
			eval:        ptr(evalview.New(keys, st, opts.EvalDefault)),
			page:        ptr(pageview.New(keys, st)),
			chunks:      ptr(chunksview.New(keys, st)),
			split:       ptr(split.New(keys, st, splitDetail)),
			splitDetail: splitDetail,
			answer:      ptr(answer.New(ctx, keys, st, links.States, opts.Generator, opts.ChatHint)),
			help:        h,
			keyHelp:     ptr(keyhelp.New(st)),
			search:      searchbar.New(st),
			spinner:     sp,
		},
		params:      params,
		backend:     opts.Backend,
		links:       links,
		clip:        newClipEnv(opts),
		evals:       evalview.NewRunner(ctx, opts.Eval),
		whatif:      whatif.New(ctx, opts.Explain, opts.Timeout),
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
	m.search.SetStyles(st)
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
func (m *Model) busy() bool { return m.running || m.evals.Running() || m.judging.Busy() }

// Running reports whether a retrieval is in flight (for tests).
func (m Model) Running() bool { return m.running }

// EvalRunning reports whether an eval is in flight (for tests).
func (m Model) EvalRunning() bool { return m.evals.Running() }

// Turns returns the questions of the session's turns, oldest first (for
// tests).
func (m Model) Turns() []string {
	out := make([]string, len(m.turns.Turns))
	for i, t := range m.turns.Turns {
		out[i] = t.Query.Question
	}
	return out
}
