package clipboard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/atotto/clipboard"

	"ragscope/internal/platform"
	"ragscope/termsafe"
)

// System writes text to the system clipboard: pbcopy on macOS,
// clip.exe on Windows, xclip, xsel or wl-copy elsewhere; it fails when
// none is there, as on a server over SSH, where the explorer sends OSC 52
// to the terminal instead (or hands the text to tmux).
func System(text string) error {
	return SystemClipboard(runtime.GOOS, platform.Run, clipboard.WriteAll)(text)
}

// SystemClipboard is SystemClipboard for the system goos: run runs the
// system's clipboard command (platform.CopyCommand) where it has one;
// elsewhere fallback writes the clipboard (the X11 and Wayland tools,
// found at run time). A seam, so tests check each system's command.
func SystemClipboard(goos string, run func(context.Context, platform.Command) error, fallback func(string) error) func(string) error {
	return func(text string) error {
		c, ok := platform.CopyCommand(goos, text)
		if !ok {
			if err := fallback(text); err != nil {
				return fmt.Errorf("system clipboard: %w", err)
			}
			return nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		if err := run(ctx, c); err != nil {
			return fmt.Errorf("system clipboard: %w", err)
		}
		return nil
	}
}

// tmuxRunner runs tmux with args, stdin as its input, and returns what it
// printed; a seam so tests fake tmux.
type tmuxRunner func(ctx context.Context, stdin string, args ...string) (string, error)

// RunTmux runs the tmux binary; its output is captured, never written to
// the terminal the explorer owns.
func RunTmux(ctx context.Context, stdin string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "tmux", args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return "", fmt.Errorf("tmux %s: %s: %w", args[0], termsafe.Line(msg), err)
		}
		return "", fmt.Errorf("tmux %s: %w", args[0], err)
	}
	return out.String(), nil
}

// Env is what a copy needs to know of where the explorer runs.
type Env struct {
	// InTmux says the explorer runs inside tmux ($TMUX is set).
	InTmux bool
	// tmux runs tmux commands.
	Tmux tmuxRunner
	// system writes the system clipboard.
	System func(string) error
}

// clipTimeout bounds the tmux calls of one copy.
const timeout = 2 * time.Second

// How a copy went, for the status line.
type Outcome int

const (
	// clipSystem: the system clipboard took the text.
	CopiedSystem Outcome = iota
	// clipTmux: tmux took the text into its paste buffer (and passes it
	// on to the terminal's clipboard when the terminal allows).
	CopiedTmux
	// clipOSC52: the text was sent by OSC 52; whether the terminal took
	// it cannot be known.
	CopiedOSC52
	// clipFailed: nothing took the text.
	CopyFailed
)

// Msg reports a copy: how it went, and the text to send by
// OSC 52 when that is the way left (the root sends it through Bubble
// Tea, never behind the renderer's back).
type Msg struct {
	What    string
	Outcome Outcome
	OSC52   string
	// Why explains a fallback or failure in a few words.
	Why string
}

// CopyCmd copies text off the UI goroutine, by the first way whose
// outcome can be known: inside tmux, tmux's own buffer (load-buffer -w
// also sets the outer terminal's clipboard; a bare OSC 52 is dropped by
// tmux's default set-clipboard external); else the system clipboard;
// else OSC 52, reported as sent, not as copied. Whatever the way, text
// goes out through termsafe.Outbound: no escape sequence, control
// character or bidi override reaches another program.
func CopyCmd(ctx context.Context, env Env, what, text string) tea.Cmd {
	text = termsafe.Outbound(text)
	return func() tea.Msg {
		var why []string
		if env.InTmux && env.Tmux != nil {
			out, err := copyViaTmux(ctx, env.Tmux, text)
			if err == nil {
				return Msg{What: what, Outcome: CopiedTmux}
			}
			if errors.Is(err, errTmuxClipboardOff) {
				if env.System != nil && env.System(text) == nil {
					return Msg{What: what, Outcome: CopiedSystem}
				}
				return Msg{What: what, Outcome: CopyFailed, Why: out}
			}
			why = append(why, err.Error())
		}
		if env.System != nil {
			err := env.System(text)
			if err == nil {
				return Msg{What: what, Outcome: CopiedSystem}
			}
			why = append(why, err.Error())
		}
		return Msg{What: what, Outcome: CopiedOSC52, OSC52: text, Why: strings.Join(why, "; ")}
	}
}

// errTmuxClipboardOff says tmux's set-clipboard option is off.
var errTmuxClipboardOff = errors.New("tmux set-clipboard is off")

// copyViaTmux loads text into tmux's paste buffer, with -w so tmux also
// sets the outer terminal's clipboard (its set-clipboard option allows
// that when "on" or "external"). With set-clipboard off it returns
// errTmuxClipboardOff and the advice to give.
func copyViaTmux(ctx context.Context, run tmuxRunner, text string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	mode, err := run(ctx, "", "show-options", "-gv", "set-clipboard")
	if err != nil {
		return "", fmt.Errorf("ask tmux: %w", err)
	}
	if strings.TrimSpace(mode) == "off" {
		return "tmux's set-clipboard is off: run `tmux set -g set-clipboard on` (or add it to ~/.tmux.conf), or install xclip or wl-copy", errTmuxClipboardOff
	}
	if _, err := run(ctx, text, "load-buffer", "-w", "-"); err != nil {
		return "", fmt.Errorf("copy into tmux: %w", err)
	}
	return "", nil
}
