package ui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/sahilm/fuzzy"

	"ragscope/termsafe"
	"ragscope/ui/common"
)

// fuzzyList is what the explorer's pickers share: a text box whose text
// filters a list of labels (fuzzy, best first, as bubbles' list filters),
// a cursor over the matches, and the rows of them that fit.
type fuzzyList struct {
	keys   *common.KeyMap
	input  textinput.Model
	labels []string
	// shown indexes the labels that match, best first.
	shown          []int
	cursor, offset int
}

// pickAction is what a key did in a fuzzyList.
type pickAction int

const (
	pickNone pickAction = iota
	// pickToggle: enter on the match under the cursor.
	pickToggle
	// pickClose: esc.
	pickClose
)

func newFuzzyList(keys *common.KeyMap, st *common.Styles, placeholder string, charLimit int) fuzzyList {
	in := st.NewInput(placeholder, charLimit)
	in.Focus()
	return fuzzyList{keys: keys, input: in}
}

// setLabels gives the list what it filters.
func (l *fuzzyList) setLabels(labels []string) {
	l.labels = labels
	l.filter()
}

// filter lists the labels matching the typed text, best first; all of
// them, in their order, when nothing is typed.
func (l *fuzzyList) filter() {
	q := strings.TrimSpace(l.input.Value())
	l.shown = l.shown[:0]
	if q == "" {
		for i := range l.labels {
			l.shown = append(l.shown, i)
		}
	} else {
		for _, m := range fuzzy.Find(q, l.labels) {
			l.shown = append(l.shown, m.Index)
		}
	}
	l.cursor, l.offset = 0, 0
}

// current is the index of the label under the cursor (false when nothing
// matches).
func (l *fuzzyList) current() (int, bool) {
	if l.cursor >= len(l.shown) {
		return 0, false
	}
	return l.shown[l.cursor], true
}

// update handles a key or a paste: arrows move, enter toggles, esc
// closes, anything else is text (which filters again).
func (l *fuzzyList) update(msg tea.Msg) (pickAction, tea.Cmd) {
	if km, ok := msg.(tea.KeyPressMsg); ok {
		k := l.keys
		switch {
		case key.Matches(km, k.PickClose):
			return pickClose, nil
		case key.Matches(km, k.PickToggle):
			return pickToggle, nil
		case key.Matches(km, k.PickUp):
			l.cursor = max(l.cursor-1, 0)
			return pickNone, nil
		case key.Matches(km, k.PickDown):
			l.cursor = min(l.cursor+1, max(len(l.shown)-1, 0))
			return pickNone, nil
		}
	}
	before := l.input.Value()
	var cmd tea.Cmd
	l.input, cmd = l.input.Update(msg)
	if l.input.Value() != before {
		l.filter()
	}
	return pickNone, cmd
}

// rows is how many matches fit in h lines (one kept for the "↓ N more"
// hint when they do not all fit), with the cursor's row among them.
func (l *fuzzyList) rows(h int) int {
	rows := max(h, 1)
	if len(l.shown) > rows {
		rows = max(rows-1, 1)
	}
	l.offset = common.OffsetShowing(l.cursor, l.offset, rows)
	return rows
}

// writeRows draws the rows that fit (rows from l.rows), each with a box
// checked when active(label index), and the "↓ N more" hint.
func (l *fuzzyList) writeRows(b *strings.Builder, st *common.Styles, w, rows int, active func(int) bool) {
	end := min(l.offset+rows, len(l.shown))
	for i := l.offset; i < end; i++ {
		mark, style := "  ", st.Value
		if i == l.cursor {
			mark, style = st.Cursor.Render("▌ "), st.Highlight
		}
		b.WriteString("\n" + common.Truncate(mark+"["+check(active(l.shown[i]))+"] "+style.Render(termsafe.Line(l.labels[l.shown[i]])), w))
	}
	if hint := common.MoreHint(l.offset, len(l.shown)-end); hint != "" {
		b.WriteString("\n" + st.Meta.Render(common.Truncate("  "+hint, w)))
	}
}

// activeIn reports whether values[i] is in active.
func activeIn(values, active []string) func(int) bool {
	return func(i int) bool { return slices.Contains(active, values[i]) }
}
