package ui

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/termsafe"
)

// contextPane shows the grounded system instruction and context exactly
// as an answering agent receives them (wrapped for display only).
type contextPane struct {
	paneBase
	vp viewport.Model

	g retrieval.Grounded
	// shown is the context as drawn: with each source's rank
	// (present.RankedContext); Y copies g.Context, what the model gets.
	shown string
	mode  retrieval.Mode
	has   bool
}

func newContextPane(keys *KeyMap, st *Styles) contextPane {
	return contextPane{paneBase: paneBase{keys: keys, st: st}, vp: viewport.New()}
}

// SetSize sets the outer size and re-wraps the text.
func (p *contextPane) SetSize(w, h int) tea.Cmd {
	if p.width == w && p.height == h {
		return nil
	}
	p.width, p.height = w, h
	fitViewport(&p.vp, p.st.Pane, w, h)
	p.refresh(false)
	return nil
}

// SetResult shows the grounding of res.
func (p *contextPane) SetResult(res retrieval.Result) {
	p.g, p.mode, p.has = res.Grounded, res.Mode, true
	p.shown = present.RankedContext(res)
	p.refresh(true)
}

func (p *contextPane) refresh(top bool) {
	if !p.has {
		return
	}
	st := p.st
	w := max(p.vp.Width(), 10)
	var b strings.Builder
	b.WriteString(st.Section.Render("System instruction") + "\n")
	b.WriteString(wrapText(termsafe.Text(p.g.Instruction), w) + "\n\n")
	chars := len([]rune(p.g.Context))
	head := "Context · " + present.Int(chars) + " chars · ~" + present.Int(present.Tokens(p.g.Context)) + " tokens · " +
		strconv.Itoa(len(p.g.Sources)) + " " + present.Plural(len(p.g.Sources), "source", "sources")
	b.WriteString(st.Section.Render(wrapText(head, w)) + "\n")
	if !p.g.Sufficient {
		b.WriteString(st.LinkWarn.Render(wrapText("Not sufficient: nothing to ground an answer on, so the agent is told to refuse.", w)) + "\n")
	}
	if p.g.Context == "" {
		b.WriteString(st.Missing.Render("(empty)"))
	} else {
		if p.shown != p.g.Context {
			b.WriteString(st.Meta.Render(wrapText(present.RankedContextNote, w)) + "\n")
		}
		b.WriteString(wrapText(termsafe.Text(p.shown), w))
	}
	setContent(&p.vp, b.String(), top)
}

// Update scrolls.
func (p *contextPane) Update(msg tea.Msg) tea.Cmd {
	if km, ok := msg.(tea.KeyPressMsg); ok {
		scroll(&p.vp, p.keys, km)
	}
	return nil
}

// View draws the pane.
func (p *contextPane) View() string {
	style, tstyle := p.st.pane(p.focus)
	iw, _ := innerSize(style, p.width, p.height)
	title := "Grounded context"
	if p.mode == retrieval.ModeSelectedText {
		title += " (selected text)"
	}
	if p.has {
		title += " · " + scrollPercent(&p.vp) + " · Y copies"
	}
	content := tstyle.Render(truncate(title, iw)) + "\n"
	if !p.has {
		content += p.st.Meta.Render(wrapText("The system instruction and context an answering agent would receive show here after a query.", iw))
	} else {
		content += p.vp.View()
	}
	return box(style, p.width, p.height, content)
}

// ShortHelp implements pane.
func (p *contextPane) ShortHelp() []key.Binding {
	k := p.keys
	return []key.Binding{k.Down, k.PageDown, k.CopyContext, leaveHelp(k, "results"), k.QuitQ, k.Help, k.NextPane}
}

// FullHelp implements pane: every key of the pane is in the key map.
func (p *contextPane) FullHelp() [][]key.Binding { return nil }
