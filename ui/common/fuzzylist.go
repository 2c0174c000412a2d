package common

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/sahilm/fuzzy"

	"ragscope/termsafe"
)

// FuzzyList is what the explorer's pickers share: a text box whose text
// filters a list of labels (fuzzy, best first, as bubbles' list filters),
// a cursor over the matches, and the rows of them that fit.
type FuzzyList struct {
	Keys   *KeyMap
	Input  textinput.Model
	Labels []string
	// shown indexes the labels that match, best first.
	Shown          []int
	cursor, offset int
}

// PickAction is what a key did in a fuzzyList.
type PickAction int

const (
	PickNone PickAction = iota
	// pickToggle: enter on the match under the cursor.
	PickToggle
	// pickClose: esc.
	PickClose
)

func NewFuzzyList(keys *KeyMap, st *Styles, placeholder string, charLimit int) FuzzyList {
	in := st.NewInput(placeholder, charLimit)
	in.Focus()
	return FuzzyList{Keys: keys, Input: in}
}

// SetLabels gives the list what it filters.
func (l *FuzzyList) SetLabels(labels []string) {
	l.Labels = labels
	l.filter()
}

// filter lists the labels matching the typed text, best first; all of
// them, in their order, when nothing is typed.
func (l *FuzzyList) filter() {
	q := strings.TrimSpace(l.Input.Value())
	l.Shown = l.Shown[:0]
	if q == "" {
		for i := range l.Labels {
			l.Shown = append(l.Shown, i)
		}
	} else {
		for _, m := range fuzzy.Find(q, l.Labels) {
			l.Shown = append(l.Shown, m.Index)
		}
	}
	l.cursor, l.offset = 0, 0
}

// Current is the index of the label under the cursor (false when nothing
// matches).
func (l *FuzzyList) Current() (int, bool) {
	if l.cursor >= len(l.Shown) {
		return 0, false
	}
	return l.Shown[l.cursor], true
}

// HandleKey handles a key or a paste: arrows move, enter toggles, esc
// closes, anything else is text (which filters again).
func (l *FuzzyList) HandleKey(msg tea.Msg) (PickAction, tea.Cmd) {
	if km, ok := msg.(tea.KeyPressMsg); ok {
		k := l.Keys
		switch {
		case key.Matches(km, k.PickClose):
			return PickClose, nil
		case key.Matches(km, k.PickToggle):
			return PickToggle, nil
		case key.Matches(km, k.PickUp):
			l.cursor = max(l.cursor-1, 0)
			return PickNone, nil
		case key.Matches(km, k.PickDown):
			l.cursor = min(l.cursor+1, max(len(l.Shown)-1, 0))
			return PickNone, nil
		}
	}
	before := l.Input.Value()
	var cmd tea.Cmd
	l.Input, cmd = l.Input.Update(msg)
	if l.Input.Value() != before {
		l.filter()
	}
	return PickNone, cmd
}

// Rows is how many matches fit in h lines (one kept for the "↓ N more"
// hint when they do not all fit), with the cursor's row among them.
func (l *FuzzyList) Rows(h int) int {
	rows := max(h, 1)
	if len(l.Shown) > rows {
		rows = max(rows-1, 1)
	}
	l.offset = OffsetShowing(l.cursor, l.offset, rows)
	return rows
}

// WriteRows draws the rows that fit (rows from l.rows), each with a box
// checked when active(label index), and the "↓ N more" hint.
func (l *FuzzyList) WriteRows(b *strings.Builder, st *Styles, w, rows int, active func(int) bool) {
	end := min(l.offset+rows, len(l.Shown))
	for i := l.offset; i < end; i++ {
		mark, style := "  ", st.Value
		if i == l.cursor {
			mark, style = st.Cursor.Render("▌ "), st.Highlight
		}
		b.WriteString("\n" + Truncate(mark+"["+Check(active(l.Shown[i]))+"] "+style.Render(termsafe.Line(l.Labels[l.Shown[i]])), w))
	}
	if hint := MoreHint(l.offset, len(l.Shown)-end); hint != "" {
		b.WriteString("\n" + st.Meta.Render(Truncate("  "+hint, w)))
	}
}

// ActiveIn reports whether values[i] is in active.
func ActiveIn(values, active []string) func(int) bool {
	return func(i int) bool { return slices.Contains(active, values[i]) }
}

func Check(b bool) string {
	if b {
		return "x"
	}
	return " "
}
