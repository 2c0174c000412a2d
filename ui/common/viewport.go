package common

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// FitViewport sizes vp to the content area of a w x h pane drawn in
// style, less the title line.
func FitViewport(vp *viewport.Model, style lipgloss.Style, w, h int) {
	iw, ih := InnerSize(style, w, h)
	vp.SetWidth(iw)
	vp.SetHeight(max(ih-1, 0))
}

// SetContent replaces vp's text, back at the top when top is set, else
// at the line it was scrolled to.
func SetContent(vp *viewport.Model, s string, top bool) {
	y := vp.YOffset()
	vp.SetContent(s)
	if top {
		vp.GotoTop()
	} else {
		vp.SetYOffset(y)
	}
}

// Scroll moves a viewport with the shared list keys.
func Scroll(vp *viewport.Model, k *KeyMap, msg tea.KeyPressMsg) {
	switch {
	case key.Matches(msg, k.Up):
		vp.ScrollUp(1)
	case key.Matches(msg, k.Down):
		vp.ScrollDown(1)
	case key.Matches(msg, k.PageUp):
		vp.PageUp()
	case key.Matches(msg, k.PageDown):
		vp.PageDown()
	case key.Matches(msg, k.Top):
		vp.GotoTop()
	case key.Matches(msg, k.Bottom):
		vp.GotoBottom()
	}
}

func PadRight(s string, n int) string {
	// Runes, not bytes: a movement ("↑3") is two cells but four bytes.
	if w := utf8.RuneCountInString(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return string([]rune(s)[:n-1]) + " "
}

func ScrollPercent(vp *viewport.Model) string {
	if vp.TotalLineCount() <= vp.Height() {
		return "all"
	}
	return strconv.Itoa(int(vp.ScrollPercent()*100+0.5)) + "%"
}
