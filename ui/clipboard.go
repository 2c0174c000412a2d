package ui

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/atotto/clipboard"
	"github.com/aymanbagabas/go-osc52/v2"
)

// DefaultClipboard returns the clipboard writer Run uses: an OSC 52
// sequence on standard output (it reaches the local clipboard over SSH;
// wrapped for tmux and screen), and the system clipboard (xclip, xsel,
// wl-copy, pbcopy) when one is available. It fails only when both fail.
func DefaultClipboard() func(string) error {
	return newClipboard(os.Stdout, os.Getenv("TMUX") != "", strings.HasPrefix(os.Getenv("TERM"), "screen"), clipboard.WriteAll)
}

func newClipboard(out io.Writer, tmux, screen bool, system func(string) error) func(string) error {
	return func(text string) error {
		seq := osc52.New(text)
		switch {
		case tmux:
			seq = seq.Tmux()
		case screen:
			seq = seq.Screen()
		}
		// One Write call: the sequence must not interleave with a frame.
		_, oscErr := out.Write([]byte(seq.String()))
		sysErr := system(text)
		if oscErr != nil && sysErr != nil {
			return fmt.Errorf("copy to clipboard: %w", errors.Join(oscErr, sysErr))
		}
		return nil
	}
}
