package cli

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"ragscope/app"
	"ragscope/internal/platform"
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

// tuiOptions opens the backend and builds the explorer's options
// (app.Assembler.Explorer); the opened backend's notes and Close are the
// run's.
func (a *App) tuiOptions(ctx context.Context) (ui.Options, error) {
	as := a.assembler()
	as.JudgeCache, _ = app.JudgeCacheDir(a.LookupEnv) // no cache folder: nothing kept between runs
	opts, be, err := as.Explorer(ctx, a.setup(), a.tuiBase())
	if be != nil {
		a.backends = append(a.backends, be)
	}
	if err != nil {
		return opts, err
	}
	var closeB func() error
	opts.Compare, closeB = a.assembler().ExplorerCompare(a.Cfg.Setup, a.vsSetups, a.vsName)
	a.backends = append(a.backends, &app.Backend{Close: closeB})
	return opts, nil
}

// resolveVs resolves the setups the explorer's split view can compare
// with: every named setup of ragscope.toml but --setup's, with the
// command line's flags applied as to every setup, and setup B to start
// with (--vs NAME). A setup that does not resolve is left out, unless it
// is --vs's.
func (a *App) resolveVs(cmd *cobra.Command) error {
	first := a.Cfg.Setup
	if first == "" {
		first = defaultSetupName
	}
	if f := cmd.Flags().Lookup(vsFlag); f != nil && f.Changed {
		a.vsName = strings.TrimSpace(f.Value.String())
		switch {
		case a.vsName == "":
			return Usagef("--vs needs the name of a setup of ragscope.toml ('ragscope setups' lists them)")
		case a.vsName == first:
			return Usagef("--vs %s: the explorer already shows setup %s (--setup); name another setup to compare with", a.vsName, a.vsName)
		case !slices.Contains(a.Cfg.SetupNames, a.vsName):
			// The error names the file and its setups.
			return a.Cfg.UnknownSetup("--"+vsFlag, a.vsName)
		}
	}
	for _, name := range a.Cfg.SetupNames {
		if name == first {
			continue
		}
		cfg, err := a.loadConfig(cmd, name)
		switch {
		case err != nil && name == a.vsName:
			return err
		case err != nil:
			continue
		}
		a.armCfgs = append(a.armCfgs, cfg)
		a.vsSetups = append(a.vsSetups, app.FromConfig(cfg))
	}
	return nil
}

// tuiBase is the explorer's options that need no backend.
func (a *App) tuiBase() ui.Options {
	o := app.ExplorerBase(a.setup(), a.historyFile())
	// The what-if editor (key E): $VISUAL, else $EDITOR, else a text area.
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if e, ok := a.LookupEnv(v); ok && strings.TrimSpace(e) != "" {
			o.Explain.Editor = strings.TrimSpace(e)
			break
		}
	}
	return o
}

// tuiHeapHeadroom is what the explorer's soft heap limit allows above the
// heap in use once the backend is open (GOMEMLIMIT overrides the limit).
const tuiHeapHeadroom = 16 << 20

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
