package common

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// Pane is the contract every pane of the explorer keeps. The root sizes
// it, moves the keyboard to and from it, gives it the keys while it has
// focus, draws it and builds the help line from it.
type Pane interface {
	// SetSize gives the pane its outer size (border included).
	SetSize(w, h int) tea.Cmd
	// Focus gives the pane the keyboard; Blur takes it away.
	Focus() tea.Cmd
	Blur()
	// Update handles a key while the pane has focus, or a message meant
	// for it.
	Update(msg tea.Msg) tea.Cmd
	// View draws the pane at its size.
	View() string
	// ShortHelp is the help line while the pane has focus; FullHelp lists
	// bindings of the pane's own that the explorer's key map does not (the
	// full help shows them first).
	ShortHelp() []key.Binding
	FullHelp() [][]key.Binding
}

// Base is what every pane of the explorer's layout holds: the key
// map, the styles, its outer size and whether it has the focus. It
// implements pane's Focus and Blur.
type Base struct {
	Keys    *KeyMap
	Styles  *Styles
	Width   int
	Height  int
	Focused bool
}

// Focus implements pane.
func (p *Base) Focus() tea.Cmd { p.Focused = true; return nil }

// Blur implements pane.
func (p *Base) Blur() { p.Focused = false }

// Modal is a pane that can open a part (a picker) that takes every key
// but ctrl+c while open; letters are text there.
type Modal interface {
	Modal() bool
}

// IsModal reports whether p has a modal part open.
func IsModal(p Pane) bool {
	md, ok := p.(Modal)
	return ok && md.Modal()
}

// Frame is a pane's border as its View draws it: the border and title
// styles of its focus, its outer size and the size inside the border.
type Frame struct {
	style, title  lipgloss.Style
	width, height int
	// W and H are the size inside the border, what the content fills.
	W, H int
}

// Frame is p's border at its size and focus.
func (p *Base) Frame() Frame {
	style, title := p.Styles.Frame(p.Focused)
	iw, ih := InnerSize(style, p.Width, p.Height)
	return Frame{style: style, title: title, width: p.Width, height: p.Height, W: iw, H: ih}
}

// Title is the pane's title line: t cut to the inner width, in the title
// style of its focus.
func (f Frame) Title(t string) string { return f.title.Render(Truncate(t, f.W)) }

// Box draws content inside the border (Box).
func (f Frame) Box(content string) string { return Box(f.style, f.width, f.height, content) }
