package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// '?' at 80x24 shows every key: the full help takes the body and scrolls
// when it does not fit; y, Y, o and q used to be cut off (issue #18,
// point 8).
func TestFullHelpFitsOrScrollsAt80x24(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	m := sized(t, opts, 80, 24)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyRunes("?"))
	want := []string{"y copy URL", "Y copy context", "o open URL", "q quit", "ctrl+c quit", "i ask", "tab next pane", "x show left-out"}
	seen := map[string]bool{}
	for page := 0; page < 10; page++ {
		v := screen(m)
		lines := strings.Split(v, "\n")
		if len(lines) != 24 {
			t.Fatalf("%d lines at 80x24", len(lines))
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > 80 {
				t.Fatalf("line %d cells wide: %q", w, l)
			}
			for _, w := range want {
				if strings.Contains(strings.Join(strings.Fields(l), " "), w) {
					seen[w] = true
				}
			}
		}
		if m.keyHelp.Viewport.AtBottom() {
			break
		}
		if !strings.Contains(v, "more below") {
			t.Fatalf("help overflows without a hint:\n%s", v)
		}
		m = feed(t, m, keyType(tea.KeyPgDown))
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("%q never shown", w)
		}
	}
	if m.results.Cursor != 0 {
		t.Fatal("scrolling the help moved the results")
	}
	m = feed(t, m, keyType(tea.KeyEsc))
	if m.fullHelp || strings.Contains(screen(m), "esc or ? closes") {
		t.Fatal("esc did not close the help")
	}
	m = feed(t, m, keyRunes("?"), keyRunes("?"))
	if m.fullHelp {
		t.Fatal("? did not close the help")
	}
}

// While '?' is open the help line lists the overlay's own keys (scroll,
// close), not the results' it covers (issue 25, point 12).
func TestFullHelpHintIsItsOwn(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	for _, size := range [][2]int{{80, 24}, {160, 50}} {
		m := sized(t, opts, size[0], size[1])
		m = ask(t, m, "nodes")
		m = feed(t, m, keyRunes("?"))
		lines := strings.Split(screen(m), "\n")
		hint := strings.Join(strings.Fields(lines[len(lines)-1]), " ")
		if !strings.Contains(hint, "esc close keys") || strings.Contains(hint, "enter detail") || strings.Contains(hint, "copy URL") {
			t.Errorf("%dx%d: help line under '?': %q", size[0], size[1], hint)
		}
		if scrolls := m.keyHelp.Viewport.TotalLineCount() > m.keyHelp.Viewport.Height(); scrolls != strings.Contains(hint, "scroll") {
			t.Errorf("%dx%d: scrolls %v, help line %q", size[0], size[1], scrolls, hint)
		}
		m = feed(t, m, keyType(tea.KeyEsc))
		lines = strings.Split(screen(m), "\n")
		if hint := lines[len(lines)-1]; !strings.Contains(hint, "down") {
			t.Errorf("%dx%d: results help line not back: %q", size[0], size[1], hint)
		}
	}
}

// pgdn in '?' moves by the lines on show: paging from top to bottom shows
// every line of the keys once, none hidden under the "more below" hint.
func TestFullHelpPageDownSkipsNoLine(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	for _, size := range [][2]int{{80, 24}, {80, 18}, {120, 16}} {
		m := sized(t, opts, size[0], size[1])
		m = ask(t, m, "nodes")
		m = feed(t, m, keyRunes("?"))
		norm := func(s string) string { return strings.Join(strings.Fields(ansi.Strip(s)), " ") }
		var content []string
		for _, l := range strings.Split(m.keyHelp.Viewport.GetContent(), "\n") {
			content = append(content, norm(l))
		}
		if len(content) <= m.keyHelp.Viewport.Height() {
			t.Fatalf("%dx%d: the keys fit (%d lines): nothing to page", size[0], size[1], len(content))
		}
		next := 0 // the first content line not yet shown
		for page := 0; page < 20; page++ {
			v := screen(m)
			// The lines on show, in order, start right after the last page's.
			if !strings.Contains(norm(v), content[next]) {
				t.Fatalf("%dx%d: page %d skips line %d %q:\n%s", size[0], size[1], page, next, content[next], v)
			}
			for next < len(content) && strings.Contains(norm(v), content[next]) {
				next++
			}
			if m.keyHelp.Viewport.AtBottom() {
				break
			}
			m = feed(t, m, keyType(tea.KeyPgDown))
		}
		if next != len(content) {
			t.Errorf("%dx%d: %d of %d lines shown", size[0], size[1], next, len(content))
		}
	}
}
