package ui

import (
	"charm.land/bubbles/v2/viewport"
	"charm.land/lipgloss/v2"
)

// The scrolling panes (detail, context, chunks, keys) show a title line
// and a viewport below it; scroll (detail.go) moves the viewport with the
// list keys.

// fitViewport sizes vp to the content area of a w x h pane drawn in
// style, less the title line.
func fitViewport(vp *viewport.Model, style lipgloss.Style, w, h int) {
	iw, ih := innerSize(style, w, h)
	vp.SetWidth(iw)
	vp.SetHeight(max(ih-1, 0))
}

// setContent replaces vp's text, back at the top when top is set, else
// at the line it was scrolled to.
func setContent(vp *viewport.Model, s string, top bool) {
	y := vp.YOffset()
	vp.SetContent(s)
	if top {
		vp.GotoTop()
	} else {
		vp.SetYOffset(y)
	}
}
