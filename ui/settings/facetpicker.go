package settings

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ragscope/ui/common"
)

// facetPicker chooses the values of one filter by typing part of them:
// the values that match, best first (fuzzy, as bubbles' list filters),
// for collections with hundreds of tags or chapters.
type facetPicker struct {
	common.FuzzyList
	st   *common.Styles
	name string
}

func newFacetPicker(keys *common.KeyMap, st *common.Styles, name string, values []string) *facetPicker {
	f := &facetPicker{FuzzyList: common.NewFuzzyList(keys, st, "type to filter "+strconv.Itoa(len(values))+" values", 200), st: st, name: name}
	f.SetLabels(values)
	return f
}

// Update handles a key: arrows move, enter toggles the value under the
// cursor (returned in toggle), esc closes (done), anything else is text.
func (f *facetPicker) Update(msg tea.Msg) (toggle string, done bool, cmd tea.Cmd) {
	act, cmd := f.HandleKey(msg)
	switch act {
	case common.PickClose:
		return "", true, nil
	case common.PickToggle:
		if i, ok := f.Current(); ok {
			return f.Labels[i], false, nil
		}
	}
	return "", false, cmd
}

// View draws the input and as many matches as fit in w x h, marking the
// active ones.
func (f *facetPicker) View(w, h int, active []string) string {
	st := f.st
	var b strings.Builder
	count := strconv.Itoa(len(f.Shown)) + "/" + strconv.Itoa(len(f.Labels))
	f.Input.SetWidth(max(w-len(f.name)-len(count)-6, 4))
	b.WriteString(common.Truncate(st.FocusedTitle.Render(f.name+" › ")+f.Input.View()+" "+st.Meta.Render(count), w))
	rows := f.Rows(h - 1)
	if len(f.Shown) == 0 {
		b.WriteString("\n" + st.Missing.Render("no value matches"))
	}
	f.WriteRows(&b, st, w, rows, common.ActiveIn(f.Labels, active))
	return b.String()
}

// ShortHelp is the picker's help line.
func (f *facetPicker) ShortHelp() []key.Binding {
	k := f.Keys
	return []key.Binding{k.PickDown, k.PickToggle, k.PickClose, k.Quit}
}
