package ui

import (
	"fmt"

	"github.com/atotto/clipboard"
)

// SystemClipboard writes text to the system clipboard (xclip, xsel,
// wl-copy, pbcopy or the Windows clipboard); it fails when none is there,
// as on a server over SSH, where the OSC 52 copy the explorer also sends
// reaches the local terminal instead.
func SystemClipboard(text string) error {
	if err := clipboard.WriteAll(text); err != nil {
		return fmt.Errorf("system clipboard: %w", err)
	}
	return nil
}
