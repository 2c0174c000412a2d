package contextpane

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/termsafe"
	"ragscope/ui/common"
)

// Model shows the grounded system instruction and context exactly
// as an answering agent receives them (wrapped for display only).
type Model struct {
	common.Base
	vp viewport.Model

	Grounded retrieval.Grounded
	// shown is the context as drawn: with each source's rank
	// (present.RankedContext); Y copies g.Context, what the model gets.
	shown string
	mode  retrieval.Mode
	Has   bool
}

// New is the pane with the explorer's keys and styles.
func New(keys *common.KeyMap, st *common.Styles) Model {
	return Model{Base: common.Base{Keys: keys, Styles: st}, vp: viewport.New()}
}

// SetSize sets the outer size and re-wraps the text.
func (p *Model) SetSize(w, h int) tea.Cmd {
	if p.Width == w && p.Height == h {
		return nil
	}
	p.Width, p.Height = w, h
	common.FitViewport(&p.vp, p.Styles.Pane, w, h)
	p.refresh(false)
	return nil
}

// SetResult shows the grounding of res.
func (p *Model) SetResult(res retrieval.Result) {
	p.Grounded, p.mode, p.Has = res.Grounded, res.Mode, true
	p.shown = present.RankedContext(res)
	p.refresh(true)
}

func (p *Model) refresh(top bool) {
	if !p.Has {
		return
	}
	st := p.Styles
	w := max(p.vp.Width(), 10)
	var b strings.Builder
	b.WriteString(st.Section.Render("System instruction") + "\n")
	b.WriteString(common.WrapText(termsafe.Text(p.Grounded.Instruction), w) + "\n\n")
	chars := len([]rune(p.Grounded.Context))
	head := "Context · " + present.Int(chars) + " chars · ~" + present.Int(present.Tokens(p.Grounded.Context)) + " tokens · " +
		strconv.Itoa(len(p.Grounded.Sources)) + " " + present.Plural(len(p.Grounded.Sources), "source", "sources")
	b.WriteString(st.Section.Render(common.WrapText(head, w)) + "\n")
	if !p.Grounded.Sufficient {
		b.WriteString(st.LinkWarn.Render(common.WrapText("Not sufficient: nothing to ground an answer on, so the agent is told to refuse.", w)) + "\n")
	}
	if p.Grounded.Context == "" {
		b.WriteString(st.Missing.Render("(empty)"))
	} else {
		if p.shown != p.Grounded.Context {
			b.WriteString(st.Meta.Render(common.WrapText(present.RankedContextNote, w)) + "\n")
		}
		b.WriteString(common.WrapText(termsafe.Text(p.shown), w))
	}
	common.SetContent(&p.vp, b.String(), top)
}

// Update scrolls.
func (p *Model) Update(msg tea.Msg) tea.Cmd {
	if km, ok := msg.(tea.KeyPressMsg); ok {
		common.Scroll(&p.vp, p.Keys, km)
	}
	return nil
}

// View draws the pane.
func (p *Model) View() string {
	f := p.Frame()
	title := "Grounded context"
	if p.mode == retrieval.ModeSelectedText {
		title += " (selected text)"
	}
	if p.Has {
		title += " · " + common.ScrollPercent(&p.vp) + " · Y copies"
	}
	content := f.Title(title) + "\n"
	if !p.Has {
		content += p.Styles.Meta.Render(common.WrapText("The system instruction and context an answering agent would receive show here after a query.", f.W))
	} else {
		content += p.vp.View()
	}
	return f.Box(content)
}

// ShortHelp implements pane.
func (p *Model) ShortHelp() []key.Binding {
	k := p.Keys
	return []key.Binding{k.Down, k.PageDown, k.CopyContext, common.LeaveHelp(k, "results"), k.QuitQ, k.Help, k.NextPane}
}

// FullHelp implements pane: every key of the pane is in the key map.
func (p *Model) FullHelp() [][]key.Binding { return nil }
