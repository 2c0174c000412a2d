package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"ragscope/internal/platform"
	"ragscope/retrieval"
	"ragscope/ui"
)

// runTUI runs the interactive explorer, which opens the backend after its
// first frame. Without a terminal on both ends it prints the help instead,
// so `ragscope | cat` does not hang.
func (a *App) runTUI(cmd *cobra.Command) error {
	if !isTerminal(a.Stdin) || !isTerminal(a.Stdout) {
		return cmd.Help()
	}
	restore, err := a.routeLogs()
	if err != nil {
		return err
	}
	defer restore()

	// The first frame's one-time work runs on the other core while the
	// program starts.
	go ui.WarmUp()
	return ui.Run(cmd.Context(), a.tuiDeferred())
}

// tuiDeferred is the explorer's options with the backend opened after
// the first frame: the user sees the screen while the index loads or the
// server answers.
func (a *App) tuiDeferred() ui.Options {
	opts := a.tuiBase()
	opts.Open = func(ctx context.Context) (ui.Options, error) {
		o, err := a.tuiOptions(ctx)
		o.Settle = a.settleHeap
		return o, err
	}
	return opts
}

// settleHeap gives back the garbage that opening the backend left
// (tokens, n-gram tables, decoded index sections) and keeps the heap
// tight afterwards (a soft limit: the live heap of a session is a few MB,
// so collections stay rare and cheap). The explorer runs it after its
// first frame: a full collection before it would only delay the frame,
// and the peak resident size is reached before it either way.
func (a *App) settleHeap() {
	debug.FreeOSMemory()
	if _, set := a.LookupEnv("GOMEMLIMIT"); !set {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		debug.SetMemoryLimit(int64(ms.HeapInuse) + tuiHeapHeadroom)
	}
}

// tuiOptions opens the backend and builds the explorer's options: the
// retriever (selected-text only when credentials are missing, with a
// note saying which variable to set), stats, link states, eval and the
// header's backend description.
func (a *App) tuiOptions(ctx context.Context) (ui.Options, error) {
	opts := a.tuiBase()
	be, err := a.OpenBackend(ctx, false)
	switch {
	case err == nil:
	case errors.Is(err, retrieval.ErrConfig):
		// Missing credentials: selected-text mode still works, and the
		// status line says which variable to set.
		be, err = a.OpenBackend(ctx, true)
		if err != nil || be.Pipeline == nil {
			return ui.Options{}, fmt.Errorf("open backend: %w", err)
		}
		cfgErr := a.Cfg.Validate()
		opts.Note = "Search unavailable: " + strings.TrimRight(Message(cfgErr), ".") + ". Selected-text mode (ctrl+t) still works."
		opts.Retriever = selectionOnly{p: be.Pipeline, err: cfgErr}
	default:
		return ui.Options{}, err
	}
	if opts.Retriever == nil {
		cr := &checkedRetriever{be: be}
		opts.Retriever = cr
		opts.Rerank = a.tuiRerank(be, cr)
		opts.LocalSearch = a.tuiLocalSearch(be)
		if be.Pipeline.Store != nil {
			store := be.Pipeline.Store
			opts.Stats = store.Stats
		}
	}
	var linkNote string
	opts.LinkStatus, linkNote = a.linkStatus(be)
	if opts.Note == "" {
		opts.Note = linkNote
	}
	opts.Eval, opts.EvalDefault = a.tuiEval(be)
	opts.Generator, opts.ChatHint = a.tuiGenerator()
	opts.Backend = ui.BackendInfo{
		Kind:       string(be.Kind),
		Label:      be.Label,
		Collection: be.Collection,
		Model:      tuiModelLabel(be, opts.LocalSearch),
		Points:     be.Points,
	}
	return opts, nil
}

// tuiBase is the explorer's options that need no backend: the starting
// settings, the history file and the per-call timeout.
func (a *App) tuiBase() ui.Options {
	return ui.Options{
		Defaults: retrieval.Query{
			TopK:      a.Cfg.TopK,
			Threshold: a.Cfg.Threshold,
			NoDedup:   !a.Cfg.Dedup,
		},
		HistoryFile: a.historyFile(),
		Timeout:     a.Cfg.Timeout,
	}
}

// tuiHeapHeadroom is what the explorer's soft heap limit allows above the
// heap in use once the backend is open (GOMEMLIMIT overrides the limit).
const tuiHeapHeadroom = 16 << 20

// checkedRetriever runs the backend's pre-flight check (for Qdrant: the
// collection exists and its vector size fits the model) before the first
// search, so a mismatch is a clear error rather than a confusing one. A
// failed check is tried again on the next query.
type checkedRetriever struct {
	be      *Backend
	mu      sync.Mutex
	checked bool
}

// Retrieve implements ui.Retriever.
func (c *checkedRetriever) Retrieve(ctx context.Context, q retrieval.Query) (retrieval.Result, error) {
	return c.retrieveWith(ctx, c.be.Pipeline, q)
}

// retrieveWith runs the check, then q on p (the backend's pipeline, or a
// copy of it with another reranker).
func (c *checkedRetriever) retrieveWith(ctx context.Context, p *retrieval.Pipeline, q retrieval.Query) (retrieval.Result, error) {
	if q.Mode != retrieval.ModeSelectedText {
		c.mu.Lock()
		if !c.checked {
			if err := c.be.Check(ctx); err != nil {
				c.mu.Unlock()
				return retrieval.Result{}, err
			}
			c.checked = true
		}
		c.mu.Unlock()
	}
	return p.Retrieve(ctx, q)
}

// selectionOnly answers selected-text queries and reports the
// configuration error for searches.
type selectionOnly struct {
	p   *retrieval.Pipeline
	err error
}

// Retrieve implements ui.Retriever.
func (s selectionOnly) Retrieve(ctx context.Context, q retrieval.Query) (retrieval.Result, error) {
	if q.Mode != retrieval.ModeSelectedText {
		return retrieval.Result{}, s.err
	}
	return s.p.Retrieve(ctx, q)
}

// routeLogs keeps library logs off the terminal the TUI owns: to the
// --debug file when given, otherwise nowhere. The returned func restores
// the previous loggers.
func (a *App) routeLogs() (func(), error) {
	prevSlog := slog.Default()
	prevOut, prevFlags, prevPrefix := log.Writer(), log.Flags(), log.Prefix()
	restore := func() {
		slog.SetDefault(prevSlog)
		log.SetOutput(prevOut)
		log.SetFlags(prevFlags)
		log.SetPrefix(prevPrefix)
	}
	if a.Cfg.DebugLog == "" {
		log.SetOutput(io.Discard)
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
		return restore, nil
	}
	f, err := tea.LogToFile(a.Cfg.DebugLog, "ragscope")
	if err != nil {
		return nil, fmt.Errorf("open debug log %s: %w", a.Cfg.DebugLog, err)
	}
	w := a.redacting(f)
	log.SetOutput(w)
	slog.SetDefault(slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})))
	return func() { restore(); _ = f.Close() }, nil
}

// historyFile is where questions are kept across sessions: history in
// ragscope's state folder (platform.Env.Dirs: $XDG_STATE_HOME/ragscope,
// else ~/.local/state/ragscope on Linux, the system's own folder on macOS
// and Windows); "" when there is none.
func (a *App) historyFile() string {
	env := platform.Current()
	env.LookupEnv = a.LookupEnv
	if d, _ := env.Dirs(); d.State != "" {
		return filepath.Join(d.State, "history")
	}
	return ""
}

// isTerminal reports whether s is a terminal.
func isTerminal(s any) bool {
	f, ok := s.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}
