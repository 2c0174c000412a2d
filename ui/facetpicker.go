package ui

import (
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/sahilm/fuzzy"

	"ragscope/termsafe"
)

// facetPicker chooses the values of one filter by typing part of them:
// the values that match, best first (fuzzy, as bubbles' list filters),
// for collections with hundreds of tags or chapters.
type facetPicker struct {
	keys   *KeyMap
	st     *Styles
	name   string
	input  textinput.Model
	values []string
	shown  []string
	cursor int
	offset int
}

func newFacetPicker(keys *KeyMap, st *Styles, name string, values []string) *facetPicker {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = "type to filter " + strconv.Itoa(len(values)) + " values"
	in.SetStyles(st.textInput())
	in.CharLimit = 200
	in.Focus()
	f := &facetPicker{keys: keys, st: st, name: name, input: in, values: values}
	f.filter()
	return f
}

// filter lists the values matching the typed text, best first; all of
// them, in their order, when nothing is typed.
func (f *facetPicker) filter() {
	q := strings.TrimSpace(f.input.Value())
	if q == "" {
		f.shown = f.values
	} else {
		ms := fuzzy.Find(q, f.values)
		f.shown = make([]string, len(ms))
		for i, m := range ms {
			f.shown[i] = m.Str
		}
	}
	f.cursor, f.offset = 0, 0
}

// Update handles a key: arrows move, enter toggles the value under the
// cursor (returned in toggle), esc closes (done), anything else is text.
func (f *facetPicker) Update(msg tea.Msg) (toggle string, done bool, cmd tea.Cmd) {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		f.input, cmd = f.input.Update(msg)
		return "", false, cmd
	}
	k := f.keys
	switch {
	case key.Matches(km, k.PickClose):
		return "", true, nil
	case key.Matches(km, k.PickToggle):
		if f.cursor < len(f.shown) {
			return f.shown[f.cursor], false, nil
		}
		return "", false, nil
	case key.Matches(km, k.PickUp):
		f.cursor = max(f.cursor-1, 0)
		return "", false, nil
	case key.Matches(km, k.PickDown):
		f.cursor = min(f.cursor+1, max(len(f.shown)-1, 0))
		return "", false, nil
	}
	before := f.input.Value()
	f.input, cmd = f.input.Update(msg)
	if f.input.Value() != before {
		f.filter()
	}
	return "", false, cmd
}

// View draws the input and as many matches as fit in w x h, marking the
// active ones.
func (f *facetPicker) View(w, h int, active []string) string {
	st := f.st
	var b strings.Builder
	count := strconv.Itoa(len(f.shown)) + "/" + strconv.Itoa(len(f.values))
	f.input.SetWidth(max(w-len(f.name)-len(count)-6, 4))
	b.WriteString(truncate(st.FocusedTitle.Render(f.name+" › ")+f.input.View()+" "+st.Meta.Render(count), w))
	rows := max(h-1, 1)
	if len(f.shown) > rows {
		// A line for the "↓ N more below" hint.
		rows = max(rows-1, 1)
	}
	if f.cursor < f.offset {
		f.offset = f.cursor
	}
	if f.cursor >= f.offset+rows {
		f.offset = f.cursor - rows + 1
	}
	if len(f.shown) == 0 {
		b.WriteString("\n" + st.Missing.Render("no value matches"))
	}
	for i := f.offset; i < min(f.offset+rows, len(f.shown)); i++ {
		v := f.shown[i]
		mark, style := "  ", st.Value
		if i == f.cursor {
			mark, style = st.Cursor.Render("▌ "), st.Highlight
		}
		b.WriteString("\n" + truncate(mark+"["+check(slices.Contains(active, v))+"] "+style.Render(termsafe.Line(v)), w))
	}
	end := min(f.offset+rows, len(f.shown))
	if hint := moreHint(f.offset, len(f.shown)-end); hint != "" {
		b.WriteString("\n" + st.Meta.Render(truncate("  "+hint, w)))
	}
	return b.String()
}

// ShortHelp is the picker's help line.
func (f *facetPicker) ShortHelp() []key.Binding {
	k := f.keys
	return []key.Binding{k.PickDown, k.PickToggle, k.PickClose, k.Quit}
}
