package selection

import (
	"strings"

	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"ragscope/present"
	"ragscope/ui/common"
)

// Selection fields, in focus order.
const (
	FieldText = iota
	FieldDoc
	FieldSection
)

// Model holds the inputs of selected-text mode: the pasted text
// (multi-line, bracketed paste) and where it comes from.
type Model struct {
	Keys    *common.KeyMap
	st      *common.Styles
	text    textarea.Model
	doc     textinput.Model
	section textinput.Model
	field   int
	chars   int
	width   int
	// lines is the text split in lines, kept only for large texts.
	lines []string
}

// largeText is the size from which the text area is drawn as a cheap
// window around the cursor: the bubbles textarea redraws every line on
// every frame, which a 100 KB paste makes far too slow.
const largeText = 8 << 10

// New is the pane with the explorer's keys and styles.
func New(keys *common.KeyMap, st *common.Styles) Model {
	ta := textarea.New()
	ta.Placeholder = "Paste the selected text here (multi-line; large pastes are fine)."
	ta.ShowLineNumbers = false
	ta.CharLimit = 0
	ta.MaxHeight = 0
	ta.Prompt = "│ "
	ta.SetStyles(st.TextArea())
	ta.Blur()
	mk := func(ph string) textinput.Model { return st.NewInput(ph, 500) }
	return Model{
		Keys: keys, st: st, text: ta,
		doc:     mk("docs/module-1-ros2/nodes-topics-services.md (optional)"),
		section: mk("section heading (optional)"),
	}
}

// Values returns the selection, the source doc path and section.
func (p *Model) Values() (text, doc, section string) {
	return p.text.Value(), strings.TrimSpace(p.doc.Value()), strings.TrimSpace(p.section.Value())
}

// SetValues fills the selection, source doc path and section (an eval
// case opened as a query).
func (p *Model) SetValues(text, doc, section string) {
	p.text.SetValue(text)
	p.doc.SetValue(doc)
	p.section.SetValue(section)
	p.chars = p.text.Length()
	p.lines = nil
	if p.chars > largeText {
		p.lines = strings.Split(p.text.Value(), "\n")
	}
}

// Chars is the length of the selection in characters.
func (p *Model) Chars() int { return p.chars }

// SetSize sets the width of the inputs and the height of the text area.
func (p *Model) SetSize(w, textH int) {
	p.width = w
	p.text.SetWidth(max(w, 10))
	p.text.SetHeight(max(textH, 1))
	// Source doc › [doc]  Section › [section]; a textinput draws one
	// cell more than its width for the cursor.
	half := max((w-lipgloss.Width("Source doc › ")-lipgloss.Width("  Section › ")-2)/2, 8)
	p.doc.SetWidth(half)
	p.section.SetWidth(half)
}

// Focus focuses one field.
func (p *Model) Focus(field int) tea.Cmd {
	p.Blur()
	p.field = field
	switch field {
	case FieldDoc:
		return p.doc.Focus()
	case FieldSection:
		return p.section.Focus()
	}
	return p.text.Focus()
}

// Blur unfocuses every field.
func (p *Model) Blur() {
	p.text.Blur()
	p.doc.Blur()
	p.section.Blur()
}

// Restyle applies the current styles to the inputs.
func (p *Model) Restyle() {
	p.text.SetStyles(p.st.TextArea())
	p.doc.SetStyles(p.st.TextInput())
	p.section.SetStyles(p.st.TextInput())
}

// isInput reports whether msg is typed or pasted text (it goes to the
// focused field only).
func isInput(msg tea.Msg) bool {
	switch msg.(type) {
	case tea.KeyPressMsg, tea.PasteMsg:
		return true
	}
	return false
}

// Update sends msg to the focused field; cursor blinks go to all.
func (p *Model) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	if !isInput(msg) {
		var c1, c2, c3 tea.Cmd
		p.text, c1 = p.text.Update(msg)
		p.doc, c2 = p.doc.Update(msg)
		p.section, c3 = p.section.Update(msg)
		return tea.Batch(c1, c2, c3)
	}
	switch p.field {
	case FieldDoc:
		p.doc, cmd = p.doc.Update(msg)
	case FieldSection:
		p.section, cmd = p.section.Update(msg)
	default:
		p.text, cmd = p.text.Update(msg)
		p.chars = p.text.Length()
		p.lines = nil
		if p.chars > largeText {
			p.lines = strings.Split(p.text.Value(), "\n")
		}
	}
	return cmd
}

// largeView draws the lines around the cursor row, wrapped, in the text
// area's height: work proportional to the window, not to the text.
func (p *Model) largeView() string {
	h := max(p.text.Height(), 1)
	prompt := p.st.Rule.Render("│ ")
	if p.text.Focused() {
		prompt = p.st.Cursor.Render("│ ")
	}
	w := max(p.width-2, 4)
	row := min(p.text.Line(), len(p.lines)-1)
	wrap := func(r int) []string {
		l := p.lines[r]
		if r == row && p.text.Focused() {
			l += "▌"
		}
		return strings.Split(common.WrapText(l, w), "\n")
	}
	var out []string
	for r := row; r >= 0 && len(out) < h; r-- {
		out = append(wrap(r), out...)
	}
	if len(out) > h {
		out = out[len(out)-h:]
	}
	for r := row + 1; r < len(p.lines) && len(out) < h; r++ {
		out = append(out, wrap(r)...)
	}
	if len(out) > h {
		out = out[:h]
	}
	for len(out) < h {
		out = append(out, "")
	}
	for i, l := range out {
		out[i] = prompt + l
	}
	return strings.Join(out, "\n")
}

// View draws the text area and the source line.
func (p *Model) View() string {
	st := p.st
	label := func(s string, on bool) string {
		if on {
			return st.FocusedTitle.Render(s)
		}
		return st.Label.Render(s)
	}
	head := label("Selected text", p.text.Focused()) + st.Meta.Render(" · "+present.Int(p.chars)+" chars · enter adds a line, ctrl+r runs · no vector search")
	src := label("Source doc › ", p.doc.Focused()) + p.doc.View() + "  " + label("Section › ", p.section.Focused()) + p.section.View()
	var area string
	if p.lines != nil {
		area = p.largeView()
	} else {
		area = p.text.View()
	}
	return common.Truncate(head, p.width) + "\n" + area + "\n" + common.Truncate(src, p.width)
}
