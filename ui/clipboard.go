package ui

import (
	"os"

	tea "charm.land/bubbletea/v2"

	"ragscope/ui/clipboard"
)

// clipboardStatus is the status line for a copy and whether it claims
// success.
func clipboardStatus(msg clipboard.Msg) (statusKind, string) {
	switch msg.Outcome {
	case clipboard.CopiedSystem:
		return statusOK, "Copied " + msg.What + " to the clipboard."
	case clipboard.CopiedTmux:
		return statusOK, "Copied " + msg.What + " to tmux's buffer (prefix ] pastes) and, if the terminal allows OSC 52, its clipboard."
	case clipboard.CopyFailed:
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
func newClipEnv(opts Options) clipboard.Env {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	return clipboard.Env{InTmux: getenv("TMUX") != "", Tmux: clipboard.RunTmux, System: opts.Clipboard}
}

// copy copies text (described by what in the status line).
func (m *Model) copy(what, text string) tea.Cmd {
	return clipboard.CopyCmd(m.base, m.clip, what, text)
}
