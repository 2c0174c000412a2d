package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// esc closes the expected-source picker (w) and gives the keyboard back to
// the pane it was opened from; the next key is a key there, never text in
// the Ask box.
func TestExpectPickerEscGivesFocusBack(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		for _, c := range []struct {
			name  string
			keys  []tea.Msg
			focus string
		}{
			{"results", nil, string(focusResults)},
			{"detail", []tea.Msg{keyType(tea.KeyEnter)}, string(focusDetail)},
			{"context", []tea.Msg{keyRunes("c")}, string(focusContext)},
		} {
			opts, _ := expectOptions(&fakeRetriever{}, "demo")
			m := sized(t, opts, size[0], size[1])
			m = ask(t, m, "nodes")
			m = feed(t, m, c.keys...)
			if m.Focus() != c.focus {
				t.Fatalf("%dx%d %s: focus %q before w", size[0], size[1], c.name, m.Focus())
			}
			m = feed(t, m, keyRunes("w"))
			if m.results.Pick == nil {
				t.Fatalf("%dx%d %s: w opened no picker", size[0], size[1], c.name)
			}
			m = feed(t, m, keyType(tea.KeyEsc))
			if m.results.Pick != nil || m.Focus() != c.focus {
				t.Errorf("%dx%d %s: after esc focus %q, picker open %v", size[0], size[1], c.name, m.Focus(), m.results.Pick != nil)
			}
			m = feed(t, m, keyRunes("j"))
			if m.query.Value() != "nodes" {
				t.Errorf("%dx%d %s: the next key landed in the question: %q", size[0], size[1], c.name, m.query.Value())
			}
		}
	}
}
