package keyhelp

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ragscope/ui/common"
)

// Model is the full help ('?'): every live key of the focused pane and
// of the explorer, flowed into as many columns as the body is wide, in
// the body's place, scrolled with the list keys when it is taller (at
// 80x24 it would not fit under the panes).
type Model struct {
	st       *common.Styles
	Viewport viewport.Model
	width    int
	height   int
}

// New is the full help drawn with st.
func New(st *common.Styles) Model {
	return Model{st: st, Viewport: viewport.New()}
}

// SetSize sets the outer size.
func (p *Model) SetSize(w, h int) {
	p.width, p.height = w, h
	common.FitViewport(&p.Viewport, p.st.FocusedPane, w, h)
}

// SetKeys lays out the enabled bindings of groups, keeping the scroll
// position when the keys stay the same.
func (p *Model) SetKeys(groups [][]key.Binding) {
	iw, ih := common.InnerSize(p.st.FocusedPane, p.width, p.height)
	y := p.Viewport.YOffset()
	p.Viewport.SetHeight(max(ih-1, 0))
	p.Viewport.SetContent(flowKeys(groups, iw, p.st))
	if p.Viewport.TotalLineCount() > p.Viewport.Height() {
		// Taller than the pane: the last line is the "more below" hint,
		// so the viewport is one line shorter and a page (pgdn) moves by
		// exactly the lines on show, skipping none.
		p.Viewport.SetHeight(max(ih-2, 1))
	}
	p.Viewport.SetYOffset(y)
}

// Scroll moves the list with the list keys and reports whether km was one.
func (p *Model) Scroll(k *common.KeyMap, km tea.KeyPressMsg) bool {
	if !key.Matches(km, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom) {
		return false
	}
	common.Scroll(&p.Viewport, k, km)
	return true
}

// View draws the pane with a title that says how to scroll and close it.
func (p *Model) View() string {
	style, tstyle := p.st.Frame(true)
	iw, _ := common.InnerSize(style, p.width, p.height)
	title := "Keys · esc or ? closes"
	if p.Viewport.TotalLineCount() > p.Viewport.Height() {
		title = "Keys · " + common.ScrollPercent(&p.Viewport) + " · j/k scroll · esc or ? closes"
	}
	content := tstyle.Render(common.Truncate(title, iw)) + "\n" + p.Viewport.View()
	if !p.Viewport.AtBottom() {
		content += "\n" + p.st.Meta.Render(common.Truncate("↓ more below (j, pgdn)", iw))
	}
	return common.Box(style, p.width, p.height, content)
}

// ShortHelp is the help line while the full help is open: its own keys
// (scroll, close), not the focused pane's, which it covers.
func (p *Model) ShortHelp(k *common.KeyMap) []key.Binding {
	var out []key.Binding
	if p.Viewport.TotalLineCount() > p.Viewport.Height() {
		out = append(out, common.RunHelp(k.Down, "↓/j ↑/k", "scroll"), common.RunHelp(k.PageDown, "pgdn/pgup", "page"))
	}
	return append(out, common.RunHelp(k.Leave, "esc", "close keys"), common.RunHelp(k.Help, "?", "close keys"), k.QuitQ, k.Quit)
}

// flowKeys lists the enabled bindings of groups once each, in order, in
// columns down then across, as many as fit width.
func flowKeys(groups [][]key.Binding, width int, st *common.Styles) string {
	type entry struct{ key, desc string }
	var entries []entry
	seen := map[entry]bool{}
	keyW, descW := 0, 0
	for _, g := range groups {
		for _, b := range g {
			h := b.Help()
			e := entry{h.Key, h.Desc}
			if !b.Enabled() || h.Key == "" || seen[e] {
				continue
			}
			seen[e] = true
			entries = append(entries, e)
			keyW = max(keyW, ansi.StringWidth(h.Key))
			descW = max(descW, ansi.StringWidth(h.Desc))
		}
	}
	if len(entries) == 0 {
		return ""
	}
	const gap = 3
	cellW := keyW + 1 + descW
	cols := max((width+gap)/(cellW+gap), 1)
	rows := (len(entries) + cols - 1) / cols
	cols = (len(entries) + rows - 1) / rows
	var b strings.Builder
	for r := 0; r < rows; r++ {
		var line strings.Builder
		for c := 0; c < cols; c++ {
			i := c*rows + r
			if i >= len(entries) {
				break
			}
			e := entries[i]
			if c > 0 {
				line.WriteString(strings.Repeat(" ", gap))
			}
			cell := st.Highlight.Render(e.key) + strings.Repeat(" ", keyW-ansi.StringWidth(e.key)+1) + st.Meta.Render(e.desc)
			if c < cols-1 {
				cell += strings.Repeat(" ", descW-ansi.StringWidth(e.desc))
			}
			line.WriteString(cell)
		}
		if r > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(common.Truncate(line.String(), width))
	}
	return b.String()
}
