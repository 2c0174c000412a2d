package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/atotto/clipboard"

	"ragscope/internal/platform"
	"ragscope/termsafe"
)

// SystemClipboard writes text to the system clipboard: pbcopy on macOS,
// clip.exe on Windows, xclip, xsel or wl-copy elsewhere; it fails when
// none is there, as on a server over SSH, where the explorer sends OSC 52
// to the terminal instead (or hands the text to tmux).
func SystemClipboard(text string) error {
	return systemClipboard(runtime.GOOS, platform.Run, clipboard.WriteAll)(text)
}

// systemClipboard is SystemClipboard for the system goos: run runs the
// system's clipboard command (platform.CopyCommand) where it has one;
// elsewhere fallback writes the clipboard (the X11 and Wayland tools,
// found at run time). A seam, so tests check each system's command.
func systemClipboard(goos string, run func(context.Context, platform.Command) error, fallback func(string) error) func(string) error {
	return func(text string) error {
		c, ok := platform.CopyCommand(goos, text)
		if !ok {
			if err := fallback(text); err != nil {
				return fmt.Errorf("system clipboard: %w", err)
			}
			return nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), clipTimeout)
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

// runTmux runs the tmux binary; its output is captured, never written to
// the terminal the explorer owns.
func runTmux(ctx context.Context, stdin string, args ...string) (string, error) {
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

// clipEnv is what a copy needs to know of where the explorer runs.
type clipEnv struct {
	// inTmux says the explorer runs inside tmux ($TMUX is set).
	inTmux bool
	// tmux runs tmux commands.
	tmux tmuxRunner
	// system writes the system clipboard.
	system func(string) error
}

// clipTimeout bounds the tmux calls of one copy.
const clipTimeout = 2 * time.Second

// How a copy went, for the status line.
type clipOutcome int

const (
	// clipSystem: the system clipboard took the text.
	clipSystem clipOutcome = iota
	// clipTmux: tmux took the text into its paste buffer (and passes it
	// on to the terminal's clipboard when the terminal allows).
	clipTmux
	// clipOSC52: the text was sent by OSC 52; whether the terminal took
	// it cannot be known.
	clipOSC52
	// clipFailed: nothing took the text.
	clipFailed
)

// clipboardMsg reports a copy: how it went, and the text to send by
// OSC 52 when that is the way left (the root sends it through Bubble
// Tea, never behind the renderer's back).
type clipboardMsg struct {
	What    string
	Outcome clipOutcome
	OSC52   string
	// Why explains a fallback or failure in a few words.
	Why string
}

// copyCmd copies text off the UI goroutine, by the first way whose
// outcome can be known: inside tmux, tmux's own buffer (load-buffer -w
// also sets the outer terminal's clipboard; a bare OSC 52 is dropped by
// tmux's default set-clipboard external); else the system clipboard;
// else OSC 52, reported as sent, not as copied. Whatever the way, text
// goes out through termsafe.Outbound: no escape sequence, control
// character or bidi override reaches another program.
func copyCmd(ctx context.Context, env clipEnv, what, text string) tea.Cmd {
	text = termsafe.Outbound(text)
	return func() tea.Msg {
		var why []string
		if env.inTmux && env.tmux != nil {
			out, err := copyViaTmux(ctx, env.tmux, text)
			if err == nil {
				return clipboardMsg{What: what, Outcome: clipTmux}
			}
			if errors.Is(err, errTmuxClipboardOff) {
				if env.system != nil && env.system(text) == nil {
					return clipboardMsg{What: what, Outcome: clipSystem}
				}
				return clipboardMsg{What: what, Outcome: clipFailed, Why: out}
			}
			why = append(why, err.Error())
		}
		if env.system != nil {
			err := env.system(text)
			if err == nil {
				return clipboardMsg{What: what, Outcome: clipSystem}
			}
			why = append(why, err.Error())
		}
		return clipboardMsg{What: what, Outcome: clipOSC52, OSC52: text, Why: strings.Join(why, "; ")}
	}
}

// errTmuxClipboardOff says tmux's set-clipboard option is off.
var errTmuxClipboardOff = errors.New("tmux set-clipboard is off")

// copyViaTmux loads text into tmux's paste buffer, with -w so tmux also
// sets the outer terminal's clipboard (its set-clipboard option allows
// that when "on" or "external"). With set-clipboard off it returns
// errTmuxClipboardOff and the advice to give.
func copyViaTmux(ctx context.Context, run tmuxRunner, text string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, clipTimeout)
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

// clipboardStatus is the status line for a copy and whether it claims
// success.
func clipboardStatus(msg clipboardMsg) (statusKind, string) {
	switch msg.Outcome {
	case clipSystem:
		return statusOK, "Copied " + msg.What + " to the clipboard."
	case clipTmux:
		return statusOK, "Copied " + msg.What + " to tmux's buffer (prefix ] pastes) and, if the terminal allows OSC 52, its clipboard."
	case clipFailed:
		return statusErr, "Not copied: " + msg.Why + "."
	}
	s := "Sent " + msg.What + " to the terminal by OSC 52 (copied only if the terminal allows it)"
	if msg.Why != "" {
		s += "; " + msg.Why
	}
	return statusInfo, s + "."
}

// newClipEnv is the copy environment of opts: tmux when $TMUX is set
// (looked up with opts.Getenv), the system clipboard of opts.Clipboard.
func newClipEnv(opts Options) clipEnv {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	return clipEnv{inTmux: getenv("TMUX") != "", tmux: runTmux, system: opts.Clipboard}
}

// copy copies text (described by what in the status line).
func (m *Model) copy(what, text string) tea.Cmd {
	return copyCmd(m.base, m.clip, what, text)
}
