// Package ui is ragscope's interactive retrieval explorer, built on Bubble
// Tea. It sees only the retrieval types and the small seams in Options: a
// Retriever, a stats function, optional link checking, clipboard and
// browser functions. It never imports a backend.
//
// The root Model routes messages: global keys first, then key messages to
// the focused pane only, then result messages to their owner whatever the
// focus. Every pane keeps one contract (pane.go) and is registered once:
// the focus ring, the layout, the routing and the help are built from the
// registrations. Every retrieval is a command that captures its inputs, carries a
// sequence number and runs under its own cancellable context.
package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/chunkaudit"
	"ragscope/ui/browser"
	"ragscope/ui/chunksview"
	"ragscope/ui/clipboard"
	"ragscope/ui/common"
	"ragscope/ui/evalview"
	"ragscope/ui/header"
	"ragscope/ui/results"
	"ragscope/ui/settings"
)

// Retriever answers a query. *retrieval.Pipeline implements it.
type Retriever interface {
	Retrieve(ctx context.Context, q retrieval.Query) (retrieval.Result, error)
}

// BackendInfo describes the backend for the header (header.Backend).
type BackendInfo = header.Backend

// LinkStatus is what a link checker knows about a citation URL.
type LinkStatus = common.LinkStatus

// Link states reported by a LinkStatus function (see common.LinkOK).
const (
	LinkOK            = common.LinkOK
	LinkPageMissing   = common.LinkPageMissing
	LinkAnchorMissing = common.LinkAnchorMissing
	LinkRedirected    = common.LinkRedirected
	LinkUnknown       = common.LinkUnknown
)

// EvalSettings are the explorer's settings a golden-set run searches
// with, so the eval view scores what the explorer shows.
type EvalSettings = evalview.Settings

// DefaultGoldenFile is the golden file S saves to when
// Options.GoldenFile is empty: golden.yaml in the working folder.
const DefaultGoldenFile = settings.DefaultGoldenFile

// DocSource is one entry of the expected-source picker (w): a page or a
// section of it.
type DocSource = results.DocSource

// SystemClipboard writes text to the system clipboard through the first
// of xclip, xsel, wl-copy, pbcopy or clip.exe that is installed.
func SystemClipboard(text string) error { return clipboard.System(text) }

// Options configure the explorer. Retriever is required; every other
// field is optional.
type Options struct {
	// Retriever answers queries.
	Retriever Retriever
	// Stats describes the collection: point count for the header and the
	// filter values (Stats.Facets "module", "chapter", "content_type", "tag").
	Stats func(ctx context.Context) (retrieval.Stats, error)
	// Backend is shown in the header.
	Backend BackendInfo
	// Defaults are the settings to start with (TopK, Threshold, NoDedup,
	// Filters). A zero TopK means retrieval.DefaultTopK.
	Defaults retrieval.Query
	// HistoryFile keeps questions across sessions ("" keeps them in memory).
	HistoryFile string
	// HistoryMax bounds the history; 0 means history.DefaultMax.
	HistoryMax int
	// Timeout bounds each retrieval, stats or link call; 0 means no limit.
	Timeout time.Duration
	// LinkStatus checks a citation URL; nil hides link states.
	LinkStatus func(ctx context.Context, url string) (common.LinkStatus, error)
	// Clipboard writes text to the system clipboard; nil uses xclip, xsel,
	// wl-copy, pbcopy or clip.exe when one is installed. Inside tmux copies go to
	// tmux's buffer first; without either they go to the terminal's
	// clipboard by OSC 52 (it works over SSH).
	Clipboard func(text string) error
	// Getenv looks up environment variables ($TMUX: copies inside tmux go
	// through tmux); nil uses os.Getenv.
	Getenv func(key string) string
	// OpenURL opens a URL in the browser; nil uses browser.Open
	// (xdg-open, open or rundll32).
	OpenURL func(url string) error
	// Eval runs a golden set ("" is the default set) for the eval view,
	// streaming each finished case and the progress; nil hides the view.
	Eval EvalFunc
	// GoldenFile is the golden set S saves the turn on show to, as a
	// case (a YAML file, created when missing; relative to the working
	// folder); "" is DefaultGoldenFile. The settings change it.
	GoldenFile string
	// EvalDefault names the set an empty path runs (e.g. "demo golden
	// set"); "" when there is none and a path is needed.
	EvalDefault string
	// Rerank offers reranking (a toggle key, settings rows, movement in
	// the results); zero hides it.
	Rerank RerankSetup
	// LocalSearch offers the local index's search modes as a settings
	// row; zero hides it. The Retriever must honour Query.SearchMode.
	LocalSearch LocalSearchSetup
	// PageChunks lists the chunks of the page at a doc path in reading
	// order (a retrieval.PageChunker) for the page view (key p on a
	// result); nil hides the view.
	PageChunks func(ctx context.Context, docPath string) ([]retrieval.Chunk, error)
	// Audit audits every chunk of the collection (chunkaudit) for the
	// Chunks view (key C); nil hides the view. The report is kept for the
	// session.
	Audit chunksview.AuditFunc
	// Expect offers "Why not this chunk?": an expected-source picker (w)
	// whose rank, score and cut show in the results, and the ANN check
	// (W); zero hides both.
	Expect ExpectSetup
	// Explain offers "why this score" on the selected row (key X) and
	// the what-if editor (key E); zero hides both.
	Explain ExplainSetup
	// EmbedLimit is the embedding model's input limit (the provider
	// table's) that marks the chunks the page view shows over it; the
	// zero value checks no limit.
	EmbedLimit chunkaudit.Limit
	// Compare offers the split view (key V): the question on show beside
	// another named setup's ranking; zero makes the key say how to get
	// one.
	Compare CompareSetup
	// Note is shown in the status line at start (for example why normal
	// search is unavailable).
	Note string
	// Generator answers the turn on show in the Answer pane; nil shows
	// ChatHint there instead.
	Generator retrieval.Generator
	// ChatHint says which settings enable a chat model.
	ChatHint string
	// Judge grades the hits of the turn on show and checks its answer
	// (key J); zero leaves the key saying what enables a chat model
	// (ChatHint).
	Judge JudgeSetup
	// Settle runs once, off the UI goroutine, shortly after the first
	// frame: housekeeping that must not delay it (the CLI gives back the
	// memory left over from opening the backend). nil does nothing.
	Settle func()
	// Open, when set, opens the backend after the first frame: the
	// explorer draws at once with a loading line and then takes Retriever,
	// Stats, LinkStatus, Eval, EvalDefault, Backend, Note, Settle,
	// PageChunks, Audit, Expect, EmbedLimit, Compare and the rerank, search, chat and judge setups from
	// the options Open returns (Retriever may then be nil here). A
	// question asked meanwhile runs once the backend is open. An error
	// quits the explorer and Run returns it.
	Open func(ctx context.Context) (Options, error)
}

// errNoRetriever is a programming error: the explorer has nothing to ask.
var errNoRetriever = errors.New("ui: no retriever")

// readyStatus is the status line of an explorer ready for a question.
const readyStatus = "Ready. Type a question and press enter."

// Run runs the explorer on the terminal until the user quits or ctx ends,
// and returns after the terminal is restored. Mouse clicks and the wheel
// are reported (shift+drag selects text in most terminals); bracketed
// paste is on. The colour
// profile comes from the environment (NO_COLOR turns colours off); the
// background is asked of the terminal once the program runs, never
// blocking the first frame.
func Run(ctx context.Context, opts Options) error {
	if opts.Retriever == nil && opts.Open == nil {
		return errNoRetriever
	}
	if opts.Clipboard == nil {
		opts.Clipboard = clipboard.System
	}
	if opts.OpenURL == nil {
		opts.OpenURL = browser.Open
	}
	profile := startProfile()
	m := newModel(ctx, opts, common.DefaultStyles(true, profile))
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithColorProfile(profile))
	final, err := p.Run()
	if fm, ok := final.(Model); ok {
		fm.stop()
		if fm.open.err != nil {
			return fm.open.err
		}
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	if err != nil {
		return fmt.Errorf("run terminal UI: %w", err)
	}
	return nil
}

// startProfile is standard output's colour profile, detected once per
// process: Lip Gloss detects it at its initialisation (lipgloss.Writer,
// from os.Stdout and the environment), and inside tmux without COLORTERM
// each detection runs `tmux info` (30 ms or more before the first frame).
// Bubble Tea is handed the same profile so it does not detect a third time.
func startProfile() colorprofile.Profile { return lipgloss.Writer.Profile }

// WarmUp does ahead of time the one-time work the first frame would
// otherwise wait for: Bubble Tea's renderer measures every cell of it,
// and the rune-width tables behind those measurements are built on first
// use (about 20 ms, as long as the rest of the first frame). Run it on
// another goroutine while the backend opens. It is safe to call any time,
// from any goroutine, any number of times.
func WarmUp() {
	_ = ansi.StringWidthWc(warmUpText) + ansi.StringWidth(warmUpText)
}

// warmUpText has the kinds of runes a frame draws: borders, arrows, text.
const warmUpText = "╭─ Ask › ─╮ │ ↑↓ • ✓ ✗ …"

// New returns the explorer's root model with styles for the colour profile
// of standard output, for tests and embedding in another program. The
// program's colour profile and background messages restyle it.
func New(opts Options) Model {
	return newModel(context.Background(), opts, common.DefaultStyles(true, colorprofile.Detect(os.Stdout, os.Environ())))
}
